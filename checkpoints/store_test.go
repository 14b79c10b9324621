package checkpoints

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func ckpt(g int) *Checkpoint {
	return &Checkpoint{RulesVersion: 1, Generation: g, Payload: fmt.Appendf(nil, `{"generation":%d}`, g)}
}

func openStore(t testing.TB, keep int) *Store {
	t.Helper()
	s, err := OpenStore(filepath.Join(t.TempDir(), "run", "checkpoints"), keep)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func save(t testing.TB, s *Store, c *Checkpoint) string {
	t.Helper()
	path, err := s.Save(c)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// faultyFS is the OS file system with some operations replaced, to fail
// where a full disk, a bad sector or a lost rename would.
type faultyFS struct {
	OS
	createTemp func(dir, pattern string) (File, error)
	rename     func(oldpath, newpath string) error
	syncDir    func(dir string) error
	readFile   func(path string) ([]byte, error)
}

func (f faultyFS) CreateTemp(dir, pattern string) (File, error) {
	if f.createTemp != nil {
		return f.createTemp(dir, pattern)
	}
	return f.OS.CreateTemp(dir, pattern)
}

func (f faultyFS) Rename(oldpath, newpath string) error {
	if f.rename != nil {
		return f.rename(oldpath, newpath)
	}
	return f.OS.Rename(oldpath, newpath)
}

func (f faultyFS) SyncDir(dir string) error {
	if f.syncDir != nil {
		return f.syncDir(dir)
	}
	return f.OS.SyncDir(dir)
}

func (f faultyFS) ReadFile(path string) ([]byte, error) {
	if f.readFile != nil {
		return f.readFile(path)
	}
	return f.OS.ReadFile(path)
}

// reopen returns a second store of s's directory that goes through fsys.
func reopen(t *testing.T, s *Store, fsys FS) *Store {
	t.Helper()
	r, err := OpenStoreFS(fsys, s.Dir(), s.keep)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// names lists the directory, temp files included.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range entries {
		n = append(n, e.Name())
	}
	return n
}

func TestOpenStore(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "a", "b")
	s, err := OpenStore(dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || s.Dir() != dir {
		t.Fatalf("OpenStore did not create %s: %v", dir, err)
	}
	if _, err := OpenStore(dir, 0); err == nil || !strings.Contains(err.Error(), "keep 0") {
		t.Errorf("keep 0: %v", err)
	}
}

func TestSaveLatestKeep(t *testing.T) {
	t.Parallel()
	s := openStore(t, 3)
	for g := range 6 {
		path := save(t, s, ckpt(g))
		if want := filepath.Join(s.Dir(), FileName(g)); path != want {
			t.Fatalf("Save: path %s, want %s", path, want)
		}
		c, latest, skipped, err := s.Latest()
		if err != nil || skipped != nil || latest != path || !sameCheckpoint(c, ckpt(g)) {
			t.Fatalf("Latest after saving %d: %+v %s %v %v", g, c, latest, skipped, err)
		}
	}
	want := []string{FileName(3), FileName(4), FileName(5)}
	if got := names(t, s.Dir()); !slices.Equal(got, want) {
		t.Errorf("kept %v, want %v", got, want)
	}
	data, err := os.ReadFile(filepath.Join(s.Dir(), FileName(5)))
	if err != nil || !bytes.Equal(data, Encode(ckpt(5))) {
		t.Errorf("file bytes differ from Encode: %v", err)
	}
	if fi, _ := os.Stat(filepath.Join(s.Dir(), FileName(5))); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
}

func TestSaveOverwritesAndKeepsNewerFiles(t *testing.T) {
	t.Parallel()
	s := openStore(t, 1)
	save(t, s, ckpt(7))
	// A resumed run that fell back to generation 4 leaves the newer file
	// alone until it reaches generation 7 again.
	save(t, s, ckpt(4))
	save(t, s, ckpt(5))
	if got, want := names(t, s.Dir()), []string{FileName(5), FileName(7)}; !slices.Equal(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
	c := ckpt(7)
	c.Payload = []byte("second timeline")
	save(t, s, c)
	got, _, _, err := s.Latest()
	if err != nil || !sameCheckpoint(got, c) {
		t.Errorf("Latest: %+v, %v", got, err)
	}
	if names := names(t, s.Dir()); !slices.Equal(names, []string{FileName(7)}) {
		t.Errorf("files %v", names)
	}
}

func TestSaveRemovesStrayTempFiles(t *testing.T) {
	t.Parallel()
	s := openStore(t, 2)
	for _, name := range []string{".gen-123.tmp", ".gen-crash.tmp"} {
		if err := os.WriteFile(filepath.Join(s.Dir(), name), []byte("half a checkpoint"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(s.Dir(), "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	save(t, s, ckpt(1))
	if got, want := names(t, s.Dir()), []string{FileName(1), "notes.txt"}; !slices.Equal(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
}

func TestSaveRejectsNegativeGeneration(t *testing.T) {
	t.Parallel()
	s := openStore(t, 1)
	if _, err := s.Save(ckpt(-1)); err == nil {
		t.Fatal("no error")
	}
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLatestFallsBack(t *testing.T) {
	t.Parallel()
	s := openStore(t, 10)
	for g := 9; g <= 11; g++ {
		save(t, s, ckpt(g))
	}
	p := func(g int) string { return filepath.Join(s.Dir(), FileName(g)) }
	flipped := Encode(ckpt(11))
	flipped[60] ^= 4
	write(t, p(11), flipped)
	write(t, p(12), Encode(ckpt(12))[:70])      // torn
	write(t, p(13), []byte("not a checkpoint")) // garbage
	newer := Encode(ckpt(14))
	newer[versionOff] = 2
	write(t, p(14), resign(newer))
	write(t, p(15), Encode(ckpt(3))) // a file under the wrong name
	write(t, filepath.Join(s.Dir(), "gen-16.ckpt"), nil)
	write(t, filepath.Join(s.Dir(), ".gen-99.tmp"), nil)

	c, path, skipped, err := s.Latest()
	if err != nil {
		t.Fatal(err)
	}
	if path != p(10) || !sameCheckpoint(c, ckpt(10)) {
		t.Errorf("Latest: %s %+v, want generation 10", path, c)
	}
	want := []struct {
		kind error
		text string
	}{
		{ErrCorrupt, p(15) + ": holds generation 3, not 15"},
		{ErrVersion, p(14) + ": written by a newer evotune (format v2; this build reads up to v1)"},
		{ErrCorrupt, p(13) + ": not an evotune checkpoint"},
		{ErrCorrupt, p(12) + ": truncated: 70 of "},
		{ErrCorrupt, p(11) + ": checksum mismatch"},
	}
	if len(skipped) != len(want) {
		t.Fatalf("skipped %v, want %d errors", skipped, len(want))
	}
	for i, w := range want {
		wantErr(t, skipped[i], w.kind, w.text)
	}
}

func TestLatestNoneGood(t *testing.T) {
	t.Parallel()
	s := openStore(t, 10)
	_, _, skipped, err := s.Latest()
	wantErr(t, err, ErrNoCheckpoint, s.Dir()+" has no checkpoint files")
	if skipped != nil {
		t.Errorf("skipped %v", skipped)
	}

	write(t, filepath.Join(s.Dir(), FileName(1)), Encode(ckpt(1))[:50])
	write(t, filepath.Join(s.Dir(), FileName(2)), []byte("{}"))
	c, _, skipped, err := s.Latest()
	if c != nil || len(skipped) != 2 {
		t.Fatalf("Latest: %v, skipped %v", c, skipped)
	}
	wantErr(t, err, ErrNoCheckpoint, "checkpoints: no usable checkpoint in "+s.Dir()+
		": gen-00000002.ckpt: not an evotune checkpoint (bad magic); gen-00000001.ckpt: truncated: 50 of ")

	if err := os.RemoveAll(s.Dir()); err != nil {
		t.Fatal(err)
	}
	_, _, _, err = s.Latest()
	wantErr(t, err, ErrNoCheckpoint, "does not exist")
}

func TestLatestIgnoresDirectories(t *testing.T) {
	t.Parallel()
	s := openStore(t, 10)
	save(t, s, ckpt(1))
	if err := os.Mkdir(filepath.Join(s.Dir(), FileName(2)), 0o755); err != nil {
		t.Fatal(err)
	}
	if c, _, skipped, err := s.Latest(); err != nil || skipped != nil || c.Generation != 1 {
		t.Fatalf("Latest: %+v, %v, %v", c, skipped, err)
	}
}

func TestLatestStopsAtUnreadableFile(t *testing.T) {
	t.Parallel()
	s := openStore(t, 10)
	save(t, s, ckpt(1))
	save(t, s, ckpt(2))
	bad := filepath.Join(s.Dir(), FileName(2))
	s = reopen(t, s, faultyFS{readFile: func(path string) ([]byte, error) {
		if path == bad {
			return nil, &fs.PathError{Op: "read", Path: path, Err: syscall.EIO}
		}
		return os.ReadFile(path)
	}})
	// Falling back to generation 1 would overwrite generation 2, which may
	// read fine once the disk is healthy again.
	c, _, _, err := s.Latest()
	if c != nil || !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), bad) || errors.Is(err, ErrNoCheckpoint) {
		t.Fatalf("Latest: %+v, %v", c, err)
	}
}

// failingFile is a real temp file whose writes stop after limit bytes with
// ENOSPC, as on a full disk; sync and close can be made to fail too.
type failingFile struct {
	*os.File
	limit    int
	syncErr  error
	closeErr error
}

func (f *failingFile) Write(b []byte) (int, error) {
	if len(b) <= f.limit {
		f.limit -= len(b)
		return f.File.Write(b)
	}
	n, _ := f.File.Write(b[:f.limit])
	f.limit = 0
	return n, &fs.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
}

func (f *failingFile) Sync() error {
	if f.syncErr != nil {
		return f.syncErr
	}
	return f.File.Sync()
}

func (f *failingFile) Close() error {
	err := f.File.Close()
	if f.closeErr != nil {
		return f.closeErr
	}
	return err
}

func TestSaveFailuresLeaveThePreviousCheckpoint(t *testing.T) {
	t.Parallel()
	eio := errors.New("input/output error")
	for _, tc := range []struct {
		name string
		file func(*os.File) File
		ren  func(string, string) error
		want string
	}{
		{"disk full at once", func(f *os.File) File { return &failingFile{File: f} }, nil, "no space left on device"},
		{"disk full midway", func(f *os.File) File { return &failingFile{File: f, limit: 1000} }, nil, "no space left on device"},
		{"sync", func(f *os.File) File { return &failingFile{File: f, limit: 1 << 30, syncErr: eio} }, nil, "input/output error"},
		{"close", func(f *os.File) File { return &failingFile{File: f, limit: 1 << 30, closeErr: eio} }, nil, "input/output error"},
		{"rename", nil, func(string, string) error { return eio }, "input/output error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := openStore(t, 1)
			save(t, s, ckpt(1))
			fsys := faultyFS{rename: tc.ren}
			if tc.file != nil {
				fsys.createTemp = func(dir, pattern string) (File, error) {
					f, err := os.CreateTemp(dir, pattern)
					if err != nil {
						return nil, err
					}
					return tc.file(f), nil
				}
			}
			big := ckpt(2)
			big.Payload = bytes.Repeat([]byte("x"), 20000)
			path, err := reopen(t, s, fsys).Save(big)
			if path != "" || err == nil {
				t.Fatalf("Save: %q, %v; want an error", path, err)
			}
			want := "saving checkpoint " + filepath.Join(s.Dir(), FileName(2)) + ": "
			if !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want %q ... %q", err, want, tc.want)
			}
			if got := names(t, s.Dir()); !slices.Equal(got, []string{FileName(1)}) {
				t.Errorf("files after the failure: %v", got)
			}
			if c, _, _, err := s.Latest(); err != nil || !sameCheckpoint(c, ckpt(1)) {
				t.Errorf("Latest after the failure: %+v, %v", c, err)
			}
		})
	}
}

func TestSaveIntoMissingDirectory(t *testing.T) {
	t.Parallel()
	s := openStore(t, 1)
	if err := os.RemoveAll(s.Dir()); err != nil {
		t.Fatal(err)
	}
	path, err := s.Save(ckpt(1))
	if path != "" || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), FileName(1)) {
		t.Fatalf("Save: %q, %v", path, err)
	}
}

func TestSaveUnwritableDirectory(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root writes into read-only directories; TestSaveFailuresLeaveThePreviousCheckpoint covers the failure paths")
	}
	s := openStore(t, 1)
	save(t, s, ckpt(1))
	if err := os.Chmod(s.Dir(), 0o500); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(s.Dir(), 0o755)
	path, err := s.Save(ckpt(2))
	if path != "" || !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("Save: %q, %v", path, err)
	}
	if c, _, _, err := s.Latest(); err != nil || !sameCheckpoint(c, ckpt(1)) {
		t.Errorf("Latest: %+v, %v", c, err)
	}
}

func TestSaveDirectorySyncFailure(t *testing.T) {
	t.Parallel()
	s := reopen(t, openStore(t, 1), faultyFS{syncDir: func(string) error { return errors.New("sync failed") }})
	path, err := s.Save(ckpt(3))
	if path == "" || err == nil || !strings.Contains(err.Error(), "may not survive a power cut") {
		t.Fatalf("Save: %q, %v", path, err)
	}
}

func BenchmarkSave(b *testing.B) {
	s := openStore(b, 3)
	c := ckpt(0)
	c.Payload = bytes.Repeat([]byte(`{"w":[47.0,11.0,270.0]},`), 20000/24)
	b.SetBytes(int64(len(Encode(c))))
	b.ReportAllocs()
	for b.Loop() {
		c.Generation++
		save(b, s, c)
	}
}

func TestWriteFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	if err := WriteFile(path, []byte("one\n")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("two\n")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "two\n" {
		t.Errorf("content %q, want %q", data, "two\n")
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	// A full disk leaves the old file and no temp file.
	full := faultyFS{createTemp: func(dir, pattern string) (File, error) {
		f, err := os.CreateTemp(dir, pattern)
		return &failingFile{File: f, limit: 2}, err
	}}
	if err := WriteFileFS(full, path, []byte("three\n")); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("WriteFile on a full disk: %v, want an error naming %s", err, path)
	}
	if data, _ := os.ReadFile(path); string(data) != "two\n" {
		t.Errorf("after a failed write the content is %q, want the old %q", data, "two\n")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %d entries after a failed write, want 1", len(entries))
	}
}
