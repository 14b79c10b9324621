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

// tuneProgress shows a run's progress: a bar on a terminal, one plain line
// per generation otherwise; never both.
type tuneProgress struct {
	w        io.Writer
	terminal bool
	run      *tuner.Run
	bar      *bar
	start    time.Time
	played   atomic.Int64 // games played by this process, not replayed
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
			p.bar.add(1)
		},
		Generation: p.generation,
		Validation: p.validation,
	}
}

// reportEvery is how often, in generations, the report is rewritten while
// a run goes on (and at every stage's end): often enough to follow a night,
// seldom enough to cost nothing.
const reportEvery = 5

func (p *tuneProgress) generation(rec tuner.Record) {
	if rec.Validation != nil || rec.Generation%reportEvery == 0 {
		p.writeReport()
	}
	cfg := p.run.Tuner().Config()
	of := ""
	if cfg.Generations > 0 {
		of = fmt.Sprintf("/%d", cfg.Generations)
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
	if p.terminal {
		if next != "" {
			p.bar.println(next)
		}
		desc := fmt.Sprintf("gen %d%s best %s", rec.Generation+1, of, fmtFitness(rec.Best))
		if n := rec.Noise; n != nil {
			desc += fmt.Sprintf(", %d games/candidate", n.Next)
		}
		p.bar.describe(desc)
		return
	}
	line := fmt.Sprintf("gen %d%s  best %s  median %s  sigma %.3g  games %d  %.1f games/s  %s",
		rec.Generation, of, fmtFitness(rec.Best), fmtFitness(rec.Median), rec.Sigma, rec.Games,
		float64(p.played.Load())/max(time.Since(p.start).Seconds(), 1e-9), p.run.Elapsed().Round(time.Second))
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
	fmt.Fprintln(p.w, line)
	if next != "" {
		fmt.Fprintln(p.w, next)
	}
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

// estimateGames is the bar's total: every tuning game the run will play
// at the current population size, the start's validation, and the final
// race at its longest with its validation, or -1 (a count without a total)
// with no generation limit or with noise handling, whose games per
// generation follow the noise, or with stages, each of which ends with a
// race of its own.
func estimateGames(cfg *tuner.Config, lambda, games int) int {
	if cfg.Generations <= 0 || cfg.Noise.Handling || len(cfg.Stages) > 0 {
		return -1
	}
	v := cfg.Validation
	race := 0
	if v.Select > 0 {
		entrants := 2
		entrants += v.FinalistsBefore(cfg.Generations)
		race = entrants * v.Select
	}
	return cfg.Generations*lambda*games + 2*v.Games + race
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
		}
	}
	return fmt.Sprintf("final race on %d games: %s; %s wins", r.Games, strings.Join(parts, ", "), won)
}
