package tuner

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
)

// TestRunProgress follows a small run through its phases: the start's
// validation, each generation, the final race and the winner's validation,
// in that order, each generation's phase planning its games; the estimate
// at each generation's end is of its generation limit, not before now.
// Resumed after a stop mid-generation, the pace counts the games played,
// not those taken from the journal.
func TestRunProgress(t *testing.T) {
	cfg := smallConfig(t)
	dir := filepath.Join(t.TempDir(), "run")
	var r *Run
	var phases []Phase
	var estimates []Progress
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var games atomic.Int64
	ev := Events{
		Phase: func(p Phase) { phases = append(phases, p) },
		Generation: func(rec Record) {
			estimates = append(estimates, r.Progress())
		},
		Game: func(bool) {
			if games.Add(1) == 40 { // in generation 2
				cancel()
			}
		},
	}
	var err error
	if r, err = Create(cfg, dir, Options{Events: ev}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("run: %v, want cancellation", err)
	}
	r.Close()
	if len(phases) < 2 || phases[0].Kind != PhaseStart || phases[0].Games != cfg.Validation.Games || phases[1].Kind != PhaseGeneration || phases[1].Generation != 1 {
		t.Fatalf("phases before the stop: %+v", phases)
	}

	phases, estimates = nil, nil
	var played atomic.Int64
	ev.Game = func(replayed bool) {
		if !replayed {
			played.Add(1)
		}
	}
	if r, err = Resume(dir, ResumeOverrides{}, Options{Events: ev}); err != nil {
		t.Fatal(err)
	}
	if resumed, journalled := r.Resumed(); !resumed || journalled == 0 {
		t.Errorf("Resumed: %v, %d journalled games; want a resumed run with games in its journal", resumed, journalled)
	}
	runToEnd(t, r)
	var kinds []PhaseKind
	for _, p := range phases {
		kinds = append(kinds, p.Kind)
		if p.Kind == PhaseGeneration && p.Games != 4*cfg.Fitness.Games && !cfg.Noise.Handling {
			t.Errorf("generation %d plans %d games", p.Generation, p.Games)
		}
	}
	want := []PhaseKind{PhaseGeneration, PhaseGeneration, PhaseGeneration, PhaseGeneration, PhaseRace}
	if len(kinds) < len(want) || !slices.Equal(kinds[:len(want)], want) || len(kinds) > len(want)+1 || len(kinds) == len(want)+1 && kinds[len(want)] != PhaseWinner {
		t.Errorf("phases of the resumed run: %v, want 4 generations (2 to 5), the race and maybe the winner's validation", kinds)
	}
	for i, p := range estimates {
		e := p.Estimate
		if e.Open || e.By != "generations" || e.End < p.Elapsed {
			t.Errorf("estimate at generation %d's end: %+v (elapsed %v)", i+2, e, p.Elapsed)
		}
	}
	if p := r.Progress(); p.Played != played.Load() {
		t.Errorf("the pace counts %d games; the resumed run played %d", p.Played, played.Load())
	}
}
