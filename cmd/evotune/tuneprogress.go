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

func (p *tuneProgress) generation(rec tuner.Record) {
	if rec.Validation != nil {
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
	if v := rec.Validation; v != nil {
		line += fmt.Sprintf("  validated %s (mean score %.0f ± %.0f)", fmtFitness(v.Fitness), v.Mean, v.CI95)
		switch r := v.Race; {
		case r != nil:
			line += "; " + describeRace(r, rec.Generation)
		case v.Recommended != 0 && v.Recommended != rec.Generation:
			line += fmt.Sprintf(", the best is still generation %d's", v.Recommended)
		}
		line += "  report updated"
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
	msg := fmt.Sprintf("start     validated %s (mean score %.0f ± %.0f over %d games)", fmtFitness(v.Fitness), v.Mean, v.CI95, v.Games)
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
// (positive: ranks are noise) and the candidates racing dropped.
func describeNoise(n *tuner.RecordNoise) string {
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

// estimateGames is the bar's total: every tuning and validation game the
// run will play at the current population size, or -1 (a count without a
// total) with no generation limit or with noise handling, whose games per
// generation follow the noise.
func estimateGames(cfg *tuner.Config, lambda, games int) int {
	if cfg.Generations <= 0 || cfg.Noise.Handling {
		return -1
	}
	validations := 1 + cfg.Generations/cfg.Validation.Every
	if cfg.Generations%cfg.Validation.Every != 0 {
		validations++
	}
	// With stages, an estimate at the current stage's population and games.
	return cfg.Generations*lambda*games + validations*cfg.Validation.Games
}

// describeRace says how a validation's race went, for its generation's
// line.
func describeRace(r *tuner.RecordRace, generation int) string {
	inc := "the start"
	if r.Incumbent != 0 {
		inc = fmt.Sprintf("generation %d's", r.Incumbent)
	}
	score := fmt.Sprintf("%s against %s on %d games", fmtFitness(r.Fitness), fmtFitness(r.Against), r.Games)
	switch {
	case r.Recommends == generation:
		return fmt.Sprintf("won its race against %s (%s): recommended", inc, score)
	case r.Fallback:
		return fmt.Sprintf("lost its race to %s (%s), by the fallback's margin: back there with half the step size", inc, score)
	}
	return fmt.Sprintf("lost its race to %s (%s), which stays recommended", inc, score)
}
