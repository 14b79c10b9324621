package tuner

// The run's history file, history.jsonl: what a resumed run recovers from
// it and how a generation's line is appended.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// readHistory reads history.jsonl, of which the checkpoint covers the
// first lines lines (later ones are from a generation it does not cover,
// which will be played again), and returns their length. It recovers the
// run's elapsed and CPU time, and when the current stage (1-based) began.
// It writes nothing.
func (r *Run) readHistory(lines, stage int) (end int, err error) {
	path := filepath.Join(r.dir, HistoryFile)
	data, err := r.fsys.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("tuner: %s: %w", path, err)
	}
	end, n := covered(data, lines)
	if n < lines {
		r.Notices = append(r.Notices, fmt.Sprintf("%s has %d complete lines, the checkpoint covers %d; the missing ones are not rewritten", path, n, lines))
	}
	var began time.Duration
	r.elapsed0, r.cpu0, began = lastClocks(bytes.NewReader(data[:end]), stage)
	r.t.SetStageBegan(began)
	r.historyLines = lines
	return end, nil
}

// openHistory opens history.jsonl for appending after its first end
// bytes, the lines the checkpoint covers (readHistory).
func (r *Run) openHistory(end int) (err error) {
	path := filepath.Join(r.dir, HistoryFile)
	if r.history, err = r.fsys.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644); err != nil {
		return fmt.Errorf("tuner: %w", err)
	}
	if err := r.history.Truncate(int64(end)); err != nil {
		return fmt.Errorf("tuner: %s: %w", path, err)
	}
	if _, err := r.history.Seek(int64(end), io.SeekStart); err != nil {
		return fmt.Errorf("tuner: %s: %w", path, err)
	}
	return nil
}

// covered returns the length of the first lines complete lines of a
// history, those a checkpoint covers, and how many there are (fewer where
// the history is short).
func covered(data []byte, lines int) (end, n int) {
	for ; n < lines; n++ {
		i := bytes.IndexByte(data[end:], '\n')
		if i < 0 {
			break
		}
		end += i + 1
	}
	return end, n
}

// appendHistory writes rec as the history's next line and syncs it.
func (r *Run) appendHistory(rec Record) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	if _, err := r.history.Write(line); err != nil {
		return fmt.Errorf("tuner: %s: %w", r.history.Name(), err)
	}
	if err := r.history.Sync(); err != nil {
		return fmt.Errorf("tuner: %s: %w", r.history.Name(), err)
	}
	r.historyLines++
	return nil
}
