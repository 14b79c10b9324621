package tuner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/engine/stats"
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
func (t *Tuner) fitness(rs []engine.Result) float64 { return t.metric.Value(rs) }

// Step runs one generation: ask, play every candidate on the generation's
// common seeds, tell, and validate the new mean when it is due or when the
// run stops here. now returns the run's wall-clock time so far (for the
// duration budget and the record). On error, including cancellation, the
// state is left as it was before the step.
func (t *Tuner) Step(ctx context.Context, now func() time.Duration) (Record, error) {
	saved, began, reopened := t.State(), t.stageBegan, t.reopened
	rec, err := t.step(ctx, now)
	if err != nil {
		t.stageBegan, t.reopened = began, reopened
		if rerr := t.Restore(saved); rerr != nil {
			return Record{}, errors.Join(err, rerr)
		}
		return Record{}, err
	}
	return rec, nil
}

func (t *Tuner) step(ctx context.Context, now func() time.Duration) (Record, error) {
	g := t.state.Generation
	if t.reopened && t.state.Stage < len(t.stages)-1 && t.stageEndAt(g, now()) != "" {
		// A stage whose end coincided with the run's own limit, in a run
		// resumed with a higher limit: the next stage begins now, from
		// the mean validated at the stop.
		v := t.state.Validated
		if v == nil || v.Generation != g {
			var err error
			if v, err = t.validate(ctx, t.vector(t.opt.Mean()), g, false); err != nil {
				return Record{}, err
			}
		}
		if err := t.nextStage(ctx, g, v); err != nil {
			return Record{}, err
		}
		t.stageBegan = now()
	}
	t.reopened = false
	cands := t.opt.Ask()
	weights := make([][]float64, len(cands))
	for c, x := range cands {
		weights[c] = t.vector(x)
	}
	var fit, neg []float64
	var noise *RecordNoise
	var err error
	if t.cfg.Noise.Handling {
		if fit, neg, noise, err = t.evaluateNoisy(ctx, weights); err != nil {
			return Record{}, err
		}
	} else {
		seeds := t.takeSeeds(t.games())
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
		Evaluations: t.Evaluations(),
		Lambda:      len(cands),
		Best:        slices.Max(fit),
		Median:      stats.Median(fit),
		Sigma:       t.opt.Sigma(),
		AxisRatio:   finiteOr0(t.opt.AxisRatio()),
		Restarts:    t.opt.Restarts(),
		Weights:     WeightMap{Names: t.names, Values: t.vector(t.opt.Mean())},
		Noise:       noise,
	}
	rec.Mean, _ = stats.MeanCI95(fit)
	if lr, ok := t.opt.(learningRater); ok {
		if m, c, on := lr.LearningRates(); on {
			rec.LearningRates = &LearningRates{Mean: m, Covariance: c}
		}
	}
	if len(t.cfg.Stages) > 0 {
		rec.Stage = t.state.Stage + 1
	}
	rec.Stop = t.stopReasonAt(done, now())
	if rec.Stop == "" && t.state.Stage < len(t.stages)-1 {
		rec.StageEnd = t.stageEndAt(done, now())
	}
	var v *Validation
	if rec.Stop != "" || rec.StageEnd != "" || done%t.cfg.Validation.Every == 0 {
		if t.independentValidation(&rec) {
			t.playAhead(ctx, now, done) // shares the slots with the validation
		}
		if v, err = t.validate(ctx, rec.Weights.Values, done, false); err != nil {
			return Record{}, err
		}
		rec.Validation = &RecordValidation{Fitness: v.Fitness, Mean: v.Mean, CI95: v.CI95, Median: v.Median, Games: v.Games, Race: v.Race}
		switch r := t.state.Recommended(); {
		case t.state.Best != nil:
			rec.Validation.Recommended = r.Generation // even this one's, as ever
		case r != v:
			rec.Validation.Recommended = r.Generation
		}
		if f := t.state.Fallen; f != nil {
			rec.Validation.Fallback = f.Generation
		}
		// The validation may have spent the stage's patience: it ends
		// here, not a generation later.
		if end := t.patienceEnd(); end != "" && rec.Stop == "" && rec.StageEnd == "" {
			if t.state.Stage < len(t.stages)-1 {
				rec.StageEnd = end
			} else {
				rec.Stop = t.lastStageEnd(end)
			}
		}
	}
	if rec.StageEnd != "" {
		// A stage always ends with its mean validated; the next starts
		// from there.
		if err := t.nextStage(ctx, done, v); err != nil {
			return Record{}, err
		}
	}
	rec.Games = t.state.Games
	t.state.Generation = done
	t.state.Finished = rec.Stop
	rec.Elapsed = now().Seconds()
	if rec.StageEnd != "" {
		// As a resumed run recovers it from the history (see Run).
		t.stageBegan = elapsedOf(rec.Elapsed)
	}
	if t.state.Optimizer, err = t.opt.MarshalBinary(); err != nil {
		return Record{}, err
	}
	if err := t.awaitAhead(ctx); err != nil {
		return Record{}, err
	}
	return rec, nil
}

// Evaluations returns the candidate evaluations so far, over all stages.
func (t *Tuner) Evaluations() int { return t.state.StageEvaluations + t.opt.Evaluations() }

// finiteOr0 returns x, or 0 for an infinite or NaN x, which JSON cannot
// carry.
func finiteOr0(x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return 0
	}
	return x
}

// learningRater is an optimizer with learning rate adaptation
// (population.CMAES), whose rates the history shows.
type learningRater interface {
	LearningRates() (mean, cov float64, ok bool)
}
