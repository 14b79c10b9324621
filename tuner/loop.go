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
		if t.cfg.Validation.Fallback > 0 {
			if err := t.guard(v); err != nil {
				return nil, err
			}
		}
	}
	if t.events.Validation != nil {
		t.events.Validation(v, start)
	}
	return v, nil
}

// guard is validation.fallback's decision after validated mean v: v
// becomes the anchor when it is the stage's best, and when it is worse than
// the anchor by a one-sided paired t test at the configured level, on the
// same validation games, the run falls back: a fresh optimizer starts at
// the anchor's weights with half the step size (the steps that led here
// were too large for what the noise lets the ranks say), and the anchor is
// recommended. It depends on the validations alone, so it is resume-exact.
func (t *Tuner) guard(v *Validation) error {
	t.state.Fallen = nil
	a := t.state.Anchor
	if a == nil || a.Stage != t.state.Stage || v.Fitness >= a.Fitness {
		t.state.Anchor = v
		return nil
	}
	if !worseThan(t.metric, t.cfg.Seed, v, a, t.cfg.Validation.Fallback) {
		return nil
	}
	st := t.stages[t.state.Stage]
	st.Sigma = t.opt.Sigma() / 2
	t.state.Fallbacks++
	opt, err := newOptimizer(t.cfg, st, fallbackSeed(t.cfg.Seed, t.state.Fallbacks), t.set, t.names, t.free, a.Weights, t.init)
	if err != nil {
		return fmt.Errorf("tuner: fallback to generation %d: %w", a.Generation, err)
	}
	data, err := opt.MarshalBinary()
	if err != nil {
		return err
	}
	t.state.StageEvaluations = t.Evaluations()
	t.opt, t.state.Optimizer, t.state.Fallen = opt, data, a
	return nil
}

// worseThan says whether v is worse than a at the one-sided level alpha:
// a paired t test on the utilities of their validation games, which play
// the same seeds. Without recorded games it says no.
func worseThan(m Metric, runSeed uint64, v, a *Validation, alpha float64) bool {
	rv, ra := v.Results(runSeed), a.Results(runSeed)
	if rv == nil || len(rv) != len(ra) || len(rv) < 2 {
		return false
	}
	uv, ua := make([]float64, len(rv)), make([]float64, len(ra))
	for j := range rv {
		uv[j], ua[j] = m.utility(rv[j]), m.utility(ra[j])
	}
	return stats.PairedT(ua, uv) > stats.PairedTCritical(len(uv), alpha)
}

// ValidateStart measures the starting weights once per run, before the first
// generation, on the validation seeds: the figure the tuned weights are
// compared with.
func (t *Tuner) ValidateStart(ctx context.Context) error {
	if t.state.Start != nil {
		return nil
	}
	_, err := t.validate(ctx, t.init, 0, true)
	return err
}

// StopReason says why the run must not play another generation after
// elapsed wall-clock time, or "".
func (t *Tuner) StopReason(elapsed time.Duration) string {
	return t.stopReasonAt(t.state.Generation, elapsed)
}

// stopReasonAt is StopReason after generations completed generations: the
// run's own limits, or the end of its last stage.
func (t *Tuner) stopReasonAt(generations int, elapsed time.Duration) string {
	switch {
	case t.cfg.Generations > 0 && generations >= t.cfg.Generations:
		return fmt.Sprintf("generations: %d done", generations)
	case t.cfg.Duration > 0 && elapsed >= time.Duration(t.cfg.Duration):
		return fmt.Sprintf("duration: %v spent", time.Duration(t.cfg.Duration))
	}
	if t.state.Stage < len(t.stages)-1 {
		return "" // the stage's end begins the next one (see step)
	}
	return t.lastStageEnd(t.stageEndAt(generations, elapsed))
}

// lastStageEnd is the run's stop reason when its last stage ends for end
// (or ""): end, named with the stage in a run with stages.
func (t *Tuner) lastStageEnd(end string) string {
	if end != "" && len(t.cfg.Stages) > 0 {
		end = fmt.Sprintf("last stage %s: %s", t.stages[t.state.Stage].Name, end)
	}
	return end
}

// stageEndAt says why the current stage ends after generations completed
// generations (of the run) and elapsed wall-clock time, or "": its budget
// is spent or its optimizer converged.
func (t *Tuner) stageEndAt(generations int, elapsed time.Duration) string {
	st := t.stages[t.state.Stage]
	switch {
	case st.Generations > 0 && generations-t.state.StageGeneration >= st.Generations:
		return fmt.Sprintf("generations: %d done", st.Generations)
	case st.Duration > 0 && elapsed-t.stageBegan >= time.Duration(st.Duration):
		return fmt.Sprintf("duration: %v spent", time.Duration(st.Duration))
	}
	if r, ok := t.opt.Stop(); ok {
		return "optimizer: " + string(r)
	}
	return t.patienceEnd()
}

// patienceEnd says that the stage's patience is spent (see
// ValidationConfig.Patience), or "".
func (t *Tuner) patienceEnd() string {
	if p := t.cfg.Validation.Patience; p > 0 && t.state.Stale >= p {
		if p == 1 {
			return "patience: 1 validation without a better one"
		}
		return fmt.Sprintf("patience: %d validations without a better one", p)
	}
	return ""
}

// nextStage begins the stage after the current one once generation done
// is complete, from the stage's result: the mean just validated (v), or
// under validation.recommend: best the best validated one, or the mean a
// fallback just went back to. A fresh
// optimizer starts at its weights with the stage's sigma, population and
// search. When the validation search changes with the stage, the starting
// weights are measured again with the new one, so that tuned and start
// always compare on the same search and games.
// The stage's tuning seeds go on from the run's counter, where the
// previous stage's ended.
func (t *Tuner) nextStage(ctx context.Context, done int, v *Validation) error {
	if r := t.state.Recommended(); r != nil {
		v = r // the stage's result
	}
	i := t.state.Stage + 1
	before := t.valSearch
	evaluations := t.Evaluations()
	if err := t.enterStage(i, v.Weights); err != nil {
		return fmt.Errorf("tuner: stage %d: %w", i+1, err)
	}
	// Noise handling's games per candidate start again from the stage's,
	// the stage has all its patience, and the fallback guard compares
	// with the stage's own validations.
	t.state.Noise, t.state.Stale = nil, 0
	t.state.Anchor, t.state.Fallen = nil, nil
	t.state.Stage, t.state.StageGeneration, t.state.StageStart = i, done, slices.Clone(v.Weights)
	t.state.StageEvaluations = evaluations
	if t.valSearch != before {
		if _, err := t.validate(ctx, t.init, 0, true); err != nil {
			return err
		}
	}
	return nil
}

// Finished says why the run finished, or "" while it goes on.
func (t *Tuner) Finished() string { return t.state.Finished }

// Converged says the run finished because it converged: its optimizer
// stopped, or validation.patience was spent in its last stage. No higher
// limit reopens such a run (see Reopen); a new run can start from its
// weights.
func (t *Tuner) Converged() bool {
	if t.state.Finished == "" {
		return false
	}
	if _, ok := t.opt.Stop(); ok {
		return true
	}
	return t.patienceEnd() != ""
}

// Reopen lets a finished run go on when its (changed) limits allow another
// generation; it reports whether the run is now open.
func (t *Tuner) Reopen() bool {
	if t.state.Finished != "" && t.StopReason(0) == "" {
		t.state.Finished = ""
		t.reopened = true
	}
	return t.state.Finished == ""
}

// Finish marks the run done for reason without another generation,
// validating the current mean first unless it was validated at this
// generation.
func (t *Tuner) Finish(ctx context.Context, reason string) error {
	if v := t.state.Validated; v == nil || v.Generation != t.state.Generation {
		if _, err := t.validate(ctx, t.vector(t.opt.Mean()), t.state.Generation, false); err != nil {
			return err
		}
	}
	t.state.Finished = reason
	return nil
}

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
		if v, err = t.validate(ctx, rec.Weights.Values, done, false); err != nil {
			return Record{}, err
		}
		rec.Validation = &RecordValidation{Fitness: v.Fitness, Mean: v.Mean, CI95: v.CI95, Median: v.Median, Games: v.Games}
		if b := t.state.Best; b != nil {
			rec.Validation.Recommended = b.Generation
		} else if f := t.state.Fallen; f != nil {
			rec.Validation.Recommended = f.Generation
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
	return rec, nil
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
	case s.Best != nil:
		return s.Best
	case s.Fallen != nil:
		return s.Fallen
	case s.Validated != nil:
		return s.Validated
	}
	return s.Start
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
