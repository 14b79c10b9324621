package playerpool

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// A logFile is where a slot's players write their standard error, and
// where their comments go. It is opened for appending, so a player's own
// writes (straight to the file, no copying goroutine) and the comments
// evotune adds interleave by line rather than overwrite each other.
type logFile struct {
	path string
	f    *os.File
	temp bool // a temporary file: Close removes it
	mu   sync.Mutex
}

// openLog opens path for appending, creating it; an empty path makes a
// temporary file.
func openLog(path string) (*logFile, error) {
	if path == "" {
		f, err := os.CreateTemp("", "evotune-player-*.log")
		if err != nil {
			return nil, fmt.Errorf("playerpool: log: %w", err)
		}
		return &logFile{path: f.Name(), f: f, temp: true}, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("playerpool: log: %w", err)
	}
	return &logFile{path: path, f: f}, nil
}

// comment appends a comment line the player sent.
func (l *logFile) comment(line []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.f.Write(append(bytes.Clone(line), '\n'))
}

// tailLines and tailBytes bound what an error quotes from a log.
const (
	tailLines = 3
	tailBytes = 4096
	tailLine  = 160 // characters kept of one quoted line
)

// tail returns the log's last few non-empty lines, joined by " | " so that
// the error quoting them stays one line.
func (l *logFile) tail() string {
	f, err := os.Open(l.path)
	if err != nil {
		return ""
	}
	defer f.Close()
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return ""
	}
	off := max(size-tailBytes, 0)
	buf := make([]byte, size-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return ""
	}
	var lines []string
	for _, s := range strings.Split(strings.ReplaceAll(string(buf), "\r", ""), "\n") {
		if s = strings.TrimSpace(s); s != "" {
			if len(s) > tailLine {
				s = s[:tailLine] + "..."
			}
			lines = append(lines, s)
		}
	}
	if off > 0 && len(lines) > 0 {
		lines = lines[1:] // the first may be cut
	}
	return strings.Join(lines[max(len(lines)-tailLines, 0):], " | ")
}

// Close closes the file and removes a temporary one.
func (l *logFile) Close() error {
	err := l.f.Close()
	if l.temp {
		os.Remove(l.path)
	}
	return err
}
