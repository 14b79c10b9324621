package tuner

import (
	"context"
	"slices"

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

// validateStart measures the starting weights of the run (init) on the
// validation games, with the current validation search, and records them
// as the start: the figure every recommendation is compared with.
func (t *Tuner) validateStart(ctx context.Context) error {
	t.announce(Phase{Kind: PhaseStart, Generation: t.state.Generation, Games: t.cfg.Validation.Games})
	v, err := t.measure(ctx, t.init)
	if err != nil {
		return err
	}
	v.Generation = 0
	t.state.Start = v
	if t.events.Validation != nil {
		t.events.Validation(v, true)
	}
	return nil
}

// conclude ends the current stage after done completed generations: its
// final race (race.go), and the winner measured on the validation games,
// the recommended weights. It is the one place a recommendation enters
// the state.
func (t *Tuner) conclude(ctx context.Context, done int) (*Validation, error) {
	w, race, err := t.race(ctx, done)
	if err != nil {
		return nil, err
	}
	if known := t.measured(w.Weights); known != nil {
		// The stage's start won, already measured on these games with
		// this search: the figure is the same, and costs nothing.
		v := *known
		v.Generation, v.Race, v.Stage, v.Average, v.Model = w.Generation, race, t.state.Stage, w.average, w.model
		t.state.Validated = &v
		if t.events.Validation != nil {
			t.events.Validation(&v, false)
		}
		return &v, nil
	}
	t.announce(Phase{Kind: PhaseWinner, Generation: done, Games: t.cfg.Validation.Games})
	v, err := t.measure(ctx, w.Weights)
	if err != nil {
		return nil, err
	}
	v.Generation, v.Race, v.Average, v.Model = w.Generation, race, w.average, w.model
	t.state.Validated = v
	if t.events.Validation != nil {
		t.events.Validation(v, false)
	}
	return v, nil
}

// measured returns a validation of the weights w with the current
// validation search, if the state holds one: the start's, or the winner's
// that began the stage.
func (t *Tuner) measured(w []float64) *Validation {
	for _, v := range []*Validation{t.state.Start, t.state.Validated} {
		if v != nil && slices.Equal(v.Weights, w) && t.cfg.StageValidationSearch(v.Stage) == t.valSearch {
			return v
		}
	}
	return nil
}

// ValidateStart measures the starting weights once per run, before the first
// generation, on the validation seeds: the figure the tuned weights are
// compared with. The first generation's first batch plays beside it (see
// ahead.go).
func (t *Tuner) ValidateStart(ctx context.Context) error {
	if t.state.Start != nil {
		return nil
	}
	if t.StopReason(0) == "" {
		t.playAhead(ctx)
	}
	if err := t.validateStart(ctx); err != nil {
		t.dropAhead()
		return err
	}
	return t.awaitAhead(ctx)
}

// Recommended returns the recommended weights, validated: the winner of
// the latest final race (of the run, or of a stage), or the starting
// weights before any.
func (t *Tuner) Recommended() *Validation { return t.state.Recommended() }

// Recommended returns the recommended weights of a run in state s (see
// Tuner.Recommended).
func (s State) Recommended() *Validation {
	if s.Validated != nil {
		return s.Validated
	}
	return s.Start
}

// Recommendation returns the weights the run would hand over if it ended
// now, before any game of its end is played: once the run has finished,
// the recommended weights; before, the average of its stage's last means,
// the entrant of the race that would end it that the race's games test
// against the start (nil before the start's validation).
func (t *Tuner) Recommendation() []float64 {
	if t.state.Finished != "" || t.state.Start == nil {
		if v := t.Recommended(); v != nil {
			return slices.Clone(v.Weights)
		}
		return nil
	}
	return t.average()
}
