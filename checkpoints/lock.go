package checkpoints

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// LockName is the lock file's name in a run directory.
const LockName = "lock"

// Lock takes the run directory dir (which must exist) for this process: it
// holds an exclusive lock on dir/lock, which it creates, and writes its pid
// there for the message others get. The lock is the operating system's
// (flock on Unix, LockFileEx on Windows, see tryLock), which it drops when
// the process exits however it exits, so a kill -9 never leaves a stale
// lock. If another process (or another Lock in this one: the lock belongs
// to the open file, not the process) holds it, the error wraps ErrLocked
// and names the holder's pid. release unlocks (calls after the first do
// nothing); it leaves the file in place, since removing it would let two
// processes lock two different files of the same name.
func Lock(dir string) (release func() error, err error) {
	path := filepath.Join(dir, LockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !held {
		f.Close()
		holder := "another process"
		if b, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
				holder = "process " + strconv.Itoa(pid)
			}
		}
		return nil, &kindError{ErrLocked, fmt.Sprintf("%s is in use by %s (lock file %s)", dir, holder, path)}
	}
	// The pid is only for messages; the OS lock is the lock.
	if err := writePid(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	var once sync.Once
	return func() error {
		var err error
		once.Do(func() { err = f.Close() }) // closing the file drops the lock
		return err
	}, nil
}

func writePid(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return err
}
