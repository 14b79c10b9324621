package checkpoints

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// An Entry is one finished game in the journal.
type Entry struct {
	Generation  int    // the generation the game belongs to (completed generations before it)
	Fingerprint uint64 // identifies the candidate weight vector
	Seed        uint64 // the game's seed
	Score       int
	MaxTile     int
	Moves       int
	Final       uint64 // the final board
}

const (
	// JournalName is the journal's file name in a run directory.
	JournalName = "journal.jsonl"
	// DefaultFlushEvery is the flush interval OpenJournal uses for 0.
	DefaultFlushEvery = time.Second
)

// A Journal appends finished games to a file, one self-checking line each,
// and the run's clock (AppendClock) between them.
// Append writes its line at once (a write into the kernel, microseconds),
// so a killed process loses no finished game; a background goroutine
// fsyncs every flush interval, so a power cut loses at most the games of
// the last interval. Its methods are safe for concurrent use.
type Journal struct {
	path string
	f    journalFile

	flushMu sync.Mutex // serialises writes to f; held across the fsync

	mu     sync.Mutex // guards the fields below; never held across I/O
	buf    []byte     // encoded lines not yet written
	spare  []byte     // the previous buffer, reused
	err    error      // the last flush's error, until a flush succeeds
	dirty  bool       // written since the last fsync
	closed bool

	stop chan struct{}
	done chan struct{}
}

// journalFile is the part of *os.File a Journal uses after opening; the
// tests put a failing one in its place.
type journalFile interface {
	Write([]byte) (int, error)
	Sync() error
	Truncate(int64) error
	Close() error
}

// OpenJournal opens the journal at path for appending, creating it if
// missing, and starts flushing it every interval (0 means
// DefaultFlushEvery). Read what it holds with ReadJournal first. If a crash
// tore the last line, OpenJournal ends it with a newline, so the torn
// fragment stays a line of its own that readers skip and the next entry is
// not glued to it.
func OpenJournal(path string, every time.Duration) (*Journal, error) {
	return OpenJournalFS(OS{}, path, every)
}

// OpenJournalFS is OpenJournal on fsys, which opens the file (and so
// carries its writes and syncs) and syncs its directory.
func OpenJournalFS(fsys FS, path string, every time.Duration) (*Journal, error) {
	if every <= 0 {
		every = DefaultFlushEvery
	}
	_, statErr := os.Stat(path)
	f, err := fsys.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := endLastLine(f); err != nil {
		f.Close()
		return nil, err
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		if err := fsys.SyncDir(filepath.Dir(path)); err != nil {
			f.Close()
			return nil, err
		}
	}
	j := &Journal{path: path, f: f, stop: make(chan struct{}), done: make(chan struct{})}
	go j.flushEvery(every)
	return j, nil
}

// endLastLine appends a newline to a file whose last byte is not one.
func endLastLine(f RWFile) error {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return err
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, fi.Size()-1); err != nil {
		return fmt.Errorf("read %s: %w", f.Name(), err)
	}
	if last[0] == '\n' {
		return nil
	}
	if _, err := f.Write([]byte{'\n'}); err != nil {
		return err
	}
	return f.Sync()
}

func (j *Journal) flushEvery(every time.Duration) {
	defer close(j.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-j.stop:
			return
		case <-t.C:
			j.mu.Lock()
			pending := len(j.buf) > 0 || j.err != nil || j.dirty
			j.mu.Unlock()
			if pending {
				j.Flush() // the error is kept in j.err for Append
			}
		}
	}
}

// Path returns the journal's file path.
func (j *Journal) Path() string { return j.path }

// Append writes e's line to the file at once, without an fsync: it
// survives the process being killed, and reaches the disk at the next
// flush. The error reports a closed journal, or a failed write or flush (a
// full disk): entries are kept and retried, but until a flush succeeds
// they would be lost in a crash.
func (j *Journal) Append(e Entry) error {
	return j.append(func(b []byte) []byte { return appendLine(b, e) })
}

// AppendClock writes a line of the run's clock, as Append writes a game's:
// at once, without an fsync. A resumed run counts the time of a process
// that stopped without a checkpoint from the latest such line.
func (j *Journal) AppendClock(c Clock) error {
	return j.append(func(b []byte) []byte { return appendClockLine(b, c) })
}

// append adds the line that line appends to the buffer and writes it.
func (j *Journal) append(line func([]byte) []byte) error {
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return j.errClosed()
	}
	j.buf = line(j.buf)
	j.mu.Unlock()
	j.flushMu.Lock()
	defer j.flushMu.Unlock()
	if err := j.flush(false, false); err != nil && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	return nil
}

// Flush writes the buffered entries and fsyncs the file.
func (j *Journal) Flush() error {
	j.flushMu.Lock()
	defer j.flushMu.Unlock()
	return j.flush(false, true)
}

// flush writes the buffer, and with sync fsyncs the file; the caller holds
// flushMu. With closing set it also marks the journal closed, under the
// same lock that takes the buffer, so that no Append falls between the last
// flush and the close.
func (j *Journal) flush(closing, sync bool) error {
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return j.errClosed()
	}
	j.closed = closing
	buf, failed, dirty := j.buf, j.err != nil, j.dirty
	j.buf, j.spare = j.spare[:0], nil
	j.mu.Unlock()
	if len(buf) == 0 && !failed && !(sync && dirty) {
		return nil
	}

	n, err := j.f.Write(buf)
	synced := false
	if err == nil && sync {
		err = j.f.Sync()
		synced = err == nil
	}

	j.mu.Lock()
	defer j.mu.Unlock()
	if err != nil && n < len(buf) {
		// Retry the unwritten tail before what came meanwhile: a partial
		// write leaves a line half written, and its rest must follow it.
		j.buf = append(bytes.Clone(buf[n:]), j.buf...)
	} else {
		j.spare = buf[:0]
	}
	j.dirty = !synced && (dirty || n > 0)
	j.err = err
	return err
}

func (j *Journal) errClosed() error { return fmt.Errorf("journal %s: %w", j.path, os.ErrClosed) }

// Close flushes the journal and closes its file. Appends after Close fail.
func (j *Journal) Close() error {
	j.flushMu.Lock()
	err := j.flush(true, true)
	j.flushMu.Unlock()
	if errors.Is(err, os.ErrClosed) {
		return err
	}
	close(j.stop)
	<-j.done
	return errors.Join(err, j.f.Close())
}

// Reset empties the journal, buffered entries included, and then holds the
// entries keep: the tuner calls it once a checkpoint holds the generation
// the entries belong to, keeping those of later generations (games played
// ahead of their generation). Readers must still filter entries by
// Generation: a crash between the checkpoint and Reset leaves the old
// entries in place. The kept entries are written right after the file is
// emptied, before it is synced; a process killed between the two loses
// them, which costs only their games played again. Clock lines go too: the
// checkpoint's history holds a later clock.
func (j *Journal) Reset(keep ...Entry) error {
	j.flushMu.Lock()
	defer j.flushMu.Unlock()
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return j.errClosed()
	}
	j.buf = j.buf[:0]
	j.err = nil
	j.dirty = false
	j.mu.Unlock()
	var lines []byte
	for _, e := range keep {
		lines = appendLine(lines, e)
	}
	// O_APPEND writes then start again at offset 0.
	if err := j.f.Truncate(0); err != nil {
		return err
	}
	if len(lines) > 0 {
		if _, err := j.f.Write(lines); err != nil {
			return err
		}
	}
	return j.f.Sync()
}
