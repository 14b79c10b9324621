package tuner

import (
	"fmt"

	"github.com/evotune/evotune/engine/stats"
)

// guard is validation.fallback's decision after validated mean v: v
// becomes the anchor when it is the stage's best, and when it is worse than
// the anchor by a one-sided paired t test at the configured level, on the
// same validation games, the run falls back: a fresh optimizer starts at
// the anchor's weights with half the step size (the steps that led here
// were too large for what the noise lets the ranks say), and the anchor is
// recommended. It runs once a validation, never per game, and depends on
// the validations and the optimizer's step size alone, all of them in the
// checkpoint, so it is resume-exact.
func (t *Tuner) guard(v *Validation) error {
	t.state.Fallen = nil
	a := t.state.Anchor
	if a == nil || v.Fitness >= a.Fitness { // nextStage clears the anchor
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
