//go:build unix && !aix

package checkpoints

import (
	"os"

	"golang.org/x/sys/unix"
)

// tryLock takes flock(LOCK_EX|LOCK_NB) on f, reporting false if another
// open file holds it. flock, unlike fcntl locks, belongs to the open file:
// a second Lock in the same process fails as one in another process does,
// and closing another descriptor of the file leaves the lock alone.
func tryLock(f *os.File) (held bool, err error) {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch err {
		case nil:
			return true, nil
		case unix.EWOULDBLOCK:
			return false, nil
		case unix.EINTR:
			continue
		default:
			return false, err
		}
	}
}
