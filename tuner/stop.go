package tuner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// durationStop begins the stop reason of a run its own duration ended.
const durationStop = "duration: "

// EndedByDuration reports whether the run's own wall-clock budget ended it:
// a longer duration, not a higher generation limit, continues it.
func (s State) EndedByDuration() bool { return strings.HasPrefix(s.Finished, durationStop) }

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
		return fmt.Sprintf("%s%v spent", durationStop, time.Duration(t.cfg.Duration))
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
	return ""
}

// nextStage begins the stage after the current one once generation done
// is complete, from the stage's result: the winner of its final race, just
// validated. A fresh optimizer starts at its weights with the stage's
// sigma, population and search. When the validation search changes with
// the stage, the starting weights are measured again with the new one, so
// that tuned and start always compare on the same search and games. The
// stage's tuning seeds go on from the run's counter, where the previous
// stage's ended.
func (t *Tuner) nextStage(ctx context.Context, done int) error {
	v := t.state.Validated
	i := t.state.Stage + 1
	before := t.valSearch
	evaluations := t.Evaluations()
	if err := t.enterStage(i, v.Weights); err != nil {
		return fmt.Errorf("tuner: stage %d: %w", i+1, err)
	}
	// Noise handling's games per candidate start again from the stage's,
	// and the stage keeps finalists, means and the model's samples of its
	// own (a stage may tune other coordinates).
	t.state.Noise, t.state.Finalists, t.state.Means, t.state.Samples = nil, nil, nil, nil
	t.state.Stage, t.state.StageGeneration, t.state.StageStart = i, done, slices.Clone(v.Weights)
	t.state.StageEvaluations = evaluations
	if t.valSearch != before {
		if err := t.validateStart(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Finished says why the run finished, or "" while it goes on.
func (t *Tuner) Finished() string { return t.state.Finished }

// Converged says the run finished because it converged: its optimizer
// stopped in its last stage. No higher limit reopens such a run (see
// Reopen); a new run can start from its weights.
func (t *Tuner) Converged() bool {
	if t.state.Finished == "" {
		return false
	}
	_, ok := t.opt.Stop()
	return ok
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

// Reopened reports whether Reopen let a finished run go on and its next
// generation has not yet been played.
func (t *Tuner) Reopened() bool { return t.reopened }

// Finish marks the run done for reason without another generation,
// running the stage's final race and validating its winner first unless
// they ran after this generation.
func (t *Tuner) Finish(ctx context.Context, reason string) error {
	if !t.concludedAt(t.state.Generation) {
		if _, err := t.conclude(ctx, t.state.Generation); err != nil {
			return err
		}
		t.state.Concluded = t.state.Generation
	}
	t.state.Finished = reason
	return nil
}

// FinishWithin is Finish with at most games games for the race and the
// validation: the race plays fewer games an entrant where its
// validation.select would not fit, half of them at least (FinishGames), as
// a caller with a budget of games wants its last word to.
func (t *Tuner) FinishWithin(ctx context.Context, reason string, games int64) error {
	t.finishLimit = max(games, 1)
	defer func() { t.finishLimit = 0 }()
	return t.Finish(ctx, reason)
}
