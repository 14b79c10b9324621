package checkpoints

import (
	"bytes"
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func entry(i int) Entry {
	return Entry{
		Generation:  i % 3,
		Fingerprint: 0x9e3779b97f4a7c15 * uint64(i+1),
		Seed:        0xbf58476d1ce4e5b9 * uint64(i+7),
		Score:       1000 * i,
		MaxTile:     2 << (i % 15),
		Moves:       500 + i,
		Final:       0x0123456789abcdef ^ uint64(i),
	}
}

func openJournal(t *testing.T, path string, every time.Duration) *Journal {
	t.Helper()
	j, err := OpenJournal(path, every)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func readJournal(t *testing.T, path string) ([]Entry, []error) {
	t.Helper()
	entries, skipped, err := ReadJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	return entries, skipped
}

func TestJournalLineFormat(t *testing.T) {
	t.Parallel()
	e := Entry{Generation: 12, Fingerprint: 0xfedcba9876543210, Seed: 18446744073709551615, Score: 20480, MaxTile: 2048, Moves: 1001, Final: 0x654321}
	line := string(appendLine(nil, e))
	want := `{"v":1,"gen":12,"fp":"0xfedcba9876543210","seed":18446744073709551615,"score":20480,"max_tile":2048,"moves":1001,"final":"0x0000000000654321","crc":"`
	if !strings.HasPrefix(line, want) || !strings.HasSuffix(line, "\"}\n") || len(line) != len(want)+8+3 {
		t.Fatalf("line %q, want %q + crc", line, want)
	}
	got, clock, bad := decodeLine([]byte(line[:len(line)-1]))
	if bad != nil || clock != nil || got != e {
		t.Fatalf("decodeLine: %+v, %v, %v", got, clock, bad)
	}
}

func TestJournalRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), JournalName)
	j := openJournal(t, path, time.Hour)
	var want []Entry
	for i := range 50 {
		e := entry(i)
		e.Score = -i // nothing in the format assumes signs
		want = append(want, e)
		if err := j.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	got, skipped := readJournal(t, path)
	if !slices.Equal(got, want) || skipped != nil {
		t.Fatalf("read %d entries (skipped %v), want %d", len(got), skipped, len(want))
	}
	if err := j.Append(entry(0)); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Append after Close: %v", err)
	}
	if err := j.Close(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("second Close: %v", err)
	}

	// Reopened, the journal appends after what it holds.
	j = openJournal(t, path, time.Hour)
	if err := j.Append(entry(99)); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if got, _ := readJournal(t, path); len(got) != 51 || got[50] != entry(99) {
		t.Errorf("after reopening: %d entries", len(got))
	}
}

func TestReadJournalMissingFile(t *testing.T) {
	t.Parallel()
	got, skipped, err := ReadJournal(filepath.Join(t.TempDir(), JournalName))
	if got != nil || skipped != nil || err != nil {
		t.Fatalf("ReadJournal: %v %v %v", got, skipped, err)
	}
}

func TestJournalConcurrentAppend(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), JournalName)
	j := openJournal(t, path, time.Millisecond)
	const workers, each = 8, 200
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				if err := j.Append(entry(w*each + i)); err != nil {
					t.Error(err)
				}
				if i%50 == 0 {
					if err := j.Flush(); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	got, skipped := readJournal(t, path)
	if skipped != nil {
		t.Fatalf("skipped %v", skipped)
	}
	slices.SortFunc(got, func(a, b Entry) int { return a.Moves - b.Moves })
	if len(got) != workers*each {
		t.Fatalf("%d entries, want %d", len(got), workers*each)
	}
	for i, e := range got {
		if e != entry(i) {
			t.Fatalf("entry %d: %+v, want %+v", i, e, entry(i))
		}
	}
}

// TestJournalFlushesInTheBackground: entries reach the file without a Flush
// call, as they must before a kill -9.
func TestJournalFlushesInTheBackground(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), JournalName)
	j := openJournal(t, path, 10*time.Millisecond)
	defer j.Close()
	if err := j.Append(entry(1)); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if got, _ := readJournal(t, path); len(got) == 1 {
			return
		}
	}
	t.Fatal("the entry never reached the file")
}

func writeLines(t *testing.T, path string, n int) []byte {
	t.Helper()
	var b []byte
	for i := range n {
		b = appendLine(b, entry(i))
	}
	write(t, path, b)
	return b
}

func TestJournalTornLastLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), JournalName)
	full := writeLines(t, path, 3)
	start := bytes.LastIndexByte(full[:len(full)-1], '\n') + 1
	for cut := start + 1; cut < len(full)-1; cut++ {
		write(t, path, full[:cut])
		got, skipped := readJournal(t, path)
		if !slices.Equal(got, []Entry{entry(0), entry(1)}) || len(skipped) != 1 {
			t.Fatalf("cut at %d: %d entries, skipped %v", cut, len(got), skipped)
		}
		wantErr(t, skipped[0], ErrCorrupt, path+":3: incomplete line")
	}
	// Cut just before the newline: the line is whole and checks out.
	write(t, path, full[:len(full)-1])
	if got, skipped := readJournal(t, path); len(got) != 3 || skipped != nil {
		t.Fatalf("newline missing: %d entries, skipped %v", len(got), skipped)
	}
}

func TestJournalAppendAfterTornLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), JournalName)
	full := writeLines(t, path, 2)
	write(t, path, full[:len(full)-20])
	j := openJournal(t, path, time.Hour)
	if err := j.Append(entry(7)); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	got, skipped := readJournal(t, path)
	if !slices.Equal(got, []Entry{entry(0), entry(7)}) || len(skipped) != 1 {
		t.Fatalf("entries %v, skipped %v", got, skipped)
	}
}

func TestJournalCorruptLines(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), JournalName)
	good := writeLines(t, path, 1)
	lines := [][]byte{good}
	flipped := appendLine(nil, entry(1))
	flipped[30] ^= 1 // a digit of the generation, or of the fingerprint
	lines = append(lines, flipped)
	lines = append(lines, []byte("garbage\n"), []byte("\x00\x00\x00\n"), []byte("\n"))
	spaced := appendLine(nil, entry(2))
	spaced = bytes.Replace(spaced, []byte(`"gen":`), []byte(`"gen": `), 1)
	lines = append(lines, spaced)
	newer := bytes.Replace(appendLine(nil, entry(3)), []byte(`"v":1`), []byte(`"v":3`), 1)
	lines = append(lines, resignLine(newer))
	lines = append(lines, appendLine(nil, entry(4)))
	write(t, path, bytes.Join(lines, nil))

	got, skipped := readJournal(t, path)
	if !slices.Equal(got, []Entry{entry(0), entry(4)}) {
		t.Errorf("entries %v", got)
	}
	want := []struct {
		kind error
		text string
	}{
		{ErrCorrupt, ":2: checksum mismatch"},
		{ErrCorrupt, ":3: not a journal line"},
		{ErrCorrupt, ":4: not a journal line"},
		{ErrCorrupt, ":6: checksum mismatch"},
		{ErrVersion, ":7: journal line format v3, newer than this build's v2"},
	}
	if len(skipped) != len(want) {
		t.Fatalf("skipped %v", skipped)
	}
	for i, w := range want {
		wantErr(t, skipped[i], w.kind, path+w.text)
	}
}

// resignLine recomputes the crc of an edited line (newline included).
func resignLine(line []byte) []byte {
	body := line[:len(line)-1-crcSuffix]
	b := append(bytes.Clone(body), crcKey...)
	b = appendHex(b, uint64(crc32.Checksum(body, castagnoli)), 8)
	return append(b, "\"}\n"...)
}

func TestDecodeLineRejectsNonCanonical(t *testing.T) {
	t.Parallel()
	line := appendLine(nil, entry(5))
	for _, edit := range [][2]string{
		{`"gen":2`, `"gen": 2`},
		{`"score":5000`, `"score":5e3`},
		{`"fp":"0x`, `"fp":"0X`},
		{`"moves":505`, `"moves":505,"moves":505`},
		{`,"moves":505`, ``},
		{`"v":1,`, `"v":1,"extra":0,`},
	} {
		edited := bytes.Replace(line, []byte(edit[0]), []byte(edit[1]), 1)
		if bytes.Equal(edited, line) {
			t.Fatalf("edit %q does not apply to %s", edit, line)
		}
		edited = resignLine(edited)
		if e, _, bad := decodeLine(edited[:len(edited)-1]); bad == nil {
			t.Errorf("edit %q accepted: %+v", edit, e)
		}
	}
}

func TestJournalReset(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), JournalName)
	j := openJournal(t, path, time.Hour)
	defer j.Close()
	for i := range 5 {
		j.Append(entry(i))
	}
	if err := j.Flush(); err != nil {
		t.Fatal(err)
	}
	j.Append(entry(5)) // buffered, not written: Reset drops it too
	if err := j.Reset(); err != nil {
		t.Fatal(err)
	}
	j.Append(entry(6))
	if err := j.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, skipped := readJournal(t, path); !slices.Equal(got, []Entry{entry(6)}) || skipped != nil {
		t.Fatalf("after Reset: %v, skipped %v", got, skipped)
	}
}

// TestJournalResetKeeps checks that Reset keeps the entries it is given,
// before any appended after it.
func TestJournalResetKeeps(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), JournalName)
	j := openJournal(t, path, time.Hour)
	defer j.Close()
	for i := range 4 {
		j.Append(entry(i))
	}
	if err := j.Reset(entry(2), entry(3)); err != nil {
		t.Fatal(err)
	}
	j.Append(entry(4))
	if err := j.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, skipped := readJournal(t, path); !slices.Equal(got, []Entry{entry(2), entry(3), entry(4)}) || skipped != nil {
		t.Fatalf("after Reset keeping 2 and 3: %v, skipped %v", got, skipped)
	}
}

// shortFile accepts limit bytes, then fails with ENOSPC until it is given
// room again.
type shortFile struct {
	journalFile
	limit int
}

func (f *shortFile) Write(b []byte) (int, error) {
	n := min(len(b), f.limit)
	f.limit -= n
	m, err := f.journalFile.Write(b[:n])
	if err == nil && n < len(b) {
		err = &fs.PathError{Op: "write", Path: "journal", Err: syscall.ENOSPC}
	}
	return m, err
}

func TestJournalDiskFullKeepsEntries(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), JournalName)
	j := openJournal(t, path, time.Hour)
	short := &shortFile{journalFile: j.f, limit: 100} // inside the first line
	j.f = short
	for i := range 3 {
		j.Append(entry(i))
	}
	if err := j.Flush(); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Flush on a full disk: %v", err)
	}
	if err := j.Append(entry(3)); !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), path) {
		t.Errorf("Append after a failed flush: %v", err)
	}
	short.limit = 1 << 20 // space freed
	if err := j.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(entry(4)); err != nil {
		t.Errorf("Append after a good flush: %v", err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	got, skipped := readJournal(t, path)
	if !slices.Equal(got, []Entry{entry(0), entry(1), entry(2), entry(3), entry(4)}) || skipped != nil {
		t.Fatalf("entries %v, skipped %v", got, skipped)
	}
}

func FuzzJournalLine(f *testing.F) {
	f.Add(appendLine(nil, entry(3)))
	f.Add(appendLine(nil, Entry{}))
	f.Add(appendClockLine(nil, Clock{Generation: 4, Elapsed: 83*time.Second + 250*time.Millisecond, CPU: 160 * time.Second}))
	f.Add(append(appendLine(nil, entry(1)), appendClockLine(nil, Clock{Elapsed: -time.Millisecond})...))
	f.Add([]byte(`{"v":1,"gen":0}`))
	f.Add([]byte(`{"v":2,"gen":0,"elapsed_ms":99999999999999999999,"cpu_ms":0}`))
	f.Add([]byte("garbage\n\n{\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := parseJournal("journal.jsonl", data)
		for _, e := range c.Skipped {
			if !errors.Is(e, ErrCorrupt) && !errors.Is(e, ErrVersion) {
				t.Fatalf("error %v wraps neither ErrCorrupt nor ErrVersion", e)
			}
		}
		// Whatever decodes re-encodes to a line of the input.
		for _, e := range c.Entries {
			if !bytes.Contains(data, bytes.TrimSuffix(appendLine(nil, e), []byte("\n"))) {
				t.Fatalf("entry %+v is not in the input", e)
			}
		}
		for _, k := range c.Clocks {
			if !bytes.Contains(data, bytes.TrimSuffix(appendClockLine(nil, k), []byte("\n"))) {
				t.Fatalf("clock %+v is not in the input", k)
			}
		}
	})
}

func TestJournalClockLineFormat(t *testing.T) {
	t.Parallel()
	c := Clock{Generation: 7, Elapsed: 601*time.Second + 250*time.Millisecond, CPU: 1190*time.Second + 3*time.Millisecond}
	line := string(appendClockLine(nil, c))
	want := `{"v":2,"gen":7,"elapsed_ms":601250,"cpu_ms":1190003,"crc":"`
	if !strings.HasPrefix(line, want) || !strings.HasSuffix(line, "\"}\n") || len(line) != len(want)+8+3 {
		t.Fatalf("line %q, want %q + crc", line, want)
	}
	_, got, bad := decodeLine([]byte(line[:len(line)-1]))
	if bad != nil || got == nil || *got != c {
		t.Fatalf("decodeLine: %+v, %v", got, bad)
	}
	// Edited and signed again, a clock line is still refused unless its
	// bytes are the writer's.
	for _, edit := range [][2]string{
		{`"gen":7`, `"gen": 7`},
		{`"cpu_ms":1190003`, `"cpu_ms":1.190003e6`},
		{`,"cpu_ms":1190003`, ``},
		{`"v":2,`, `"v":2,"extra":0,`},
		{`"elapsed_ms":601250`, `"elapsed_ms":601250,"elapsed_ms":601250`},
	} {
		edited := []byte(strings.Replace(line, edit[0], edit[1], 1))
		edited = resignLine(edited)
		if _, k, bad := decodeLine(edited[:len(edited)-1]); bad == nil {
			t.Errorf("edit %q accepted: %+v", edit, k)
		}
	}
}

// TestJournalClocks: clock lines between games come back in order, apart
// from the games, and survive a torn line after them; Reset drops them.
func TestJournalClocks(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), JournalName)
	j := openJournal(t, path, time.Hour)
	clocks := []Clock{{Generation: 2, Elapsed: time.Second}, {Generation: 2, Elapsed: 2 * time.Second, CPU: 3 * time.Second}}
	j.Append(entry(0))
	j.AppendClock(clocks[0])
	j.Append(entry(1))
	j.AppendClock(clocks[1])
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	write(t, path, append(data, `{"v":2,"gen":2,"elap`...)) // a clock line torn by a kill
	c, err := ReadJournalContents(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Entries, []Entry{entry(0), entry(1)}) || !slices.Equal(c.Clocks, clocks) || len(c.Skipped) != 1 {
		t.Fatalf("entries %v, clocks %v, skipped %v", c.Entries, c.Clocks, c.Skipped)
	}
	wantErr(t, c.Skipped[0], ErrCorrupt, path+":5: incomplete line")
	if got, _ := readJournal(t, path); !slices.Equal(got, c.Entries) {
		t.Errorf("ReadJournal: %v", got)
	}

	j = openJournal(t, path, time.Hour)
	defer j.Close()
	if err := j.Reset(entry(2)); err != nil {
		t.Fatal(err)
	}
	if c, _ := ReadJournalContents(path); len(c.Clocks) != 0 || len(c.Entries) != 1 {
		t.Errorf("after Reset: %+v", c)
	}
}
