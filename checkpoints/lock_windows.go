//go:build windows

package checkpoints

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// tryLock takes an exclusive LockFileEx lock on f without waiting,
// reporting false if another handle holds it. The lock belongs to the
// handle, as flock's belongs to the open file on Unix, and Windows
// releases it when the handle is closed or the process ends however it
// ends (after a kill, as soon as the system has torn the process down).
func tryLock(f *os.File) (held bool, err error) {
	// One byte at offset 1<<62, far past the pid: Windows range locks are
	// mandatory, and a lock on the pid's bytes would keep the process that
	// fails to lock from reading whose lock it is. Locking beyond the end
	// of a file is allowed and reserves no space.
	ol := windows.Overlapped{OffsetHigh: 1 << 30}
	err = windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, windows.ERROR_LOCK_VIOLATION), errors.Is(err, windows.ERROR_IO_PENDING):
		// IO_PENDING: what an overlapped handle answers instead.
		return false, nil
	default:
		return false, err
	}
}
