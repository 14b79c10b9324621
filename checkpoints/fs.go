package checkpoints

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// FS is the file system a Store, a Journal and WriteFileFS go through for
// the steps whose failure the run must survive: creating and writing the
// temp file, renaming it into place, syncing the directory, reading a
// checkpoint back, and opening a file that is appended to (the journal,
// and a caller's own such as the tuner's history), whose writes and syncs
// then go through the file it returns. OS is the real one and the default;
// a test passes an FS that fails where a full disk, a bad sector or a lost
// rename would, which root (who chmod does not stop) cannot provoke on a
// real disk. Listing and removing files go to the os package directly:
// their failures are reported, never recovered from.
type FS interface {
	// CreateTemp creates a new file in dir, as os.CreateTemp.
	CreateTemp(dir, pattern string) (File, error)
	// OpenFile opens a file to append to or rewrite in place, as
	// os.OpenFile.
	OpenFile(name string, flag int, perm fs.FileMode) (RWFile, error)
	// Rename renames oldpath to newpath, replacing it, as os.Rename.
	Rename(oldpath, newpath string) error
	// SyncDir makes the creations and renames in dir durable.
	SyncDir(dir string) error
	// ReadFile returns the contents of path, as os.ReadFile.
	ReadFile(path string) ([]byte, error)
}

// File is the part of *os.File that an atomic write uses.
type File interface {
	io.Writer
	Name() string
	Chmod(fs.FileMode) error
	Sync() error
	Close() error
}

// RWFile is the part of *os.File that a file appended to or rewritten in
// place uses: the journal, a run's history.
type RWFile interface {
	io.ReadWriteSeeker
	io.ReaderAt
	Name() string
	Stat() (fs.FileInfo, error)
	Truncate(size int64) error
	Sync() error
	Close() error
}

// OS is the operating system's file system.
type OS struct{}

var _ FS = OS{}

// CreateTemp implements FS with os.CreateTemp.
func (OS) CreateTemp(dir, pattern string) (File, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err // not a non-nil File holding a nil *os.File
	}
	return f, nil
}

// OpenFile implements FS with os.OpenFile.
func (OS) OpenFile(name string, flag int, perm fs.FileMode) (RWFile, error) {
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err // not a non-nil RWFile holding a nil *os.File
	}
	return f, nil
}

// Rename implements FS with os.Rename.
func (OS) Rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

// ReadFile implements FS with os.ReadFile.
func (OS) ReadFile(path string) ([]byte, error) { return os.ReadFile(path) }

// SyncDir implements FS: it opens dir and fsyncs it.
func (OS) SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	if err := d.Sync(); err != nil {
		d.Close()
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return d.Close()
}
