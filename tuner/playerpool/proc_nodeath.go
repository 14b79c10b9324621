//go:build unix && !linux

package playerpool

import "syscall"

// setDeathSignal does nothing where the kernel has no parent-death signal:
// a player outlives a kill -9 of evotune there.
func setDeathSignal(*syscall.SysProcAttr) {}
