package checkpoints

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"strconv"
	"time"
)

// A Clock is a run's clock when its line was written: the wall-clock and
// CPU time the run had spent, every process that ran it counted. The
// history records the clock only when a generation ends; a run journals
// one twice a second besides, so that a process stopped in any way,
// kill -9 included, takes at most that much from the count.
type Clock struct {
	// Generation is the generation in progress (completed generations
	// before it), as an Entry's.
	Generation int
	// Elapsed and CPU are kept to the millisecond; CPU is 0 where the
	// system has no CPU clock.
	Elapsed, CPU time.Duration
}

// JournalContents is what a journal holds.
type JournalContents struct {
	Entries []Entry // the games, in file order
	Clocks  []Clock // the run's clock lines, in file order
	// Skipped are the lines left out (see ReadJournal).
	Skipped []error
}

// ReadJournal returns the entries of the journal at path, in file order. A
// line that is torn (a crash mid-write), corrupt or of an unknown version
// is left out and reported in skipped as an error naming the file and line
// and wrapping ErrCorrupt or ErrVersion. A missing file is an empty journal.
// The same game may appear twice (a game replayed after a crash that lost
// its flush only partly); entries of a game are identical. Clock lines are
// left out: ReadJournalContents returns them.
func ReadJournal(path string) (entries []Entry, skipped []error, err error) {
	c, err := ReadJournalContents(path)
	return c.Entries, c.Skipped, err
}

// ReadJournalContents is ReadJournal with the journal's clock lines.
func ReadJournalContents(path string) (JournalContents, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return JournalContents{}, nil
	} else if err != nil {
		return JournalContents{}, err
	}
	return parseJournal(path, data), nil
}

// parseJournal decodes the lines of data, the contents of the file path.
func parseJournal(path string, data []byte) (c JournalContents) {
	for n := 1; len(data) > 0; n++ {
		line, rest, _ := bytes.Cut(data, []byte{'\n'})
		data = rest
		if len(line) == 0 {
			continue
		}
		e, clock, bad := decodeLine(line)
		switch {
		case bad != nil:
			c.Skipped = append(c.Skipped, &kindError{bad.kind, fmt.Sprintf("%s:%d: %s", path, n, bad.detail)})
		case clock != nil:
			c.Clocks = append(c.Clocks, *clock)
		default:
			c.Entries = append(c.Entries, e)
		}
	}
	return c
}

// Journal line formats. Every line is valid JSON, one line, ending in the
// CRC-32C of its bytes before `,"crc"`:
//
//	{"v":1,"gen":G,"fp":"0x%016x","seed":S,"score":N,"max_tile":N,"moves":N,"final":"0x%016x","crc":"%08x"}
//	{"v":2,"gen":G,"elapsed_ms":N,"cpu_ms":N,"crc":"%08x"}
//
// The first is a game (format v1); the second, added in v2, the run's
// clock. A game's line did not change with v2, so a journal of an older
// build reads as it did, and an older build reading a newer journal keeps
// every game and reports the clock lines as of a newer format. Readers
// accept only the exact bytes the writer produces for the decoded line.
const (
	linePrefix  = `{"v":1,`
	clockPrefix = `{"v":2,`
	// lineVersion is the newest line format this build reads.
	lineVersion = 2
	crcKey      = `,"crc":"`
	crcSuffix   = len(crcKey) + 8 + len(`"}`)
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
	return endLine(b, start)
}

// appendClockLine appends the journal line of c, newline included.
func appendClockLine(b []byte, c Clock) []byte {
	start := len(b)
	b = append(b, clockPrefix...)
	b = append(b, `"gen":`...)
	b = strconv.AppendInt(b, int64(c.Generation), 10)
	b = append(b, `,"elapsed_ms":`...)
	b = strconv.AppendInt(b, c.Elapsed.Milliseconds(), 10)
	b = append(b, `,"cpu_ms":`...)
	b = strconv.AppendInt(b, c.CPU.Milliseconds(), 10)
	return endLine(b, start)
}

// endLine appends the checksum of the line begun at b[start:] and the
// line's end.
func endLine(b []byte, start int) []byte {
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

// lineJSON is a game's line as encoding/json sees it.
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

// clockJSON is a clock line as encoding/json sees it.
type clockJSON struct {
	V         int    `json:"v"`
	Gen       int    `json:"gen"`
	ElapsedMS int64  `json:"elapsed_ms"`
	CPUMS     int64  `json:"cpu_ms"`
	CRC       string `json:"crc"`
}

// decodeLine decodes one journal line without its newline: a game, or
// with clock not nil the run's clock.
func decodeLine(line []byte) (e Entry, clock *Clock, bad *problem) {
	n := len(line)
	if n < len(linePrefix)+crcSuffix || string(line[n-crcSuffix:n-crcSuffix+len(crcKey)]) != crcKey || line[n-2] != '"' || line[n-1] != '}' {
		if start := []byte(`{"v":`); bytes.HasPrefix(line, start) || bytes.HasPrefix(start, line) {
			return Entry{}, nil, corrupt("incomplete line (torn write?)")
		}
		return Entry{}, nil, corrupt("not a journal line")
	}
	want, err := strconv.ParseUint(string(line[n-10:n-2]), 16, 32)
	if err != nil {
		return Entry{}, nil, corrupt("malformed checksum")
	}
	if crc32.Checksum(line[:n-crcSuffix], castagnoli) != uint32(want) {
		return Entry{}, nil, corrupt("checksum mismatch")
	}
	switch {
	case bytes.HasPrefix(line, []byte(linePrefix)):
		e, bad := decodeGame(line)
		return e, nil, bad
	case bytes.HasPrefix(line, []byte(clockPrefix)):
		c, bad := decodeClock(line)
		return Entry{}, c, bad
	}
	var v struct {
		V int `json:"v"`
	}
	if json.Unmarshal(line, &v) == nil && v.V > lineVersion {
		return Entry{}, nil, &problem{ErrVersion, fmt.Sprintf("journal line format v%d, newer than this build's v%d", v.V, lineVersion)}
	}
	return Entry{}, nil, corrupt("not a journal line")
}

// decodeGame decodes a game's line whose checksum holds.
func decodeGame(line []byte) (Entry, *problem) {
	var j lineJSON
	if err := strictJSON(line, &j); err != nil {
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

// decodeClock decodes a clock line whose checksum holds.
func decodeClock(line []byte) (*Clock, *problem) {
	var j clockJSON
	if err := strictJSON(line, &j); err != nil {
		return nil, corrupt("malformed clock line: %v", err)
	}
	// Milliseconds past what a Duration holds would wrap: the canonical
	// bytes then differ, and the line is refused.
	c := &Clock{Generation: j.Gen, Elapsed: time.Duration(j.ElapsedMS) * time.Millisecond, CPU: time.Duration(j.CPUMS) * time.Millisecond}
	if canon := appendClockLine(nil, *c); !bytes.Equal(canon[:len(canon)-1], line) {
		return nil, corrupt("malformed clock line")
	}
	return c, nil
}

// strictJSON decodes a line into v, refusing keys v does not have.
func strictJSON(line []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func parseHex64(s string) (uint64, bool) {
	if len(s) != 18 || s[:2] != "0x" {
		return 0, false
	}
	v, err := strconv.ParseUint(s[2:], 16, 64)
	return v, err == nil
}
