package checkpoints

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
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

// A Journal appends finished games to a file, one self-checking line each.
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
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return j.errClosed()
	}
	j.buf = appendLine(j.buf, e)
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
// them, which costs only their games played again.
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

// ReadJournal returns the entries of the journal at path, in file order. A
// line that is torn (a crash mid-write), corrupt or of an unknown version
// is left out and reported in skipped as an error naming the file and line
// and wrapping ErrCorrupt or ErrVersion. A missing file is an empty journal.
// The same game may appear twice (a game replayed after a crash that lost
// its flush only partly); entries of a game are identical.
func ReadJournal(path string) (entries []Entry, skipped []error, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	} else if err != nil {
		return nil, nil, err
	}
	entries, skipped = parseJournal(path, data)
	return entries, skipped, nil
}

// parseJournal decodes the lines of data, the contents of the file path.
func parseJournal(path string, data []byte) (entries []Entry, skipped []error) {
	for n := 1; len(data) > 0; n++ {
		line, rest, _ := bytes.Cut(data, []byte{'\n'})
		data = rest
		if len(line) == 0 {
			continue
		}
		e, bad := decodeLine(line)
		if bad != nil {
			skipped = append(skipped, &kindError{bad.kind, fmt.Sprintf("%s:%d: %s", path, n, bad.detail)})
			continue
		}
		entries = append(entries, e)
	}
	return entries, skipped
}

// Journal line format, version 1 (one line, valid JSON):
//
//	{"v":1,"gen":G,"fp":"0x%016x","seed":S,"score":N,"max_tile":N,"moves":N,"final":"0x%016x","crc":"%08x"}
//
// crc is the CRC-32C of the line's bytes before `,"crc"`. Readers accept
// only the exact bytes appendLine writes for the decoded entry.
const (
	linePrefix = `{"v":1,`
	crcKey     = `,"crc":"`
	crcSuffix  = len(crcKey) + 8 + len(`"}`)
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// appendLine appends the journal line of e, newline included.
func appendLine(b []byte, e Entry) []byte {
	start := len(b)
	b = append(b, linePrefix...)
	b = append(b, `"gen":`...)
	b = strconv.AppendInt(b, int64(e.Generation), 10)
	b = append(b, `,"fp":"0x`...)
	b = appendHex(b, e.Fingerprint, 16)
	b = append(b, `","seed":`...)
	b = strconv.AppendUint(b, e.Seed, 10)
	b = append(b, `,"score":`...)
	b = strconv.AppendInt(b, int64(e.Score), 10)
	b = append(b, `,"max_tile":`...)
	b = strconv.AppendInt(b, int64(e.MaxTile), 10)
	b = append(b, `,"moves":`...)
	b = strconv.AppendInt(b, int64(e.Moves), 10)
	b = append(b, `,"final":"0x`...)
	b = appendHex(b, e.Final, 16)
	b = append(b, '"')
	crc := crc32.Checksum(b[start:], castagnoli)
	b = append(b, crcKey...)
	b = appendHex(b, uint64(crc), 8)
	return append(b, "\"}\n"...)
}

// appendHex appends the low 4*digits bits of v as lower-case hex digits.
func appendHex(b []byte, v uint64, digits int) []byte {
	const hex = "0123456789abcdef"
	for i := digits - 1; i >= 0; i-- {
		b = append(b, hex[v>>(4*i)&15])
	}
	return b
}

// lineJSON is a journal line as encoding/json sees it.
type lineJSON struct {
	V       int    `json:"v"`
	Gen     int    `json:"gen"`
	FP      string `json:"fp"`
	Seed    uint64 `json:"seed"`
	Score   int    `json:"score"`
	MaxTile int    `json:"max_tile"`
	Moves   int    `json:"moves"`
	Final   string `json:"final"`
	CRC     string `json:"crc"`
}

// decodeLine decodes one journal line without its newline.
func decodeLine(line []byte) (Entry, *problem) {
	n := len(line)
	if n < len(linePrefix)+crcSuffix || string(line[n-crcSuffix:n-crcSuffix+len(crcKey)]) != crcKey || line[n-2] != '"' || line[n-1] != '}' {
		if start := []byte(`{"v":`); bytes.HasPrefix(line, start) || bytes.HasPrefix(start, line) {
			return Entry{}, corrupt("incomplete line (torn write?)")
		}
		return Entry{}, corrupt("not a journal line")
	}
	want, err := strconv.ParseUint(string(line[n-10:n-2]), 16, 32)
	if err != nil {
		return Entry{}, corrupt("malformed checksum")
	}
	if crc32.Checksum(line[:n-crcSuffix], castagnoli) != uint32(want) {
		return Entry{}, corrupt("checksum mismatch")
	}
	if !bytes.HasPrefix(line, []byte(linePrefix)) {
		var v struct {
			V int `json:"v"`
		}
		if json.Unmarshal(line, &v) == nil && v.V > 1 {
			return Entry{}, &problem{ErrVersion, fmt.Sprintf("journal line format v%d, newer than this build's v1", v.V)}
		}
		return Entry{}, corrupt("not a journal line")
	}
	var j lineJSON
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return Entry{}, corrupt("malformed line: %v", err)
	}
	e := Entry{Generation: j.Gen, Seed: j.Seed, Score: j.Score, MaxTile: j.MaxTile, Moves: j.Moves}
	var ok1, ok2 bool
	e.Fingerprint, ok1 = parseHex64(j.FP)
	e.Final, ok2 = parseHex64(j.Final)
	// Only the exact bytes the writer would produce are an entry: this
	// rules out duplicate keys, missing fields, spacing, number spellings.
	if canon := appendLine(nil, e); !ok1 || !ok2 || !bytes.Equal(canon[:len(canon)-1], line) {
		return Entry{}, corrupt("malformed line")
	}
	return e, nil
}

func parseHex64(s string) (uint64, bool) {
	if len(s) != 18 || s[:2] != "0x" {
		return 0, false
	}
	v, err := strconv.ParseUint(s[2:], 16, 64)
	return v, err == nil
}
