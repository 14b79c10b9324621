//go:build !windows && (!unix || aix)

package checkpoints

import (
	"errors"
	"fmt"
	"os"
	"runtime"
)

// tryLock fails: this system has no lock that its kernel drops when the
// process dies and that belongs to the open file (aix has only fcntl
// locks, which a process shares between all its files), and a lock that a
// crash could leave behind or that two Locks in one process could both
// hold would break Lock's promise. Runs cannot be created or resumed on
// such a system.
func tryLock(*os.File) (bool, error) {
	return false, fmt.Errorf("no suitable file lock on %s: %w", runtime.GOOS, errors.ErrUnsupported)
}
