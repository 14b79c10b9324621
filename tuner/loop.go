package tuner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/evotune/evotune/engine"
)

// play plays every (candidate, seed) pair on the pool and returns the
// results by candidate and game.
func (t *Tuner) play(ctx context.Context, search engine.SearchConfig, weights [][]float64, seeds []uint64) ([][]engine.Result, error) {
	results := make([][]engine.Result, len(weights))
	for c := range results {
		results[c] = make([]engine.Result, len(seeds))
	}
	if err := t.playJobs(ctx, search, weights, seeds, nil, results); err != nil {
		return nil, err
	}
	return results, nil
}

// fitness computes the metric of one candidate's games.
func (t *Tuner) fitness(rs []engine.Result) float64 {
	scores, tiles := make([]int, len(rs)), make([]int, len(rs))
	for i, r := range rs {
		scores[i], tiles[i] = r.Score, r.MaxTile
	}
	return t.metric.Value(scores, tiles)
}

// Measure plays the weight vector w on the validation seeds, with the
// validation search, and returns the figures; it changes nothing but the
// game count.
func (t *Tuner) Measure(ctx context.Context, w []float64) (*Validation, error) {
	seeds := make([]uint64, t.cfg.Validation.Games)
	for j := range seeds {
		seeds[j] = ValidationSeed(t.cfg.Seed, j)
	}
	rs, err := t.play(ctx, t.valSearch, [][]float64{w}, seeds)
	if err != nil {
		return nil, err
	}
	sum := engine.Summarize(rs[0])
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
	}, nil
}

// validate measures w after generation completed generations and records
// it: as the start when start is set, else as the recommended weights. It
// is the one place a validation enters the state.
func (t *Tuner) validate(ctx context.Context, w []float64, generation int, start bool) (*Validation, error) {
	v, err := t.Measure(ctx, w)
	if err != nil {
		return nil, err
	}
	v.Generation = generation
	if start {
		t.state.Start = v
	} else {
		t.state.Validated = v
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
	_, err := t.validate(ctx, t.base, 0, true)
	return err
}

// StopReason says why the run must not play another generation after
// elapsed wall-clock time, or "".
func (t *Tuner) StopReason(elapsed time.Duration) string {
	return t.stopReasonAt(t.state.Generation, elapsed)
}

// stopReasonAt is StopReason after generations completed generations.
func (t *Tuner) stopReasonAt(generations int, elapsed time.Duration) string {
	switch {
	case t.cfg.Generations > 0 && generations >= t.cfg.Generations:
		return fmt.Sprintf("generations: %d done", generations)
	case t.cfg.Duration > 0 && elapsed >= time.Duration(t.cfg.Duration):
		return fmt.Sprintf("duration: %v spent", time.Duration(t.cfg.Duration))
	}
	if r, ok := t.opt.Stop(); ok {
		return "optimizer: " + string(r)
	}
	return ""
}

// Done says why the run finished, or "" while it goes on.
func (t *Tuner) Done() string { return t.state.Done }

// Reopen lets a finished run go on when its (changed) limits allow another
// generation; it reports whether the run is now open.
func (t *Tuner) Reopen() bool {
	if t.state.Done != "" && t.StopReason(0) == "" {
		t.state.Done = ""
	}
	return t.state.Done == ""
}

// Finish marks the run done for reason without another generation,
// validating the current mean first unless it was validated at this
// generation.
func (t *Tuner) Finish(ctx context.Context, reason string) error {
	if v := t.state.Validated; v == nil || v.Generation != t.state.Generation {
		if _, err := t.validate(ctx, t.full(t.opt.Mean()), t.state.Generation, false); err != nil {
			return err
		}
	}
	t.state.Done = reason
	return nil
}

// Step runs one generation: ask, play every candidate on the generation's
// common seeds, tell, and validate the new mean when it is due or when the
// run stops here. now returns the run's wall-clock time so far (for the
// duration budget and the record). On error, including cancellation, the
// state is left as it was before the step.
func (t *Tuner) Step(ctx context.Context, now func() time.Duration) (Record, error) {
	saved := t.State()
	rec, err := t.step(ctx, now)
	if err != nil {
		if rerr := t.Restore(saved); rerr != nil {
			return Record{}, errors.Join(err, rerr)
		}
		return Record{}, err
	}
	return rec, nil
}

func (t *Tuner) step(ctx context.Context, now func() time.Duration) (Record, error) {
	g := t.state.Generation
	cands := t.opt.Ask()
	weights := make([][]float64, len(cands))
	for c, x := range cands {
		weights[c] = t.full(x)
	}
	var fit, neg []float64
	var noise *RecordNoise
	var err error
	if t.cfg.Noise.Handling {
		if fit, neg, noise, err = t.evaluateNoisy(ctx, weights); err != nil {
			return Record{}, err
		}
	} else {
		seeds := make([]uint64, t.cfg.Fitness.Games)
		for j := range seeds {
			seeds[j] = TuningSeed(t.cfg.Seed, len(seeds), g, j)
		}
		var results [][]engine.Result
		if results, err = t.play(ctx, t.search, weights, seeds); err != nil {
			return Record{}, err
		}
		fit = make([]float64, len(cands))
		neg = make([]float64, len(cands))
		for c := range cands {
			fit[c] = t.fitness(results[c])
			neg[c] = -fit[c] // the optimizer minimises
		}
	}
	if err := t.opt.Tell(neg); err != nil {
		return Record{}, fmt.Errorf("tuner: generation %d: %w", g+1, err)
	}
	// The state's generation advances only at the end: every game of this
	// step, validation included, is journalled under the generation of the
	// checkpoint it would be replayed from.
	done := g + 1
	rec := Record{
		Generation:  done,
		Evaluations: t.opt.Evaluations(),
		Lambda:      len(cands),
		Best:        slices.Max(fit),
		Median:      engine.Median(fit),
		Sigma:       t.opt.Sigma(),
		AxisRatio:   finiteOr0(t.opt.AxisRatio()),
		Restarts:    t.opt.Restarts(),
		Weights:     WeightMap{Names: t.names, Values: t.full(t.opt.Mean())},
		Noise:       noise,
	}
	rec.Mean, _ = engine.MeanCI95(fit)
	rec.Stop = t.stopReasonAt(done, now())
	if rec.Stop != "" || done%t.cfg.Validation.Every == 0 {
		v, err := t.validate(ctx, rec.Weights.Values, done, false)
		if err != nil {
			return Record{}, err
		}
		rec.Validation = &RecordValidation{Fitness: v.Fitness, Mean: v.Mean, CI95: v.CI95, Median: v.Median, Games: v.Games}
	}
	rec.Games = t.state.Games
	t.state.Generation = done
	t.state.Done = rec.Stop
	rec.Elapsed = now().Seconds()
	if t.state.Optimizer, err = t.opt.MarshalBinary(); err != nil {
		return Record{}, err
	}
	return rec, nil
}

// Recommended returns the recommended weights: the latest validated
// distribution mean, or the starting weights before any validation.
func (t *Tuner) Recommended() *Validation {
	if t.state.Validated != nil {
		return t.state.Validated
	}
	return t.state.Start
}

// Evaluations returns the candidate evaluations so far.
func (t *Tuner) Evaluations() int { return t.opt.Evaluations() }

// finiteOr0 returns x, or 0 for an infinite or NaN x, which JSON cannot
// carry.
func finiteOr0(x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return 0
	}
	return x
}
