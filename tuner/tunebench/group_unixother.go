//go:build unix && !linux

package tunebench

import (
	"syscall"
	"time"
)

// setDeathSignal does nothing where the kernel has no parent-death signal:
// a peer outlives a kill -9 of evotune there.
func setDeathSignal(*syscall.SysProcAttr) {}

// groupCPU cannot read a live process's CPU here: a peer's own CPU is
// counted when it exits (procGroup.exitCPU), and the CPU watchdog is off.
func groupCPU(int) (time.Duration, bool) { return 0, false }
