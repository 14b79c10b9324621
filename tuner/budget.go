package tuner

import "math"

// StepGames returns the most games the next Step can play: every
// candidate's games to the end (racing may drop some sooner), noise
// handling's re-evaluations, and the validation and its race when the
// step validates (at the validation cadence, or where the generations end
// the run or its stage; a duration is not foreseen). A caller that runs the
// tuner to a budget of games uses it, with FinishGames, to stop while its
// last word still fits.
func (t *Tuner) StepGames() (games int64, validates bool) {
	lam := int64(t.opt.Lambda())
	n := int64(t.NextGames())
	var reev int64
	if nc := &t.cfg.Noise; nc.Handling {
		r := nc.Reevaluate
		if r == 0 {
			r = 2 + float64(lam)/20
		}
		reev = min(int64(math.Ceil(r)), lam) * n
	}
	games = lam*n + reev
	done := t.state.Generation + 1
	if done%t.cfg.Validation.Every == 0 || t.stopReasonAt(done, 0) != "" ||
		t.state.Stage < len(t.stages)-1 && t.stageEndAt(done, 0) != "" {
		return games + t.FinishGames(), true
	}
	return games, false
}

// FinishGames returns the most games Finish plays after a generation whose
// mean is not yet validated: the validation, and under
// validation.recommend: race both sides of its race.
func (t *Tuner) FinishGames() int64 {
	g := int64(t.cfg.Validation.Games)
	if t.cfg.Validation.Recommend == RecommendRace {
		g += 2 * int64(t.cfg.Validation.Select)
	}
	return g
}
