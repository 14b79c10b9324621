package tuner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/evotune/evotune/checkpoints"
)

// TestDiskFull fills the disk as soon as generation 2 is saved, at each
// point where a run writes: the journal of the games of generation 3, its
// history line, and each step of its checkpoint. At each, the run stops
// with an error that says the disk is full, the checkpoints it saved stay
// intact (no temp file left), and once space is freed it resumes to the
// same end as an uninterrupted run.
//
// The disk is a checkpoints.FS that fails as a full one does, so the test
// runs everywhere, without root or a mount.
func TestDiskFull(t *testing.T) {
	ref := filepath.Join(t.TempDir(), "ref")
	r, err := Create(smallConfig(t), ref, Options{})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, r)
	want := readRun(t, ref)

	for _, point := range []string{
		"journal write", "journal sync", "history write", "history sync",
		"temp create", "temp write", "temp sync", "rename", "dir sync",
	} {
		t.Run(point, func(t *testing.T) {
			t.Parallel()
			disk := &fullDisk{point: point}
			fill := func(rec Record) {
				if rec.Generation == 2 {
					disk.arm()
				}
			}
			dir := filepath.Join(t.TempDir(), "run")
			r, err := Create(smallConfig(t), dir, Options{Events: Events{Generation: fill}, fsys: disk})
			if err != nil {
				t.Fatal(err)
			}
			_, err = r.Run(t.Context())
			r.Close()
			if err == nil || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "no space left on device") {
				t.Fatalf("run on a full disk: err = %v, want one saying the disk is full", err)
			}
			t.Logf("the error: %v", err)

			// Generation 3 stands if its checkpoint was renamed into place
			// before the disk filled (a failed directory sync or journal
			// reset after it); otherwise generation 2 does.
			wantGen := 2
			if disk.renamed(checkpoints.FileName(3)) {
				wantGen = 3
			}
			store, _ := checkpoints.OpenStore(filepath.Join(dir, CheckpointsDir), 2)
			c, _, skipped, err := store.Latest()
			if err != nil || len(skipped) != 0 || c.Generation != wantGen {
				t.Fatalf("after the failure: newest checkpoint %v, skipped %v, err %v; want generation %d intact", c, skipped, err, wantGen)
			}
			entries, _ := os.ReadDir(filepath.Join(dir, CheckpointsDir))
			for _, e := range entries {
				if strings.HasSuffix(e.Name(), ".tmp") {
					t.Errorf("temp file %s left behind", e.Name())
				}
			}

			disk.free()
			r, err = Resume(dir, ResumeOverrides{}, Options{fsys: disk})
			if err != nil {
				t.Fatal(err)
			}
			runToEnd(t, r)
			got := readRun(t, dir)
			if diff := got.equal(want); diff != "" {
				t.Errorf("the run resumed after the disk filled up differs from an uninterrupted one in %s", diff)
			}
		})
	}
}

// fullDisk is the OS file system on a disk that fills up: once armed, the
// first write of its point (see TestDiskFull) fills it, and from then on
// every write, sync, file creation and rename fails with ENOSPC until free.
// The write that fills the disk writes half its bytes, as a real one may.
// Closing, truncating, chmod and reading work on a full disk, as they do on
// a real one. Files are told apart by name: the journal, the history and
// the temp files of atomic writes.
type fullDisk struct {
	checkpoints.OS
	point string

	mu      sync.Mutex
	armed   bool
	full    bool
	renames []string // base names renamed into place while armed
}

var _ checkpoints.FS = (*fullDisk)(nil)

func (d *fullDisk) arm() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.armed = true
}

func (d *fullDisk) free() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.armed, d.full = false, false
}

func (d *fullDisk) renamed(name string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Contains(d.renames, name)
}

// hit reports whether op finds the disk full, and whether op is what
// filled it.
func (d *fullDisk) hit(op string) (full, filling bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.armed && !d.full && op == d.point {
		d.full = true
		return true, true
	}
	return d.full, false
}

func enospc(op, path string) error { return &fs.PathError{Op: op, Path: path, Err: syscall.ENOSPC} }

func (d *fullDisk) CreateTemp(dir, pattern string) (checkpoints.File, error) {
	if full, _ := d.hit("temp create"); full {
		return nil, enospc("createtemp", filepath.Join(dir, pattern))
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return &diskFile{File: f, d: d, kind: "temp"}, nil
}

func (d *fullDisk) OpenFile(name string, flag int, perm fs.FileMode) (checkpoints.RWFile, error) {
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	kind := "other"
	switch filepath.Base(name) {
	case checkpoints.JournalName:
		kind = "journal"
	case HistoryFile:
		kind = "history"
	}
	return &diskFile{File: f, d: d, kind: kind}, nil
}

func (d *fullDisk) Rename(oldpath, newpath string) error {
	if full, _ := d.hit("rename"); full {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: syscall.ENOSPC}
	}
	if err := os.Rename(oldpath, newpath); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.armed {
		d.renames = append(d.renames, filepath.Base(newpath))
	}
	return nil
}

func (d *fullDisk) SyncDir(dir string) error {
	if full, _ := d.hit("dir sync"); full {
		return fmt.Errorf("sync %s: %w", dir, syscall.ENOSPC)
	}
	return d.OS.SyncDir(dir)
}

// diskFile is a file on a fullDisk; kind names its write points.
type diskFile struct {
	*os.File
	d    *fullDisk
	kind string
}

func (f *diskFile) Write(b []byte) (int, error) {
	full, filling := f.d.hit(f.kind + " write")
	if !full {
		return f.File.Write(b)
	}
	n := 0
	if filling {
		n, _ = f.File.Write(b[:len(b)/2])
	}
	return n, enospc("write", f.Name())
}

func (f *diskFile) Sync() error {
	if full, _ := f.d.hit(f.kind + " sync"); full {
		return enospc("sync", f.Name())
	}
	return f.File.Sync()
}
