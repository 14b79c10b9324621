package playerpool

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// The log's budgets: a player flooding its standard error costs evotune a
// bounded file and the CPU of draining the pipe, nothing more.
const (
	// MaxProcessLog is what one player process may write to its log,
	// standard error and comments together, in bytes. Past it a one-line
	// marker ends the process's part and the rest of its output is read
	// and discarded.
	MaxProcessLog = 1 << 20
	// maxSlotLog: a process that starts on a log holding more than this
	// starts it afresh, so a slot's log stays under maxSlotLog plus one
	// process's budget however often its player is restarted.
	maxSlotLog = 4 << 20
)

// truncatedMarker ends a process's part of the log once it spent its
// budget.
var truncatedMarker = fmt.Sprintf("\n[evotune: this process wrote %d MiB to its log; the rest of its output is discarded]\n", MaxProcessLog>>20)

// A logFile is where a slot's players write their standard error, and
// where their comments go: each process's output is copied in by a
// goroutine of ours, within MaxProcessLog, after a line that marks where
// the process starts. The file is truncated when opened, so a log holds
// the players of one pool (one run) only.
type logFile struct {
	path  string
	f     *os.File
	temp  bool // a temporary file: Close removes it
	mu    sync.Mutex
	size  int64 // bytes written since it was opened (or started afresh)
	procs int   // processes started on it
}

// openLog creates or truncates path; an empty path makes a temporary file.
func openLog(path string) (*logFile, error) {
	if path == "" {
		f, err := os.CreateTemp("", "evotune-player-*.log")
		if err != nil {
			return nil, fmt.Errorf("playerpool: log: %w", err)
		}
		return &logFile{path: f.Name(), f: f, temp: true}, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("playerpool: log: %w", err)
	}
	return &logFile{path: path, f: f}, nil
}

// writeLocked writes b at the end of the file; l.mu is held.
func (l *logFile) writeLocked(b []byte) {
	n, _ := l.f.Write(b)
	l.size += int64(n)
}

// A procLog is one process's part of a log.
type procLog struct {
	l     *logFile
	start int64 // offset of its first byte in the file
	n     int64 // bytes it wrote, its marker not counted
	full  bool  // it spent its budget
	src   *os.File
	done  chan struct{} // closed when the copy of its standard error ended
}

// begin marks where the process pid starts in the log and copies stderr,
// the read end of its standard error, into it.
func (l *logFile) begin(pid int, stderr *os.File) *procLog {
	l.mu.Lock()
	if l.size > maxSlotLog {
		l.f.Truncate(0)
		l.size = 0
		l.writeLocked([]byte("[evotune: the output of earlier processes was dropped: a log keeps 4 MiB]\n"))
	}
	l.procs++
	l.writeLocked(fmt.Appendf(nil, "[evotune: player process %d, pid %d, starts here]\n", l.procs, pid))
	pl := &procLog{l: l, start: l.size, src: stderr, done: make(chan struct{})}
	l.mu.Unlock()
	go pl.copy()
	return pl
}

// copy copies the process's standard error to the log until the pipe
// closes: when every process holding it ended, or release closed it.
func (pl *procLog) copy() {
	defer close(pl.done)
	buf := make([]byte, 32<<10)
	for {
		n, err := pl.src.Read(buf)
		if n > 0 {
			pl.write(buf[:n], nil)
		}
		if err != nil {
			return
		}
	}
}

// write appends b and then end to the log, within the process's budget.
func (pl *procLog) write(b, end []byte) {
	l := pl.l
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, b := range [2][]byte{b, end} {
		if pl.full || len(b) == 0 {
			continue
		}
		if room := MaxProcessLog - pl.n; int64(len(b)) > room {
			l.writeLocked(b[:room])
			l.writeLocked([]byte(truncatedMarker))
			pl.n, pl.full = MaxProcessLog, true
			continue
		}
		l.writeLocked(b)
		pl.n += int64(len(b))
	}
}

var newline = []byte{'\n'}

// comment appends a comment line the player sent.
func (pl *procLog) comment(line []byte) { pl.write(line, newline) }

// drained waits, at most wait, for the copy of the standard error to end:
// after the process exited, so that an error quotes its last words. A
// process it started may hold the pipe open longer.
func (pl *procLog) drained(wait time.Duration) {
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-pl.done:
	case <-t.C:
	}
}

// release closes the pipe once the copy ended, or after wait, so that a
// process outside the killed group cannot keep a goroutine of ours.
func (pl *procLog) release(wait time.Duration) {
	go func() {
		pl.drained(wait)
		pl.src.Close()
	}()
}

// tailLines and tailBytes bound what an error quotes from a log.
const (
	tailLines = 3
	tailBytes = 4096
	tailLine  = 160 // characters kept of one quoted line
)

// tail returns the last few non-empty lines of the process's part of the
// log, joined by " | " so that the error quoting them stays one line.
func (pl *procLog) tail() string {
	l := pl.l
	l.mu.Lock()
	start, end := pl.start, l.size
	l.mu.Unlock()
	if end <= start { // nothing, or the log started afresh since
		return ""
	}
	f, err := os.Open(l.path)
	if err != nil {
		return ""
	}
	defer f.Close()
	off := max(end-tailBytes, start)
	buf := make([]byte, end-off)
	if n, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return ""
	} else {
		buf = buf[:n]
	}
	var lines []string
	for _, s := range strings.Split(strings.ReplaceAll(string(buf), "\r", ""), "\n") {
		if s = strings.TrimSpace(s); s != "" {
			lines = append(lines, s)
		}
	}
	if off > start && len(lines) > 0 {
		// The first line is cut: drop it, unless it is all there is (no
		// newline in the last tailBytes), then keep its end.
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

// Close closes the file and removes a temporary one.
func (l *logFile) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.f.Close()
	if l.temp {
		os.Remove(l.path)
	}
	return err
}
