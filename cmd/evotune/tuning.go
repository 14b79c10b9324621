package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/engine/stats"
	"github.com/evotune/evotune/tuner"
	"github.com/evotune/evotune/tuner/playerpool"
	"github.com/evotune/evotune/tuner/report"
)

// runTuning runs a tuning run with progress on stderr and the summary on
// stdout; open creates or reopens the run with the given events. pf's
// limits apply to the player that pins a params file's moves at the end;
// pp's pools, how full the player's requests were.
func runTuning(ctx context.Context, stdout, stderr io.Writer, pf *playerFlags, pp *playerPools, open func(tuner.Events) (*tuner.Run, error)) error {
	p := &tuneProgress{w: stderr, terminal: isTerminal(stderr), start: time.Now()}
	r, err := open(p.events())
	if err != nil {
		return err
	}
	defer r.Close()
	p.run = r
	t := r.Tuner()
	cfg := t.Config()
	// A run killed after its last checkpoint but before its weights file
	// was written is finished without a result: it goes on below, which
	// writes the file, rather than saying there is nothing to do.
	_, statErr := os.Stat(filepath.Join(r.Dir(), tuner.WeightsFile))
	if done := t.State().Finished; done != "" && statErr == nil {
		fmt.Fprintf(stdout, "run       %s is complete (%s after %d generations); nothing to do\n", r.Dir(), done, t.State().Generation)
		fmt.Fprintf(stdout, "weights   %s (evotune export %s writes them again)\n", filepath.Join(r.Dir(), tuner.WeightsFile), r.Dir())
		if t.Converged() {
			fmt.Fprintf(stdout, "more      it converged, so no higher limit continues it; a new run can start from its weights (init: %s in a config)\n", filepath.Join(r.Dir(), tuner.WeightsFile))
			return nil
		}
		if t.State().EndedByDuration() {
			spent := r.Elapsed()
			fmt.Fprintf(stdout, "more      evotune resume %s --duration %v   (an hour more: a budget above the %v spent continues it)\n", r.Dir(), tuner.HourMore(spent), tuner.RoundSpent(spent))
			return nil
		}
		fmt.Fprintf(stdout, "more      evotune resume %s --generations N   (N above %d continues it)\n", r.Dir(), t.State().Generation)
		return nil
	}
	p.bar = newPhaseBar(stderr)
	if cfg.Generations == 0 && cfg.Duration == 0 {
		fmt.Fprintf(stdout, "note      no stopping condition: runs until interrupted (set generations or duration, or --generations/--duration, to stop on its own)\n")
	}
	fmt.Fprintf(stdout, "run       %s\n", r.Dir())
	fmt.Fprintf(stdout, "config    %s\n", describeConfig(cfg, t))
	if len(cfg.Stages) > 0 {
		fmt.Fprintf(stdout, "stages    %s\n", describeLadder(t.Stages()))
		fmt.Fprintf(stdout, "%s\n", describeStage(t))
	}
	if resumed, journalled := r.Resumed(); resumed {
		fmt.Fprintf(stdout, "resumed   %s\n", describeResumed(r, journalled))
		fmt.Fprintf(stdout, "budget    %s\n", describeBudget(r))
	}
	fmt.Fprintf(stdout, "resume    evotune resume %s   (after Ctrl-C or a crash; progress is saved every generation)\n", r.Dir())
	p.reportPath = filepath.Join(r.Dir(), report.DefaultFile)
	fmt.Fprintf(stdout, "report    %s   (rewritten every %d generations and at the end; open it in a browser)\n", p.reportPath, reportEvery)
	start := time.Now()
	res, err := r.Run(ctx)
	p.finish()
	// The page then shows how the run ended: finished or interrupted.
	p.writeReport()
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintf(stdout, "\ninterrupted after %d completed generations; everything finished is saved\n", res.Generations)
			fmt.Fprintf(stdout, "resume    evotune resume %s\n", r.Dir())
			return &exitError{code: exitInterrupted, err: fmt.Errorf("interrupted; continue with: evotune resume %s", r.Dir())}
		}
		return err
	}
	took := time.Since(start).Round(time.Second).String()
	if resumed, _ := r.Resumed(); resumed {
		took += fmt.Sprintf(" (%v over every process that ran it)", r.Elapsed().Round(time.Second))
	}
	fmt.Fprintf(stdout, "\nstopped   %s after %d generations, %d games, %s\n", res.Stop, res.Generations, res.Games, took)
	if res.Replayed > 0 {
		fmt.Fprintf(stdout, "journal   %d finished games taken from the journal instead of played again\n", res.Replayed)
	}
	m := t.Metric().String()
	if res.Start != nil {
		fmt.Fprintf(stdout, "start     %s %s on %d validation games (mean score %.0f ± %.0f)\n", m, fmtFitness(res.Start.Fitness), res.Start.Games, res.Start.Mean, res.Start.CI95)
	}
	if res.Final != nil && res.Final.Generation == 0 {
		// The final race kept the start: no mean beat it.
		fmt.Fprintf(stdout, "tuned     the start: it won the final race against the run's last means on games of their own, so the start stays recommended; try more generations or another sigma\n")
	} else if res.Final != nil {
		of := tuner.PointName(res.Final.Generation, res.Final.Average, res.Final.Model)
		fmt.Fprintf(stdout, "tuned     %s %s on the same games (mean score %.0f ± %.0f), %s\n", m, fmtFitness(res.Final.Fitness), res.Final.Mean, res.Final.CI95, of)
		if line := pairedSummary(cfg.Seed, res.Start, res.Final); line != "" {
			fmt.Fprintf(stdout, "gain      %s\n", line)
		}
	}
	if res.Final != nil {
		fmt.Fprintf(stdout, "weights   %s\n", fmtWeights(t, res.Final.Weights))
	}
	if pc := cfg.Player; pc != nil {
		// A player's parameters, as the line that sets them in the player,
		// and as a params file whose checks the player's moves pin.
		if fam, err := playerpool.FamilyOf(pc); err == nil && res.Final != nil {
			if line, err := playerpool.FormatSet(fam.Params, res.Final.Weights); err == nil {
				fmt.Fprintf(stdout, "set       %s\n", line)
			}
		}
		if line := pp.requests(); line != "" {
			fmt.Fprintf(stdout, "requests  %s\n", line)
		}
		path := filepath.Join(r.Dir(), tuner.WeightsFile)
		if err := writePlayerParams(ctx, t, path, stdout, pf.options("")); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "written   %s\n", path)
		fmt.Fprintf(stdout, "report    %s\n", p.reportPath)
		fmt.Fprintf(stdout, "next      evotune check %s   (starts the player and checks it makes the pinned moves)\n", path)
		fmt.Fprintf(stdout, "play      evotune play --params-file %s --games 100   (the player with these values, on fresh games)\n", path)
		printStageExports(stdout, t, r.Dir())
		return nil
	}
	fmt.Fprintf(stdout, "written   %s\n", res.WeightsPath)
	fmt.Fprintf(stdout, "report    %s\n", p.reportPath)
	fmt.Fprintf(stdout, "next      evotune play --weights %s --depth %d --games 100\n", res.WeightsPath, t.ValidationSearchConfig().Depth)
	printStageExports(stdout, t, r.Dir())
	return nil
}

// printStageExports tells, for a ladder, how to export the winner of
// each stage before the one the run ended in (that one's is the run's):
// the weights for an engine that searches as that stage did.
func printStageExports(stdout io.Writer, t *tuner.Tuner, dir string) {
	for _, st := range t.Stages()[:t.State().Stage] {
		fmt.Fprintf(stdout, "stage     evotune export %s --stage %s   (its winner, for %s, to weights-%s.yaml)\n", dir, st.Name, st.Search, st.Name)
	}
}

func fmtFitness(f float64) string {
	if f >= 100 {
		return fmt.Sprintf("%.0f", f)
	}
	return fmt.Sprintf("%.4g", f)
}

// fmtWeights writes a vector for the summary; a player's int parameter as
// the integer the player receives, not the optimizer's mean around it.
func fmtWeights(t *tuner.Tuner, w []float64) string {
	ints := map[string]bool{}
	if pc := t.Config().Player; pc != nil && pc.Declared != nil {
		for _, q := range pc.Declared.Params {
			ints[q.Name] = q.Type == "int"
		}
	}
	s := ""
	for i, name := range t.Names() {
		if i > 0 {
			s += ", "
		}
		if ints[name] {
			s += fmt.Sprintf("%s %.0f", name, math.Round(w[i]))
		} else {
			s += fmt.Sprintf("%s %.4g", name, w[i])
		}
	}
	return s
}

func describeConfig(cfg *tuner.Config, t *tuner.Tuner) string {
	gens := "no generation limit"
	if cfg.Generations > 0 {
		gens = fmt.Sprintf("%d generations", cfg.Generations)
	}
	if cfg.Duration > 0 {
		gens += fmt.Sprintf(", at most %v", time.Duration(cfg.Duration))
	}
	search := t.SearchConfig().String()
	if vs := t.ValidationSearchConfig(); vs != t.SearchConfig() {
		search += " (validated with " + vs.String() + ")"
	}
	// What the next generation plays, which noise handling may make other
	// than the games asked for.
	games := fmt.Sprintf("%d games", t.NextGames())
	if cfg.Noise.Handling {
		block, lo, hi := t.GamesBounds()
		games += " ("
		if n := t.Games(); n != t.NextGames() && t.State().Noise == nil {
			games += fmt.Sprintf("%d in whole blocks of %d; ", n, block)
		}
		games += fmt.Sprintf("noise handling: %d to %d as ranks need", lo, hi)
		if cfg.Noise.Racing {
			games += ", racing"
		}
		games += ")"
	}
	tuned := cfg.SetName
	if pc := cfg.Player; pc != nil {
		tuned, search = "player "+pc.Declared.ID+" "+pc.Declared.Version, "its own search"
	}
	method := cfg.Optimizer.Method
	var opts []string
	if cfg.Optimizer.LRAdapt {
		opts = append(opts, "learning rate adaptation")
	}
	if cfg.Optimizer.Mirrored {
		opts = append(opts, "mirrored sampling")
	}
	if cfg.Optimizer.Settle {
		opts = append(opts, "settling")
	}
	if len(opts) > 0 {
		method += " (" + strings.Join(opts, ", ") + ")"
	}
	line := fmt.Sprintf("%s on %s, %d candidates × %s, %s, %s, fitness %s, seed %d, %d workers",
		method, tuned, t.Lambda(), games, gens,
		search, cfg.Fitness.Metric, cfg.Seed, engine.Workers(cfg.Workers))
	rule, _ := tuner.RecommendationRule(cfg)
	line += ", recommending " + rule
	return line
}

// describeLadder shows a run's stages in one line: each stage's depth,
// games per candidate and budget.
func describeLadder(stages []tuner.StageConfig) string {
	s := ""
	for i, st := range stages {
		if i > 0 {
			s += " → "
		}
		var budget []string
		if st.Generations > 0 {
			budget = append(budget, fmt.Sprintf("%d gen", st.Generations))
		}
		if st.Duration > 0 {
			budget = append(budget, time.Duration(st.Duration).String())
		}
		b := strings.Join(budget, " or ")
		if b == "" {
			b = "until the end"
		}
		s += fmt.Sprintf("%d plies × %d games (%s)", st.Search.Depth, st.Games, b)
	}
	return s
}

// describeStage is the line a stage begins with: its settings and where it
// starts from.
func describeStage(t *tuner.Tuner) string {
	i, st := t.Stage()
	from := "from the starting weights"
	if i > 0 {
		from = fmt.Sprintf("from the winner of stage %d's final race", i)
		// Its figure, unless a race in this stage (a resumed run) has
		// replaced it.
		if v := t.Recommended(); v != nil && v.Stage == i-1 {
			from += fmt.Sprintf(" (%s)", fmtFitness(v.Fitness))
		}
	}
	return fmt.Sprintf("stage %d/%d %q: %s, %d × %d games, sigma %g, %s",
		i+1, len(t.Stages()), st.Name, st.Search, t.Lambda(), st.Games, st.Sigma, from)
}

// pairedSummary compares the tuned weights with the starting ones game by
// game on their common validation seeds, with the statistics of evotune
// compare: the ratio of mean scores with its 95% interval, wins and
// losses, and the verdict. It is empty when either validation did not
// record its games (a checkpoint of an older evotune) or the tuned weights
// are the starting ones.
func pairedSummary(runSeed uint64, start, final *tuner.Validation) string {
	c, ok := tuner.TunedVsStart(runSeed, start, final)
	if !ok || c.Ratio == 0 {
		return ""
	}
	return fmt.Sprintf("tuned/start mean score %.3f, 95%% CI [%.3f, %.3f], paired over %d games; tuned won %d, lost %d, tied %d: %s",
		c.Ratio, c.RatioCI95.Lo, c.RatioCI95.Hi, c.Games, c.Wins, c.Losses, c.Ties, describeVerdict(c.Verdict))
}

func describeVerdict(v stats.Verdict) string {
	switch v {
	case stats.ABetter:
		return "the tuned weights are better"
	case stats.BBetter:
		return "the starting weights are better"
	}
	return "no difference shown"
}
