package tuner

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// The resume tests interrupt runs in process: cancelling the run's context
// after a counted number of finished games lands the interruption at a
// reproducible point (mid-generation, in a validation, at a stage
// boundary), which a timer or a signal cannot. cmd/evotune's crash tests
// kill real processes at random moments instead.

// cutAfter returns events that cancel ctx once n games have finished.
func cutAfter(n int64, cancel context.CancelFunc) Events {
	var games atomic.Int64
	return Events{Game: func(bool) {
		if games.Add(1) == n {
			cancel()
		}
	}}
}

// interrupt runs the run in dir, created from cfg or, with cfg nil,
// resumed, and cancels it once n games have finished; the run must stop
// with the cancellation. opts.Events is replaced by the counter.
func interrupt(t *testing.T, dir string, cfg *Config, n int64, opts Options) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts.Events = cutAfter(n, cancel)
	var r *Run
	var err error
	if cfg != nil {
		r, err = Create(cfg, dir, opts)
	} else {
		r, err = Resume(dir, ResumeOverrides{}, opts)
	}
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Run(ctx)
	r.Close()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("%s: cut after %d games: err = %v, want cancellation", dir, n, err)
	}
}

// runUntil creates a run of cfg in dir and runs it until generation g has
// completed and been saved, or with g 0 to its end; also, if not nil, sees
// every record first. It returns the tuner as the run left it.
func runUntil(t *testing.T, dir string, cfg *Config, g int, also func(Record)) *Tuner {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := Create(cfg, dir, Options{Events: Events{Generation: func(rec Record) {
		if also != nil {
			also(rec)
		}
		if rec.Generation == g {
			cancel()
		}
	}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Run(ctx)
	r.Close()
	if g > 0 && !errors.Is(err, context.Canceled) || g == 0 && err != nil {
		t.Fatalf("%s: run until generation %d: err = %v", dir, g, err)
	}
	return r.t
}

// resumeAfterCuts creates a run of cfg in a new directory, interrupts it
// after cuts[0] finished games, resumes and interrupts it after cuts[1]
// more, and so on, then resumes it to the end and returns what it wrote,
// which must be the uninterrupted run's bytes. opts, if not nil, gives each
// start its options (a fresh pool, say), last telling the final resume.
func resumeAfterCuts(t *testing.T, cfg *Config, cuts []int64, opts func(last bool) Options) runFiles {
	t.Helper()
	if opts == nil {
		opts = func(bool) Options { return Options{} }
	}
	dir := filepath.Join(t.TempDir(), "cut")
	for i, n := range cuts {
		if i == 0 {
			interrupt(t, dir, cfg, n, opts(false))
		} else {
			interrupt(t, dir, nil, n, opts(false))
		}
	}
	r, err := Resume(dir, ResumeOverrides{}, opts(true))
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, r)
	return readRun(t, dir)
}
