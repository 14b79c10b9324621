package tuner

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
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
// once; Resume refuses it, finished run or not, and writes nothing. A
// longer one continues the run.
func TestResumeRefusesSpentDuration(t *testing.T) {
	for _, finished := range []bool{true, false} {
		dir := filepath.Join(t.TempDir(), "run")
		ctx, cancel := context.WithCancel(context.Background())
		ev := Events{Generation: func(rec Record) {
			if !finished && rec.Generation == 2 {
				cancel()
			}
		}}
		r, err := Create(smallConfig(t), dir, Options{Events: ev})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
		r.Close()
		cancel()
		wantGen := 5
		if !finished {
			wantGen = 2
		}
		before := dirFiles(t, dir)
		var spent time.Duration
		for _, d := range []time.Duration{time.Nanosecond, 0} {
			if d == 0 {
				d = spent // the boundary: exactly what was spent
			}
			_, err := Resume(dir, ResumeOverrides{Duration: &d}, Options{})
			var se *SpentError
			if !errors.As(err, &se) {
				t.Fatalf("finished %v, duration %v: error %v, want a SpentError", finished, d, err)
			}
			if se.Finished != finished || se.Generation != wantGen || se.Duration != d || se.Spent <= 0 || spent != 0 && se.Spent != spent {
				t.Errorf("finished %v, duration %v: %+v, want generation %d", finished, d, se, wantGen)
			}
			spent = se.Spent
			if after := dirFiles(t, dir); !maps.Equal(after, before) {
				t.Errorf("finished %v, duration %v: the refused resume changed the run directory", finished, d)
			}
		}
		more := spent + time.Hour
		r, err = Resume(dir, ResumeOverrides{Duration: &more}, Options{})
		if err != nil {
			t.Fatalf("finished %v: resume with %v more: %v", finished, time.Hour, err)
		}
		r.Close()
	}
}
