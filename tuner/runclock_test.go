package tuner

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/evotune/evotune/engine"
)

// slowPool plays each batch after a delay, so that a generation of a tiny
// config takes a known while.
type slowPool struct {
	p     Pool
	delay time.Duration
}

func (s slowPool) Shared() bool { return true }

func (s slowPool) Play(ctx context.Context, b *Batch, results [][]engine.Result, done GameDone) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(s.delay):
	}
	return s.p.Play(ctx, b, results, done)
}

// copyDir copies the files of a run directory as they are now: what a
// kill -9 at this moment would leave (a line torn by the copy is one a kill
// could tear too).
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // a temp file renamed meanwhile
		}
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestClockSurvivesStop stops a run in its first generation, before any
// checkpoint but generation 0's, once by cancellation (Ctrl-C) and once as
// a kill -9 leaves it (its files copied while it runs): the resumed run's
// clock counts the stopped process's time, to within clockEvery for the
// kill, its first history line too, and a --duration of less than that
// time is refused as spent.
func TestClockSurvivesStop(t *testing.T) {
	cfg := smallConfig(t)
	cfg.Generations = 2
	dir := filepath.Join(t.TempDir(), "run")
	killed := filepath.Join(t.TempDir(), "killed")
	const slack = 250 * time.Millisecond // a process's moments before and after its clock, under -race

	began := time.Now()
	r, err := Create(cfg, dir, Options{Pool: slowPool{NewLocalPool(2), time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() {
		_, err := r.Run(ctx)
		ran <- err
	}()
	time.Sleep(1500 * time.Millisecond) // the start's validation is over, generation 1 plays
	copyDir(t, dir, killed)
	copied := time.Since(began)
	cancel()
	if err := <-ran; !errors.Is(err, context.Canceled) {
		t.Fatalf("run: %v, want cancellation", err)
	}
	r.Close()
	stopped := time.Since(began)
	if h, _ := os.ReadFile(filepath.Join(dir, HistoryFile)); len(h) > 0 {
		t.Fatalf("a generation ended before the stop; the test wants the stop in the first: %s", h)
	}

	for _, tc := range []struct {
		name      string
		dir       string
		spent     time.Duration // the stopped process's time
		tolerance time.Duration // what the stop may take from the count
	}{
		{"interrupted", dir, stopped, slack},
		{"killed", killed, copied, clockEvery + slack},
	} {
		short := tc.spent - tc.tolerance - 100*time.Millisecond
		if r, err := Resume(tc.dir, ResumeOverrides{Duration: &short}, Options{}); !errors.As(err, new(*SpentError)) {
			t.Errorf("%s: resume with --duration %v after %v spent: %v, want it refused as spent", tc.name, short, tc.spent, err)
			if err == nil {
				r.Close()
			}
		}
		r, err := Resume(tc.dir, ResumeOverrides{}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := r.elapsed0
		if got > tc.spent || got < tc.spent-tc.tolerance {
			t.Errorf("%s: the resumed run starts its clock at %v; the stopped process spent %v (want at most %v less)", tc.name, got, tc.spent, tc.tolerance)
		}
		if cpu, ok := r.CPU(); ok && cpu <= 0 {
			t.Errorf("%s: CPU %v after a process that spent some", tc.name, cpu)
		}
		var first Record
		r.onGen = func(rec Record) {
			if rec.Generation == 1 {
				first = rec
			}
		}
		runToEnd(t, r)
		if e := elapsedOf(first.Elapsed); e < got {
			t.Errorf("%s: generation 1's elapsed_s %v, below the %v spent before the resume", tc.name, e, got)
		}
		t.Logf("%s: %v spent, %v counted; generation 1 ends at %.3f s", tc.name, tc.spent.Round(time.Millisecond), got.Round(time.Millisecond), first.Elapsed)
	}
}
