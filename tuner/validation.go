package tuner

import (
	"context"
	"slices"
	"time"

	"github.com/evotune/evotune/engine/stats"
)

// measure plays the weight vector w on the validation seeds, with the
// validation search, and returns the figures; it changes nothing but the
// game count.
func (t *Tuner) measure(ctx context.Context, w []float64) (*Validation, error) {
	seeds := make([]uint64, t.cfg.Validation.Games)
	for j := range seeds {
		seeds[j] = ValidationSeed(t.cfg.Seed, j)
	}
	rs, err := t.play(ctx, t.valSearch, [][]float64{w}, seeds)
	if err != nil {
		return nil, err
	}
	sum := stats.Summarize(rs[0])
	scores, tiles := make([]int, len(rs[0])), make([]int, len(rs[0]))
	for j, r := range rs[0] {
		scores[j], tiles[j] = r.Score, r.MaxTile
	}
	return &Validation{
		Scores:     scores,
		MaxTiles:   tiles,
		Generation: t.state.Generation,
		Weights:    slices.Clone(w),
		Fitness:    t.fitness(rs[0]),
		Mean:       sum.Mean,
		CI95:       sum.CI95,
		Median:     sum.Median,
		Games:      sum.Games,
		Stage:      t.state.Stage,
	}, nil
}

// validate measures w after generation completed generations and records
// it: as the start when start is set, else as the recommended weights. It
// is the one place a validation enters the state.
func (t *Tuner) validate(ctx context.Context, w []float64, generation int, start bool) (*Validation, error) {
	v, err := t.measure(ctx, w)
	if err != nil {
		return nil, err
	}
	v.Generation = generation
	if start {
		t.state.Start = v
	} else {
		t.state.Validated = v
		// Later wins a tie: the same figure on the same games, further
		// tuned. A figure of another validation search does not compare.
		b := t.state.Best
		if t.cfg.Validation.Recommend == RecommendBest &&
			(b == nil || t.cfg.StageValidationSearch(b.Stage) != t.valSearch || v.Fitness >= b.Fitness) {
			t.state.Best, t.state.Stale = v, 0
		} else if b != nil {
			t.state.Stale++
		}
		if t.cfg.Validation.Recommend == RecommendRace {
			if v.Race, err = t.race(ctx, v); err != nil {
				return nil, err
			}
		}
	}
	if t.events.Validation != nil {
		t.events.Validation(v, start)
	}
	return v, nil
}

// ValidateStart measures the starting weights once per run, before the first
// generation, on the validation seeds: the figure the tuned weights are
// compared with.
func (t *Tuner) ValidateStart(ctx context.Context) error {
	if t.state.Start != nil {
		return nil
	}
	if t.StopReason(0) == "" {
		// The start's games decide nothing the first generation plays.
		t.playAhead(ctx, func() time.Duration { return 0 }, 0)
	}
	if _, err := t.validate(ctx, t.init, 0, true); err != nil {
		t.dropAhead()
		return err
	}
	return t.awaitAhead(ctx)
}

// Recommended returns the recommended weights: the latest validated
// distribution mean (under validation.recommend: best, the best validated
// one; after a fallback, the mean fallen back to), or the starting
// weights before any validation.
func (t *Tuner) Recommended() *Validation { return t.state.Recommended() }

// Recommended returns the recommended weights of a run in state s (see
// Tuner.Recommended).
func (s State) Recommended() *Validation {
	switch {
	case s.Incumbent != nil:
		return s.Incumbent
	case s.Best != nil:
		return s.Best
	case s.Fallen != nil:
		return s.Fallen
	case s.Validated != nil:
		return s.Validated
	}
	return s.Start
}
