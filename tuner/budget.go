package tuner

import "math"

// StepGames returns the most games the next Step can play, and the fewest
// and the most its caller's Finish would play after it. The step plays
// every candidate's games to the end (racing may stop some sooner), noise
// handling's re-evaluations, and, when it ends the stage or the run (where
// the generations end them; a duration is not foreseen), the stage's final
// race and validation; Finish after a step that ended the run plays
// nothing. A caller that runs the tuner to a budget of games uses it to
// stop while its last word still fits (see FinishWithin).
func (t *Tuner) StepGames() (step, finishLeast, finishMost int64) {
	step = t.generationGames(t.opt.Lambda(), t.NextGames())
	done := t.state.Generation + 1
	least, most := t.finishGames(done)
	if t.stopReasonAt(done, 0) != "" || t.state.Stage < len(t.stages)-1 && t.stageEndAt(done, 0) != "" {
		return step + most, 0, 0
	}
	return step, least, most
}

// generationGames is the most games a generation of lam candidates
// plays at n games each: with noise handling, its re-evaluations on n
// fresh games besides.
func (t *Tuner) generationGames(lam, n int) int64 {
	games := int64(lam) * int64(n)
	if t.cfg.Noise.Handling {
		games += min(int64(math.Ceil(t.reevaluations(lam))), int64(lam)) * int64(n)
	}
	return games
}

// FinishGames returns the fewest and the most games Finish plays now: the
// stage's final race and the validation of its winner, none where they
// ran after the current generation. The race plays at most
// validation.select games an entrant, and at least half as many under
// FinishWithin.
func (t *Tuner) FinishGames() (least, most int64) {
	if t.concludedAt(t.state.Generation) {
		return 0, 0
	}
	return t.finishGames(t.state.Generation)
}

// finishGames is FinishGames for the race after done completed
// generations.
func (t *Tuner) finishGames(done int) (least, most int64) {
	val := int64(t.cfg.Validation.Games)
	k := int64(len(t.entrantsAt(done)))
	if t.cfg.Validation.Select == 0 || k < 2 {
		return val, val
	}
	return val + k*int64(t.leastRace()), val + k*int64(t.cfg.Validation.Select)
}

// leastRace is the fewest games an entrant of the race plays under
// FinishWithin: half of validation.select, in whole blocks.
func (t *Tuner) leastRace() int {
	s := t.cfg.Validation.Select
	block := max(s/raceBlocks, 1)
	return max(block*((s/2+block-1)/block), 2)
}
