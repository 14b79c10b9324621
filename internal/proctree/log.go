package proctree

import (
	"io"
	"strings"
	"sync"
)

// A Log passes what a process writes on its standard error, and lines its
// owner adds, on to a writer within a budget, and keeps the end of what it
// passed on for Tail. Past the budget it writes its marker once and drops
// the rest. Its methods are safe from any goroutine.
type Log struct {
	mu     sync.Mutex
	dst    io.Writer
	limit  int64
	marker string
	n      int64 // bytes passed on, the marker not counted
	full   bool  // the budget is spent
	passed int64 // bytes passed on, the marker counted
	end    []byte
}

// NewLog returns a Log passing at most limit bytes on to dst, then
// marker.
func NewLog(dst io.Writer, limit int64, marker string) *Log {
	return &Log{dst: dst, limit: limit, marker: marker}
}

// The bounds of Tail.
const (
	tailLines = 3
	tailBytes = 4096 // the end of a log that Tail looks at
	tailLine  = 160  // characters kept of one quoted line
)

// Write passes b on within the budget. It never fails: what the budget
// leaves out is dropped, and a writer's error is the writer's business.
func (l *Log) Write(b []byte) (int, error) {
	l.write(b, nil)
	return len(b), nil
}

var newline = []byte{'\n'}

// WriteLine passes b and a newline on within the budget, in one piece.
func (l *Log) WriteLine(b []byte) { l.write(b, newline) }

func (l *Log) write(b, end []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, b := range [2][]byte{b, end} {
		if l.full || len(b) == 0 {
			continue
		}
		if room := l.limit - l.n; int64(len(b)) > room {
			l.pass(b[:room])
			l.pass([]byte(l.marker))
			l.n, l.full = l.limit, true
			continue
		}
		l.pass(b)
		l.n += int64(len(b))
	}
}

// pass writes b to dst and keeps the end of what was written; l.mu held.
func (l *Log) pass(b []byte) {
	if len(b) == 0 {
		return
	}
	l.dst.Write(b)
	l.passed += int64(len(b))
	if len(b) >= tailBytes {
		l.end = append(l.end[:0], b[len(b)-tailBytes:]...)
		return
	}
	// Let end grow to twice what Tail reads before dropping its head, so
	// that keeping it costs a copy per tailBytes written, not per write.
	if len(l.end)+len(b) > 2*tailBytes {
		l.end = append(l.end[:0], l.end[len(l.end)+len(b)-tailBytes:]...)
	}
	l.end = append(l.end, b...)
}

// Tail returns the last few non-empty lines of what the log passed on
// (the marker included), joined by " | " so that an error quoting them
// stays one line; "" when it passed nothing on. It looks at the last 4 KiB
// at most, keeps the last 3 lines, and cuts each to 160 characters; a line
// cut at the start of those 4 KiB is dropped, unless it is all there is,
// then shown by its end after "...".
func (l *Log) Tail() string {
	l.mu.Lock()
	buf := l.end[max(len(l.end)-tailBytes, 0):]
	s := string(buf)
	cut := l.passed > int64(len(buf))
	l.mu.Unlock()
	var lines []string
	for _, s := range strings.Split(strings.ReplaceAll(s, "\r", ""), "\n") {
		if s = strings.TrimSpace(s); s != "" {
			lines = append(lines, s)
		}
	}
	if cut && len(lines) > 0 {
		if len(lines) > 1 {
			lines = lines[1:]
		} else if s := lines[0]; len(s) > tailLine {
			lines[0] = "..." + s[len(s)-tailLine:]
		} else {
			lines[0] = "..." + s
		}
	}
	lines = lines[max(len(lines)-tailLines, 0):]
	for i, s := range lines {
		if len(s) > tailLine && !strings.HasPrefix(s, "...") {
			lines[i] = s[:tailLine] + "..."
		}
	}
	return strings.Join(lines, " | ")
}
