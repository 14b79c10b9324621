package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/evotune/evotune/tuner"
)

// comparison is the start against the recommended weights on the same
// validation games, with one search. In a ladder whose validation search
// changes, the state's start is the figure with the current stage's
// search, while the recommended weights, until the stage ends, are an
// earlier stage's winner measured with that stage's: their start figure is
// then the one the history recorded at that stage's end.
func (r *Run) comparison() *comparison {
	s := r.State
	if s.Start == nil {
		return nil
	}
	c := &comparison{Metric: r.Metric.String()}
	c.Start = validationRow{Label: "start weights"}.fill(s.Start)
	c.Reach = "Reach rates are not shown: checkpoints keep each validation's mean, CI and median only. " +
		"evotune play --weights FILE --json measures them for an exported weights file."
	if r.player() != nil {
		c.Reach = "Reach rates are not shown: checkpoints keep each validation's mean, CI and median only. " +
			"evotune play --params-file FILE --json measures them for an exported params file."
	}
	if s.Validated == nil {
		c.End = validationRow{Label: "tuned", Generation: "not validated yet"}
		return c
	}
	end := s.Recommended()
	// In a stage under way an export writes weights not yet validated
	// (the Recommended section): these are the last validated.
	label, which := "tuned: ", "the recommended "
	if r.pending() {
		label, which = "last validated: ", "the last validated "
	}
	c.End = validationRow{Label: label + r.recommendedName(end)}.fill(end)
	if n := len(r.Config.StageList()); end.Stage < n && s.Start.Stage < n && !r.startHolds(end.Stage+1) {
		return r.acrossSearches(c, end, which)
	}
	if p := pairedText(r.Config.Seed, s.Start, end); p != "" {
		c.Reach = p
	} else if end.Generation == 0 && end.Race != nil {
		c.Reach = "The start won the final race: " + which + r.vectorWord() + "s are the starting ones, and so are their figures."
	}
	c.Diff = change(end.Fitness, s.Start.Fitness)
	return c
}

// change is the difference of the figures tuned and start, and in percent
// of start.
func change(tuned, start float64) string {
	d := tuned - start
	s := signed(d)
	if start != 0 {
		s += " (" + strings.Replace(fmt.Sprintf("%+.1f%%", 100*d/math.Abs(start)), "-", "−", 1) + ")"
	}
	return s
}

// acrossSearches fills c, whose end row is the recommended weights end,
// where the start the state holds was measured with another validation
// search than end: with the start's figure the history recorded at the
// end of end's stage, or, in a history without it, with no change at all.
// Figures of two searches are never set side by side as a gain.
func (r *Run) acrossSearches(c *comparison, end *tuner.Validation, which string) *comparison {
	st := r.State.Start
	stage := end.Stage + 1
	then := r.Config.StageValidationSearch(end.Stage)
	now := fmt.Sprintf("The current stage validates with another search (%s), with which the start scores %s ± %s on the same games: the stage's winner is compared with that figure at its end.",
		r.Config.StageValidationSearch(st.Stage), num(st.Mean), num(st.CI95))
	if f := r.stageStart(stage, end.Generation); f != nil {
		c.Start = validationRow{Label: fmt.Sprintf("start weights (stage %d's search)", stage), Generation: "0",
			Fitness: num(f.Fitness), Mean: num(f.Mean) + " ± " + num(f.CI95), Median: num(f.Median), Games: strconv.Itoa(f.Games)}
		c.Diff = change(end.Fitness, f.Fitness)
		c.Reach = fmt.Sprintf("Both rows are measured with stage %d's validation search (%s), with which %s%ss were chosen; checkpoints keep the games one by one for the current search's start only, so there are no paired figures. %s",
			stage, then, which, r.vectorWord(), now)
		return c
	}
	c.Start.Label = "start weights (current search)"
	c.Reach = fmt.Sprintf("The two rows do not compare: %s%ss were measured with stage %d's validation search (%s), and the history does not record the start's figure with it (an older evotune did not). %s",
		which, r.vectorWord(), stage, then, now)
	return c
}

// stageStart returns the start's figure the history recorded with the
// final race of stage (from 1) that chose the mean of generation gen: the
// start on the validation games with that stage's search. Nil in a history
// of an older evotune.
func (r *Run) stageStart(stage, gen int) *tuner.RecordFigure {
	var f *tuner.RecordFigure
	for _, g := range r.History {
		if v := g.Validation; g.Stage == stage && v != nil && v.Start != nil && v.Generation == gen {
			f = v.Start // the last: a stage stopped and continued races again
		}
	}
	return f
}

func (v validationRow) fill(x *tuner.Validation) validationRow {
	v.Generation = strconv.Itoa(x.Generation)
	v.Fitness = num(x.Fitness)
	v.Mean = num(x.Mean) + " ± " + num(x.CI95)
	v.Median = num(x.Median)
	v.Games = strconv.Itoa(x.Games)
	return v
}

// pairedText compares the tuned and starting weights game by game on their
// common validation seeds (the statistics of evotune compare): the ratio of
// mean scores with its 95% interval, wins and losses, and each tile's reach
// rate with its Wilson interval. Empty when a validation did not record its
// games (checkpoints of an older evotune) or the two are the same weights.
func pairedText(runSeed uint64, start, tuned *tuner.Validation) string {
	c, ok := tuner.TunedVsStart(runSeed, start, tuned)
	if !ok {
		return ""
	}
	t := fmt.Sprintf("Paired over the %d validation games: tuned/start mean score %.3f, 95%% CI [%.3f, %.3f]; the tuned weights scored more on %d seeds, less on %d, the same on %d.",
		c.Games, c.Ratio, c.RatioCI95.Lo, c.RatioCI95.Hi, c.Wins, c.Losses, c.Ties)
	for _, tr := range c.Reach {
		t += fmt.Sprintf(" Reach %d: start %.0f%% [%.0f%%, %.0f%%], tuned %.0f%% [%.0f%%, %.0f%%].", tr.Tile,
			100*tr.B.Value(), 100*tr.B.CI95.Lo, 100*tr.B.CI95.Hi, 100*tr.A.Value(), 100*tr.A.CI95.Lo, 100*tr.A.CI95.Hi)
	}
	return t
}
