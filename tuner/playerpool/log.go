package playerpool

import (
	"fmt"
	"os"
	"sync"
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
// where their comments go: each process's part (a proctree.Log within
// MaxProcessLog) follows a line that marks where the process starts. The
// file is truncated when opened, so a log holds the players of one pool
// (one run) only.
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

// Write is a process's part of the log, from its proctree.Log.
func (l *logFile) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writeLocked(b)
	return len(b), nil
}

// begin marks where the process pid starts in the log, before anything of
// its own.
func (l *logFile) begin(pid int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.size > maxSlotLog {
		l.f.Truncate(0)
		l.size = 0
		l.writeLocked([]byte("[evotune: the output of earlier processes was dropped: a log keeps 4 MiB]\n"))
	}
	l.procs++
	l.writeLocked(fmt.Appendf(nil, "[evotune: player process %d, pid %d, starts here]\n", l.procs, pid))
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
