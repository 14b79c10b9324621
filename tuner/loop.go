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
		// the winner of the race at the stop.
		if !t.concludedAt(g) {
			if _, err := t.conclude(ctx, g); err != nil {
				return Record{}, err
			}
		}
		if err := t.nextStage(ctx, g); err != nil {
			return Record{}, err
		}
		t.stageBegan = now()
	}
	t.reopened = false
	gen := t.plan(t.opt, &t.state.SeedCounter)
	fit, tell, full, noise, err := t.evaluate(ctx, gen)
	if err != nil {
		return Record{}, err
	}
	if err := t.opt.Tell(tell); err != nil {
		return Record{}, fmt.Errorf("tuner: generation %d: %w", g+1, err)
	}
	// The state's generation advances only at the end: every game of this
	// step, the race and validation included, is journalled under the
	// generation of the checkpoint it would be replayed from.
	done := g + 1
	rec := Record{
		Generation:  done,
		Evaluations: t.Evaluations(),
		Lambda:      len(gen.weights),
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
	t.state.Means = append(t.state.Means, Finalist{Generation: done, Weights: rec.Weights.Values})
	if k := t.cfg.Validation.Average; len(t.state.Means) > k {
		t.state.Means = slices.Delete(t.state.Means, 0, len(t.state.Means)-k)
	}
	t.keepSample(done, gen, fit, full)
	if t.finalistAt(done) {
		// Kept even where the stage ends here (where the race has the
		// average instead), so that a run stopped at its limit and
		// continued under a higher one keeps the finalists of a run
		// without the stop.
		t.state.Finalists = append(t.state.Finalists, Finalist{Generation: done, Weights: rec.Weights.Values})
		if k := t.cfg.Validation.Finalists + 1; len(t.state.Finalists) > k {
			t.state.Finalists = slices.Delete(t.state.Finalists, 0, len(t.state.Finalists)-k)
		}
		rec.Finalist = true
	}
	if rec.Stop != "" || rec.StageEnd != "" {
		// The stage ends: its final race, and the winner validated.
		v, err := t.conclude(ctx, done)
		if err != nil {
			return Record{}, err
		}
		rec.Validation = &RecordValidation{Generation: v.Generation, Average: v.Average, Model: v.Model, Fitness: v.Fitness, Mean: v.Mean, CI95: v.CI95, Median: v.Median, Games: v.Games, Race: v.Race}
		if s := t.state.Start; s != nil {
			rec.Validation.Start = &RecordFigure{Fitness: s.Fitness, Mean: s.Mean, CI95: s.CI95, Median: s.Median, Games: s.Games}
		}
		t.state.Concluded = done
	}
	if rec.StageEnd != "" {
		// The next stage starts from the race's winner.
		if err := t.nextStage(ctx, done); err != nil {
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

// concludedAt reports whether the current stage's race ran after
// generation g.
func (t *Tuner) concludedAt(g int) bool {
	return t.state.Validated != nil && t.state.Concluded == g && t.state.Validated.Stage == t.state.Stage
}

// finalistAt reports whether the mean after done completed generations is
// one of its stage's finalists, under validation.finalists: every
// validation.every generations of the stage, or at its generations 1, 2,
// 4, 8 and on under spacing: doubling.
func (t *Tuner) finalistAt(done int) bool {
	return t.cfg.Validation.Finalists > 0 && t.cfg.Validation.keeps(done-t.state.StageGeneration)
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
