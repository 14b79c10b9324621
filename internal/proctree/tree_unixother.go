//go:build unix && !linux

package proctree

import (
	"syscall"
	"time"
)

// setDeathSignal does nothing where the kernel has no parent-death signal:
// a tree outlives a kill -9 of evotune there.
func setDeathSignal(*syscall.SysProcAttr) {}

// groupCPU cannot read a live process's CPU here: a tree's CPU counts
// when it exits (exitCPU).
func groupCPU(int) (time.Duration, bool) { return 0, false }

func liveCPU() bool { return false }
