package main

import (
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/evotune/evotune/tuner"
	"github.com/evotune/evotune/tuner/report"
)

// tuneProgress shows a run's progress: one line per generation, and a
// line when a longer part of the run begins (the start's validation, the
// final race, the winner's validation); on a terminal, the same lines
// above a bar of the part in progress, its games, the pace of the games
// played and when the run ends by its limits.
type tuneProgress struct {
	w        io.Writer
	terminal bool
	run      *tuner.Run
	bar      *bar
	start    time.Time
	played   atomic.Int64 // games played by this process, not replayed
	// phaseGames and phaseDone are the games of the part in progress, as
	// planned and finished (played or taken from the journal); described
	// is when the bar was last described (Unix nanoseconds).
	phaseGames, phaseDone, described atomic.Int64
	// reportPath is the run report, rewritten after each generation that
	// validated (once that generation is saved, so the page shows it).
	reportPath   string
	reportFailed bool // a failure to write it was reported once
	// restart is the line about the starting weights measured again when
	// a stage begins with another validation search: shown after the line
	// that says the stage began.
	restart string
}

// writeReport rewrites the run report. A failure does not stop the run:
// it is reported once, and the next validation tries again.
func (p *tuneProgress) writeReport() {
	if p.reportPath == "" {
		return
	}
	err := report.Write(p.run.Dir(), p.reportPath)
	if err == nil || p.reportFailed {
		return
	}
	p.reportFailed = true
	msg := fmt.Sprintf("notice    report not written (the run goes on): %v", err)
	if p.terminal {
		p.bar.println(msg)
		return
	}
	fmt.Fprintln(p.w, msg)
}

func (p *tuneProgress) events() tuner.Events {
	return tuner.Events{
		Game: func(replayed bool) {
			if !replayed {
				p.played.Add(1)
			}
			// Short of the end: a full bar vanishes until the next part,
			// and games played ahead of a generation count where they
			// are played.
			if n := p.phaseDone.Add(1); n < p.phaseGames.Load() {
				p.bar.set(int(n))
			}
			p.refresh(false)
		},
		Phase:      p.phase,
		Generation: p.generation,
		Validation: p.validation,
	}
}

// phase shows that a part of the run begins: a line, but for a
// generation (its line comes at its end); on a terminal, a bar of its
// games.
func (p *tuneProgress) phase(ph tuner.Phase) {
	p.phaseGames.Store(int64(ph.Games))
	p.phaseDone.Store(0)
	if ph.Kind != tuner.PhaseGeneration {
		line := fmt.Sprintf("phase     %s: %s", phaseName(ph, p.run.Tuner()), phaseGames(ph))
		if e := fmtEstimate(p.run.Progress()); e != "" {
			line += "; " + e
		}
		if p.terminal {
			p.bar.println(line)
		} else {
			fmt.Fprintln(p.w, line)
		}
	}
	if p.terminal {
		p.bar.reset(max(ph.Games, 1))
		p.refresh(true)
	}
}

// refresh describes the bar anew: at most once a second, or now.
func (p *tuneProgress) refresh(now bool) {
	if p.bar == nil {
		return
	}
	t, last := time.Now().UnixNano(), p.described.Load()
	if !now && (t-last < int64(time.Second) || !p.described.CompareAndSwap(last, t)) {
		return
	}
	if now {
		p.described.Store(t)
	}
	p.bar.describe(describeProgress(p.run.Progress(), p.run.Tuner()))
}

// reportEvery is how often, in generations, the report is rewritten while
// a run goes on (and at every stage's end): often enough to follow a night,
// seldom enough to cost nothing.
const reportEvery = 5

func (p *tuneProgress) generation(rec tuner.Record) {
	if rec.Validation != nil || rec.Generation%reportEvery == 0 {
		p.writeReport()
	}
	next := ""
	if rec.StageEnd != "" {
		next = fmt.Sprintf("stage %d ended (%s)\n%s", rec.Stage, rec.StageEnd, describeStage(p.run.Tuner()))
	}
	if p.restart != "" {
		// (A stage that began when a stopped run was resumed has no
		// stage_end line before it.)
		next = strings.TrimPrefix(next+"\n"+p.restart, "\n")
		p.restart = ""
	}
	pr := p.run.Progress()
	line := fmt.Sprintf("gen %d%s  best %s  median %s  mean %s  sigma %.3g  games %d  %s  %s",
		rec.Generation, ofGenerations(p.run.Tuner().Config()), fmtFitness(rec.Best), fmtFitness(rec.Median), fmtFitness(rec.Mean), rec.Sigma, rec.Games,
		fmtPace(p.played.Load(), time.Since(p.start)), pr.Elapsed.Round(time.Second))
	if e := fmtEstimate(pr); e != "" {
		line += "  " + e
	}
	if lr := rec.LearningRates; lr != nil {
		line += fmt.Sprintf("  learning rates %.2f, %.2f", lr.Mean, lr.Covariance)
	}
	if n := rec.Noise; n != nil {
		line += "  " + describeNoise(n)
	}
	if rec.Finalist {
		line += "  finalist"
	}
	if v := rec.Validation; v != nil {
		if r := v.Race; r != nil {
			line += "  " + describeRace(r) + ";"
		}
		// The run's story at this moment, as export and the report tell it.
		line += fmt.Sprintf(" export now writes %s  report updated", p.run.Tuner().Story().What)
	}
	if next != "" {
		line += "\n" + next
	}
	if p.terminal {
		p.bar.println(line)
		return
	}
	fmt.Fprintln(p.w, line)
}

func (p *tuneProgress) validation(v *tuner.Validation, start bool) {
	if !start {
		return
	}
	// The run keeps the figure before it says so: an export works from
	// this line on (tuner.StartFile).
	msg := fmt.Sprintf("start     validated %s (mean score %.0f ± %.0f over %d games); export now writes the start, until generation 1 ends", fmtFitness(v.Fitness), v.Mean, v.CI95, v.Games)
	if v.Stage > 0 {
		// The next stage validates with another search.
		p.restart = fmt.Sprintf("start     measured again with %s: %s (mean score %.0f ± %.0f over %d games)",
			p.run.Tuner().ValidationSearchConfig(), fmtFitness(v.Fitness), v.Mean, v.CI95, v.Games)
		return
	}
	if p.terminal {
		p.bar.println(msg)
		return
	}
	fmt.Fprintln(p.w, msg)
}

func (p *tuneProgress) finish() { p.bar.done() }

// describeNoise shows a generation's noise handling: the games per
// candidate and the next generation's, the smoothed rank-change measure
// (positive: ranks are noise) and the candidates racing dropped; for
// racing on fixed games, only the candidates it dropped.
func describeNoise(n *tuner.RecordNoise) string {
	if n.Fixed {
		return fmt.Sprintf("racing: %d games played, %d candidates dropped early", n.Played, n.Dropped)
	}
	ranks := "clear"
	if n.SBar > 0 {
		ranks = "noisy"
	}
	s := fmt.Sprintf("games/candidate %d→%d (ranks %s, s̄ %+.2f)", n.Games, n.Next, ranks, n.SBar)
	if n.Dropped > 0 {
		s += fmt.Sprintf(", %d dropped early", n.Dropped)
	}
	return s
}

// describeRace says how a stage's final race went: each entrant's
// generation, games and fitness, and the winner.
func describeRace(r *tuner.RecordRace) string {
	var parts []string
	for _, e := range r.Entrants {
		name := fmt.Sprintf("gen %d", e.Generation)
		switch {
		case e.Start && e.Generation > 0:
			name = fmt.Sprintf("start (gen %d)", e.Generation)
		case e.Start:
			name = "start"
		case e.Average > 0:
			name = fmt.Sprintf("average of gen %d-%d", e.Generation-e.Average+1, e.Generation)
		case e.Model > 0:
			name = fmt.Sprintf("model of gen %d-%d", e.Generation-e.Model+1, e.Generation)
		}
		part := fmt.Sprintf("%s %s", name, fmtFitness(e.Fitness))
		if e.Games < r.Games {
			part += fmt.Sprintf(" (out after %d games)", e.Games)
		}
		parts = append(parts, part)
	}
	won := fmt.Sprintf("gen %d", r.Recommends)
	if r.Winner >= 0 && r.Winner < len(r.Entrants) {
		switch e := r.Entrants[r.Winner]; {
		case e.Start:
			won = "the start"
		case e.Average > 0:
			won = "the average"
		case e.Model > 0:
			won = "the model"
		}
	}
	return fmt.Sprintf("final race on %d games: %s; %s wins", r.Games, strings.Join(parts, ", "), won)
}

// ofGenerations is a generation's "/n" of a run with a generation limit.
func ofGenerations(cfg *tuner.Config) string {
	if cfg.Generations > 0 {
		return fmt.Sprintf("/%d", cfg.Generations)
	}
	return ""
}

// phaseName names a part of the run: the generation of how many, and in a
// ladder the stage.
func phaseName(ph tuner.Phase, t *tuner.Tuner) string {
	s := ph.String()
	switch {
	case ph.Kind == tuner.PhaseStart && ph.Stage > 0:
		s = "measuring the start again with " + t.Config().StageValidationSearch(ph.Stage).String()
	case ph.Kind == tuner.PhaseGeneration:
		s += ofGenerations(t.Config())
	}
	if stages := t.Stages(); len(stages) > 1 {
		s += fmt.Sprintf(" (stage %d/%d %q)", ph.Stage+1, len(stages), stages[ph.Stage].Name)
	}
	return s
}

// phaseGames says what a part of the run plays: its games, at most where
// racing may stop some early.
func phaseGames(ph tuner.Phase) string {
	if ph.Kind == tuner.PhaseRace || ph.Kind == tuner.PhaseGeneration {
		return fmt.Sprintf("up to %d games", ph.Games)
	}
	return fmt.Sprintf("%d games", ph.Games)
}

// describeProgress is the bar's description, short enough for a line of
// a terminal with the bar: the part in progress, the pace of the games
// this process played and when the run ends.
func describeProgress(pr tuner.Progress, t *tuner.Tuner) string {
	var s string
	switch ph := pr.Phase; ph.Kind {
	case tuner.PhaseStart:
		s = "validating start"
	case tuner.PhaseGeneration:
		s = fmt.Sprintf("gen %d%s", ph.Generation, ofGenerations(t.Config()))
	case tuner.PhaseRace:
		s = "final race"
	case tuner.PhaseWinner:
		s = "validating winner"
	}
	if n := len(t.Stages()); n > 1 {
		s += fmt.Sprintf(" (stage %d/%d)", pr.Phase.Stage+1, n)
	}
	if pace := fmtPace(pr.Played, pr.PlayTime); pace != "" {
		s += " · " + pace
	}
	switch left, ok := endIn(pr); {
	case !ok:
	case pr.Estimate.AtLeast:
		s += fmt.Sprintf(" · end in ≥%v", left)
	default:
		s += fmt.Sprintf(" · end in ~%v (%s)", left, pr.Estimate.By)
	}
	return s
}

// fmtPace writes games per second, or per minute where a game takes
// longer than a second; "" before a game.
func fmtPace(games int64, d time.Duration) string {
	if games == 0 || d <= 0 {
		return ""
	}
	r := float64(games) / d.Seconds()
	if r >= 1 {
		return fmt.Sprintf("%.1f games/s", r)
	}
	return fmt.Sprintf("%.1f games/min", 60*r)
}

// fmtEstimate says when the run ends by its limits, seen from now (the
// run's clock); "" where none ends it, or before this process has played
// a game that would give it a pace.
func fmtEstimate(pr tuner.Progress) string {
	e := pr.Estimate
	left, ok := endIn(pr)
	if !ok {
		return ""
	}
	by := map[string]string{
		"generations":       "its generations",
		"duration":          "its duration",
		"stage generations": "its last stage's generations",
		"stage duration":    "its last stage's duration",
		"convergence":       "convergence",
	}[e.By]
	if e.AtLeast {
		return fmt.Sprintf("end in %v at least (by %s; a search that has not played yet adds to it)", left, by)
	}
	return fmt.Sprintf("end in ~%v (by %s)", left, by)
}

// endIn is the time from now (the run's clock) to the estimated end, and
// false where none is shown: no limit ends the run, or this process has
// played no game that would give a pace to the part not yet priced.
func endIn(pr tuner.Progress) (time.Duration, bool) {
	e := pr.Estimate
	if e.Open || e.AtLeast && pr.Played == 0 {
		return 0, false
	}
	return max(e.End-pr.Elapsed, 0).Round(time.Second), true
}
