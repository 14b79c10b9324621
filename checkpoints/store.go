package checkpoints

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// A Store holds the checkpoint files of one run, gen-%08d.ckpt in one
// directory. Its methods are safe for concurrent use; two processes must not
// share a directory (see Lock).
type Store struct {
	fsys FS
	dir  string
	keep int
	mu   sync.Mutex // serialises Save and Latest
}

// OpenStore returns the store of dir (runs/NAME/checkpoints) on the OS file
// system, creating the directory if missing. Save keeps the newest keep
// checkpoints, keep >= 1.
func OpenStore(dir string, keep int) (*Store, error) { return OpenStoreFS(OS{}, dir, keep) }

// OpenStoreFS is OpenStore with the file system that Save and Latest write
// and read checkpoints through.
func OpenStoreFS(fsys FS, dir string, keep int) (*Store, error) {
	if keep < 1 {
		return nil, fmt.Errorf("checkpoints: keep %d: want at least 1", keep)
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		// The new directory's entry must survive a power cut too.
		if err := fsys.SyncDir(filepath.Dir(dir)); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	return &Store{fsys: fsys, dir: dir, keep: keep}, nil
}

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// FileName returns the base name of the checkpoint of a generation.
func FileName(generation int) string { return fmt.Sprintf("gen-%08d.ckpt", generation) }

// parseName returns the generation of a checkpoint file name, or false for
// any other name (temp files, strays, non-canonical spellings).
func parseName(name string) (int, bool) {
	digits, ok := strings.CutPrefix(name, "gen-")
	if !ok {
		return 0, false
	}
	if digits, ok = strings.CutSuffix(digits, ".ckpt"); !ok {
		return 0, false
	}
	g, err := strconv.Atoi(digits)
	if err != nil || g < 0 || FileName(g) != name {
		return 0, false
	}
	return g, true
}

// Save writes c atomically as FileName(c.Generation) and returns its path.
//
// On error with an empty path nothing changed on disk: the previous
// checkpoints are intact and no temp file is left. With a path and an error,
// the new file is in place but either its directory could not be synced (it
// may not survive a power cut) or deleting old files failed. After the new
// file is durable, Save deletes the checkpoints older than the newest keep
// and stray temp files.
func (s *Store) Save(c *Checkpoint) (path string, err error) {
	if c.Generation < 0 {
		return "", fmt.Errorf("checkpoints: generation %d: want at least 0", c.Generation)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	path = filepath.Join(s.dir, FileName(c.Generation))
	if err := writeFileAtomic(s.fsys, path, tempPattern, Encode(c)); err != nil {
		return "", fmt.Errorf("saving checkpoint %s: %w", path, err)
	}
	if err := s.fsys.SyncDir(s.dir); err != nil {
		return path, fmt.Errorf("saved checkpoint %s, but it may not survive a power cut: %w", path, err)
	}
	if err := s.prune(c.Generation); err != nil {
		return path, fmt.Errorf("saved checkpoint %s, but cleaning up older files failed: %w", path, err)
	}
	return path, nil
}

// prune deletes the checkpoints older than the newest keep up to saved and
// every temp file. Files newer than saved (left by a timeline that ended in
// a corrupt checkpoint, or by a newer evotune) are left alone: the run
// overwrites them as it reaches their generation.
func (s *Store) prune(saved int) error {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return err
	}
	var gens []int
	var errs []error
	for _, e := range entries {
		name := e.Name()
		if g, ok := parseName(name); ok && g <= saved {
			gens = append(gens, g)
		} else if isTemp(name) {
			// Only this process writes here (Lock), and not now (s.mu).
			errs = append(errs, removeIfExists(filepath.Join(s.dir, name)))
		}
	}
	slices.Sort(gens)
	for _, g := range gens[:max(0, len(gens)-s.keep)] {
		errs = append(errs, removeIfExists(filepath.Join(s.dir, FileName(g))))
	}
	return errors.Join(errs...)
}

func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

const tempPattern = ".gen-*.tmp"

func isTemp(name string) bool {
	return strings.HasPrefix(name, ".gen-") && strings.HasSuffix(name, ".tmp")
}

// Latest returns the newest checkpoint that decodes and verifies, with its
// path. Every newer file that does not (torn, corrupt, not a checkpoint, an
// unknown format version) is passed over and reported in skipped, as an
// error naming the file and wrapping ErrCorrupt or ErrVersion. Without a
// usable file, err wraps ErrNoCheckpoint and names the files tried. A file
// that cannot be read at all (permissions, I/O error) stops the search with
// that error rather than silently falling back to an older generation.
func (s *Store) Latest() (c *Checkpoint, path string, skipped []error, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil, fmt.Errorf("%w: %s does not exist", ErrNoCheckpoint, s.dir)
	} else if err != nil {
		return nil, "", nil, err
	}
	var gens []int
	for _, e := range entries {
		if g, ok := parseName(e.Name()); ok && e.Type().IsRegular() {
			gens = append(gens, g)
		}
	}
	if len(gens) == 0 {
		return nil, "", nil, fmt.Errorf("%w: %s has no checkpoint files", ErrNoCheckpoint, s.dir)
	}
	slices.Sort(gens)
	slices.Reverse(gens)
	var tried []string
	for _, g := range gens {
		path := filepath.Join(s.dir, FileName(g))
		c, err := readFile(s.fsys, path)
		if err == nil && c.Generation != g {
			err = &kindError{ErrCorrupt, fmt.Sprintf("%s: holds generation %d, not %d", path, c.Generation, g)}
		}
		if err == nil {
			return c, path, skipped, nil
		}
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrVersion) {
			return nil, "", skipped, err
		}
		skipped = append(skipped, err)
		tried = append(tried, strings.TrimPrefix(err.Error(), s.dir+string(filepath.Separator)))
	}
	return nil, "", skipped, fmt.Errorf("%w in %s: %s", ErrNoCheckpoint, s.dir, strings.Join(tried, "; "))
}

// writeFileAtomic replaces path with data the way google/renameio does: a
// temp file in the same directory (so the rename cannot cross file
// systems), written, synced and closed, then renamed over path. Until the
// rename, path is untouched; the temp file is removed on every failure. The
// caller syncs the directory to make the rename itself durable.
func writeFileAtomic(fsys FS, path, pattern string, data []byte) (err error) {
	dir := filepath.Dir(path)
	f, err := fsys.CreateTemp(dir, pattern)
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close() // may fail a second time; the first error is the news
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	// CreateTemp makes 0600 files; checkpoints are ordinary output files.
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return fsys.Rename(tmp, path)
}

// WriteFile atomically replaces path with data, for the other files of a run
// directory: a temp file .NAME.*.tmp in the same directory, written, synced,
// closed and renamed over path, then the directory synced. On failure path
// is untouched and the temp file removed. It is the project's one atomic
// writer; Store.Save writes checkpoints the same way.
func WriteFile(path string, data []byte) error { return WriteFileFS(OS{}, path, data) }

// WriteFileFS is WriteFile on fsys.
func WriteFileFS(fsys FS, path string, data []byte) error {
	if err := writeFileAtomic(fsys, path, "."+filepath.Base(path)+".*.tmp", data); err != nil {
		return fmt.Errorf("checkpoints: write %s: %w", path, err)
	}
	if err := fsys.SyncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("checkpoints: write %s: %w", path, err)
	}
	return nil
}
