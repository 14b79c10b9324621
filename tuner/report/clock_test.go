package report

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/evotune/evotune/checkpoints"
)

// TestClockFromJournal: a run stopped in the middle of a generation has
// spent more than its history's last line says; the page shows the
// journal's later clock, and ignores one of a generation the checkpoint
// already covers.
func TestClockFromJournal(t *testing.T) {
	dir := realRun(t, smallYAML, 2)
	path := filepath.Join(dir, checkpoints.JournalName)
	for _, tc := range []struct {
		gen   int
		shown bool
	}{
		{2, true},
		{1, false}, // before the checkpoint: the history's figure stands
	} {
		j, err := checkpoints.OpenJournal(path, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if err := j.Reset(); err != nil {
			t.Fatal(err)
		}
		j.AppendClock(checkpoints.Clock{Generation: tc.gen, Elapsed: time.Hour, CPU: 2 * time.Hour})
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := r.WriteHTML(&buf); err != nil {
			t.Fatal(err)
		}
		hasWall := bytes.Contains(buf.Bytes(), []byte("<th>wall time</th><td>1h0m0s</td>"))
		hasCPU := bytes.Contains(buf.Bytes(), []byte("<th>CPU time</th><td>2h0m0s (2.00 cores on average)</td>"))
		if hasWall != tc.shown || hasCPU != tc.shown {
			t.Errorf("journal clock of generation %d (checkpoint %d): wall shown %v, CPU shown %v, want %v", tc.gen, r.State.Generation, hasWall, hasCPU, tc.shown)
		}
		if !bytes.Contains(buf.Bytes(), []byte("<th>wall time</th>")) {
			t.Errorf("no wall time on the page")
		}
	}
}
