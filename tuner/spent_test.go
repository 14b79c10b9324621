package tuner

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// dirFiles returns every file under dir with its bytes.
func dirFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		files[path] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestResumeRefusesSpentDuration: the duration counts the time a run has
// already spent, so a duration of no more than that would stop the run at
// once; Resume refuses it, for a run its duration ended and for an
// interrupted one, and writes nothing (not even the history line past the
// checkpoint a resume drops). A longer one plays on. A run its generation
// limit ended is not refused: nothing would reopen it.
func TestResumeRefusesSpentDuration(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cut     int  // interrupt after this generation; 0: run to its end
		refused bool // a spent duration is refused
		gen     int  // generations done before the resume
	}{
		{"ended by its duration", 0, true, 1},
		{"interrupted", 2, true, 2},
		{"ended by its generations", 0, false, 5},
	} {
		cfg := smallConfig(t)
		byDuration := tc.refused && tc.cut == 0
		if byDuration {
			// Ends after its first generation, which outlasts the budget.
			cfg.Duration = Duration(time.Second)
		}
		dir := filepath.Join(t.TempDir(), "run")
		tu := runUntil(t, dir, cfg, tc.cut, func(rec Record) {
			if byDuration && rec.Generation == 1 {
				time.Sleep(1100 * time.Millisecond)
			}
		})
		if got := tu.state.Generation; got != tc.gen || byDuration && !strings.HasPrefix(tu.state.Finished, "duration") {
			t.Fatalf("%s: %d generations done, stop %q: want %d", tc.name, got, tu.state.Finished, tc.gen)
		}
		// A line the checkpoint does not cover, which a resume drops.
		h, err := os.OpenFile(filepath.Join(dir, HistoryFile), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.WriteString(`{"generation":99,"elapsed_s":1}` + "\n"); err != nil {
			t.Fatal(err)
		}
		h.Close()
		before := dirFiles(t, dir)
		if !tc.refused {
			d := time.Nanosecond
			r, err := Resume(dir, ResumeOverrides{Duration: &d}, Options{})
			if err != nil {
				t.Fatalf("%s: %v, want the run as it is", tc.name, err)
			}
			if r.t.state.Finished == "" {
				t.Errorf("%s: a resume with a spent duration reopened it", tc.name)
			}
			r.Close()
			continue
		}
		var spent time.Duration
		for _, d := range []time.Duration{time.Nanosecond, 0} {
			if d == 0 {
				d = spent // the boundary: exactly what was spent
			}
			_, err := Resume(dir, ResumeOverrides{Duration: &d}, Options{})
			var se *SpentError
			if !errors.As(err, &se) {
				t.Fatalf("%s, duration %v: error %v, want a SpentError", tc.name, d, err)
			}
			if se.Finished != (tc.cut == 0) || se.Generation != tc.gen || se.Duration != d || se.Spent <= 0 || spent != 0 && se.Spent != spent {
				t.Errorf("%s, duration %v: %+v", tc.name, d, se)
			}
			spent = se.Spent
			if after := dirFiles(t, dir); !maps.Equal(after, before) {
				t.Errorf("%s, duration %v: the refused resume changed the run directory", tc.name, d)
			}
		}
		more := spent + time.Hour
		r, err := Resume(dir, ResumeOverrides{Duration: &more}, Options{})
		if err != nil {
			t.Fatalf("%s: resume with an hour more: %v", tc.name, err)
		}
		runToEnd(t, r)
		if got := r.t.state.Generation; got != 5 {
			t.Errorf("%s: resumed with an hour more, %d generations done, want the limit's 5", tc.name, got)
		}
	}
}
