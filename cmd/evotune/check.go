package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/evotune/evotune/eval"
)

var checkCommand = &command{
	name:     "check",
	synopsis: "FILE [--format text|cpp] [--player COMMAND] | --player COMMAND",
	summary:  "verify a weights file: format, features and golden checks (a params file: the player's moves); --format cpp prints a nneonneo file as 2048.cpp constants; --player: the compliance check of an external player",
	setup: func(fs *flag.FlagSet) func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		format := fs.String("format", "text", "text: what the file holds and its checks; cpp: the constants of 2048.cpp (nneonneo/2048-ai) for a nneonneo file")
		player := fs.String("player", "", "alone: run the compliance check of the external player this `COMMAND` runs (words split as for tune --player): its handshake, legal and deterministic moves, speed, errors, quit, one line per point; with a params file: run this command instead of the file's")
		timeouts := addPlayerFlags(fs, false)
		return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
			if err := timeouts.check(); err != nil {
				return err
			}
			if *player != "" && len(args) == 0 {
				return complianceCommand(ctx, *player, stdout, timeouts.options(""))
			}
			if len(args) != 1 {
				return usagef("want one weights file, got %d arguments (usage: evotune check FILE [--format text|cpp])", len(args))
			}
			if *format != "text" && *format != "cpp" {
				return usagef("flag --format: unknown format %q (want text or cpp)", *format)
			}
			if pf, ok, err := readParamsFile(args[0]); ok {
				if err != nil {
					return badInput(err)
				}
				if *format != "text" {
					return usagef("flag --format %s: %s is a params file of a player, not a nneonneo weights file", *format, args[0])
				}
				return checkParams(ctx, stdout, args[0], pf, *player, timeouts.options(""))
			}
			if *player != "" {
				return usagef("flag --player: %s is not a params file of a player; check --player COMMAND alone runs the compliance check", args[0])
			}
			// Every failure to read or verify the file is bad input: a
			// missing file, a malformed one, or a check not reproduced.
			wf, err := eval.ReadWeightsFile(args[0])
			if err != nil {
				return badInput(err)
			}
			if *format == "cpp" {
				block, err := cppBlock(wf, args[0], nil)
				if err != nil {
					return badInput(err)
				}
				_, err = io.WriteString(stdout, block)
				return err
			}
			return printWeightsFile(stdout, args[0], wf)
		}
	},
}

// printWeightsFile reports what a verified weights file holds.
func printWeightsFile(w io.Writer, path string, wf *eval.WeightsFile) error {
	set, err := wf.Set()
	if err != nil {
		return err
	}
	names := set.FeatureNames()
	var b strings.Builder
	fmt.Fprintf(&b, "file:        %s\n", path)
	fmt.Fprintf(&b, "format:      %s\n", wf.Format)
	fmt.Fprintf(&b, "features:    %s (%s)\n", set.Name, strings.Join(names, ", "))
	weights := make([]string, len(names))
	for i, n := range names {
		weights[i] = n + " " + num(wf.Weights[i])
	}
	fmt.Fprintf(&b, "weights:     %s\n", strings.Join(weights, ", "))
	if len(set.Params) > 0 {
		p, what := wf.Params, ""
		if p == nil {
			p, what = set.DefaultParams(), " (the defaults: the file has none)"
		}
		params := make([]string, len(p))
		for i, q := range set.Params {
			params[i] = q.Name + " " + num(p[i])
		}
		fmt.Fprintf(&b, "params:      %s%s\n", strings.Join(params, ", "), what)
	}
	if s := wf.Search; s != nil {
		// A port must know whether to add move scores, so the check says
		// so either way.
		line := s.String()
		if s.ScoresMoves() {
			line += ", move scores added"
		}
		fmt.Fprintf(&b, "search:      %s\n", line)
	}
	writeProvenance(&b, wf.Provenance, "starting weights")
	if len(wf.Checks) == 0 {
		fmt.Fprintf(&b, "checks:      none in the file: format and weights verified, no golden values to reproduce\n")
	} else {
		fmt.Fprintf(&b, "checks:      %d of %d reproduced (features exactly, values within %g relative)\n",
			len(wf.Checks), len(wf.Checks), eval.CheckTolerance)

		for _, c := range wf.Checks {
			fmt.Fprintf(&b, "  ok  line %-4d %s  value %-12s %s\n", c.Line, c.Board.Hex(), num(c.Value), c.Board)
		}
	}
	_, err = io.WriteString(w, b.String())
	return err
}

func fitness(f *eval.Fitness) string {
	s := f.Metric + " " + num(f.Mean)
	if f.CI95 != 0 {
		s += " ± " + num(f.CI95)
	}
	if f.Games != 0 {
		s += fmt.Sprintf(" over %d games", f.Games)
	}
	if r := f.Seeds; r != nil {
		s += fmt.Sprintf(" (game indices %d to %d)", r.First, r.First+uint64(r.Count)-1)
	}
	return s
}

// num prints a float the way the weights file does.
func num(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// writeProvenance writes the lines of a file's provenance, if it has one.
func writeProvenance(b *strings.Builder, p *eval.Provenance, start string) {
	if p == nil {
		return
	}
	var parts []string
	if p.Run != "" {
		parts = append(parts, "run "+p.Run)
	}
	if p.Generation != 0 {
		parts = append(parts, fmt.Sprintf("generation %d", p.Generation))
	}
	if p.Optimizer != "" {
		parts = append(parts, p.Optimizer)
	}
	if p.Seed != 0 {
		parts = append(parts, fmt.Sprintf("seed %d", p.Seed))
	}
	if p.Evaluations != 0 {
		parts = append(parts, fmt.Sprintf("%d evaluations", p.Evaluations))
	}
	if len(parts) > 0 {
		fmt.Fprintf(b, "provenance:  %s\n", strings.Join(parts, ", "))
	}
	if p.Fitness != nil {
		fmt.Fprintf(b, "fitness:     %s\n", fitness(p.Fitness))
	}
	if p.Baseline != nil {
		fmt.Fprintf(b, "baseline:    %s, %s\n", start, fitness(p.Baseline))
	}

}
