package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/evotune/evotune/tuner/playerpool"
	"github.com/evotune/evotune/tuner/tunebench"
)

var tunebenchCommand = &command{
	name:     "tunebench",
	synopsis: "[--problems LIST|all] [--config FILE | --peer CMD] [--seeds 1,2,3] [--budget CPU-S] [--full] [--short] [--workers N] [--json]",
	summary:  "time the tuner: CPU seconds and games until held-out games reach each problem's target",
	setup:    setupTunebench,
}

// defaultTunebenchProblems are the problems run without --problems: the two
// that take minutes, not hours.
const defaultTunebenchProblems = "standard-3,nneonneo-cap1"

func setupTunebench(fs *flag.FlagSet) runFunc {
	names := fs.String("problems", defaultTunebenchProblems, "comma-separated problems, or all: "+strings.Join(tunebench.Names(), ", "))
	configFile := fs.String("config", "", "tuning config `FILE` to run instead of the problem's own tuner settings (one problem; the same features, init and final search as the problem's, which keeps its target and held-out games)")
	seedList := fs.String("seeds", "1,2,3", "comma-separated run seeds, one run of each problem per seed")
	budget := fs.Float64("budget", 0, "tuning CPU seconds a run may spend before it stops unreached (0 = each problem's own)")
	full := fs.Bool("full", false, "go on after the target to the budget, for the strength a run of that budget ends with")
	short := fs.Bool("short", false, "shrink every problem to seconds (2 generations, 4 games of 40 moves, 4 held-out games): checks that it works, not how fast")
	workers := fs.Int("workers", 0, "games played at once (0 = one per core); CPU seconds count every worker")
	peer := fs.String("peer", "", "run the optimizer this `COMMAND` runs instead of evotune's tuner: it speaks the objective protocol on stdin and stdout (docs/objective.md) and is judged as the tuner is, its own CPU counted; words split as a shell splits a simple command")
	asJSON := fs.Bool("json", false, "print one JSON object, with every run's points, instead of tables")
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if len(args) > 0 {
			return usagef("unexpected argument %q (tunebench takes flags only)", args[0])
		}
		ps, err := parseProblems(*names)
		if err != nil {
			return err
		}
		if *configFile != "" {
			if len(ps) != 1 {
				return usagef("flag --config: replaces one problem's tuner settings; --problems names %d", len(ps))
			}
			if ps[0].Text, err = os.ReadFile(*configFile); err != nil {
				return badInput(fmt.Errorf("flag --config: %w", err))
			}
			ps[0].File = *configFile
			// Check it now, so that a bad file is bad input, not a failure
			// after the start's held-out games.
			if err := ps[0].Validate(); err != nil {
				return badInput(err)
			}
		}
		var peerCmd []string
		if *peer != "" {
			if *configFile != "" {
				return usagef("flag --peer: runs an optimizer of its own; leave --config out")
			}
			if peerCmd, err = playerpool.SplitCommand(*peer); err != nil {
				return usagef("flag --peer: %v", err)
			}
		}
		seeds, err := parseSeedList(*seedList)
		if err != nil {
			return err
		}
		switch {
		case math.IsNaN(*budget) || math.IsInf(*budget, 0) || *budget < 0:
			return usagef("flag --budget: %v: want 0 (each problem's) or a positive number of CPU seconds", *budget)
		case *workers < 0:
			return usagef("flag --workers: %d: want 0 (one per core) or more", *workers)
		}
		o := tunebench.Options{
			Seeds:   seeds,
			Workers: *workers,
			Budget:  time.Duration(*budget * float64(time.Second)),
			Full:    *full,
			Short:   *short,
			Peer:    peerCmd,
			Progress: func(problem string, seed uint64, p tunebench.Point) {
				unit := "gen"
				if peerCmd != nil {
					unit = "evals"
				}
				fmt.Fprintf(stderr, "%s  seed %d  %s %d  games %d  %.1f CPU s  held-out %.0f  ×%.3f\n",
					problem, seed, unit, p.Generation, p.Games, p.CPU, p.Mean, p.Ratio)
			},
		}
		res, err := tunebench.Bench(ctx, ps, o)
		if err != nil {
			return err
		}
		if *asJSON {
			return json.NewEncoder(stdout).Encode(struct {
				Short    bool               `json:"short"`
				Peer     string             `json:"peer,omitempty"`
				Full     bool               `json:"full"`
				Problems []tunebench.Result `json:"problems"`
			}{*short, *peer, *full, res})
		}
		return writeTunebenchText(stdout, ps, res)
	}
}

// parseProblems reads --problems: names, or all.
func parseProblems(list string) ([]tunebench.Problem, error) {
	if list == "all" {
		return tunebench.Problems(), nil
	}
	var ps []tunebench.Problem
	for name := range strings.SplitSeq(list, ",") {
		p, err := tunebench.Lookup(strings.TrimSpace(name))
		if err != nil {
			return nil, usagef("flag --problems: %v", err)
		}
		if slices.ContainsFunc(ps, func(q tunebench.Problem) bool { return q.Name == p.Name }) {
			return nil, usagef("flag --problems: %s named twice", p.Name)
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// parseSeedList reads --seeds: distinct unsigned integers.
func parseSeedList(list string) ([]uint64, error) {
	var seeds []uint64
	for s := range strings.SplitSeq(list, ",") {
		seed, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return nil, usagef("flag --seeds: %q: want comma-separated unsigned integers such as 1,2,3", s)
		}
		if slices.Contains(seeds, seed) {
			return nil, usagef("flag --seeds: %d named twice", seed)
		}
		seeds = append(seeds, seed)
	}
	return seeds, nil
}

func writeTunebenchText(w io.Writer, ps []tunebench.Problem, res []tunebench.Result) error {
	for i, r := range res {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s: %s\n", r.Problem, ps[i].Summary)
		if r.Config != "" {
			fmt.Fprintf(w, "tuner settings from %s instead of the problem's own\n", r.Config)
		}
		unit := "gen"
		if r.Peer != "" {
			fmt.Fprintf(w, "optimizer: %s (evals: its requests for games)\n", r.Peer)
			unit = "evals"
		}
		fmt.Fprintf(w, "target ×%.2f the start's %.0f on %d held-out games; budget %.0f CPU s a run\n\n",
			r.Target, r.Start, r.HeldOut, r.Budget)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		// Two groups: when the target was first met, and where the run ended.
		fmt.Fprint(tw, "\tto target:\t\t\tfinal:\t\t\t\t\t\t\n")
		fmt.Fprintf(tw, "seed\tCPU s\tgames\t%s\tratio\t95%% CI\tmean\t%[1]s\tCPU s\tstop\t\n", unit)
		for _, run := range r.Runs {
			cpu, games, gen := "-", "-", "-"
			if p := run.Reached; p != nil {
				cpu, games, gen = fmt.Sprintf("%.1f", p.CPU), strconv.FormatInt(p.Games, 10), strconv.Itoa(p.Generation)
			}
			f := run.Final
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t×%.3f\t[%.3f, %.3f]\t%.0f\t%d\t%.1f\t%s\t\n",
				run.Seed, cpu, games, gen, f.Ratio, f.RatioCI95[0], f.RatioCI95[1], f.Mean, f.Generation, f.CPU, run.Stop)
		}
		cpu, games := "not reached", "-"
		if r.MedianCPU != nil {
			cpu, games = fmt.Sprintf("%.1f", *r.MedianCPU), fmt.Sprintf("%.0f", *r.MedianGames)
		}
		fmt.Fprintf(tw, "median\t%s\t%s\t\t×%.3f\t\t\t\t\t\t\n", cpu, games, r.MedianFinal)
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(w, "reached %d of %d runs\n", r.Reached, len(r.Runs))
	}
	return nil
}
