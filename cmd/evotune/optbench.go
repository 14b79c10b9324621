package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/evotune/evotune/population"
)

var optbenchCommand = &command{
	name:     "optbench",
	synopsis: "--optimizer cmaes|cem --function sphere|ellipsoid|rosenbrock|rastrigin --dim N [flags]",
	summary:  "benchmark the optimizers on standard test functions",
	setup:    setupOptbench,
}

// optbenchJSON is the stable --json output (DESIGN.md).
type optbenchJSON struct {
	Optimizer         population.Method `json:"optimizer"`
	Function          string            `json:"function"`
	Dim               int               `json:"dim"`
	Target            float64           `json:"target"`
	Runs              []optbenchRunJSON `json:"runs"`
	Successes         int               `json:"successes"`
	MedianEvaluations *float64          `json:"median_evaluations"` // null when more than half the runs failed
}

type optbenchRunJSON struct {
	Seed        uint64   `json:"seed"`
	Evaluations int      `json:"evaluations"`
	Best        *float64 `json:"best"` // null if not finite
	Success     bool     `json:"success"`
}

func setupOptbench(fs *flag.FlagSet) func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	optimizer := fs.String("optimizer", "", "optimizer: "+population.MethodList()+" (required)")
	function := fs.String("function", "", "benchmark function: "+strings.Join(population.FunctionNames, ", ")+" (required)")
	dim := fs.Int("dim", 0, "dimension N of the search space, 1 to 1000 (2 or more for rosenbrock) (required)")
	runs := fs.Int("runs", 21, "number of independent runs, 1 to 10000")
	target := fs.Float64("target", 1e-8, "a run succeeds once it evaluates a point with f below this (f* = 0); positive")
	restarts := fs.String("restarts", "none", "restart strategy: none or ipop (population doubled per restart)")
	seed := fs.Uint64("seed", 1, "benchmark seed; run r uses splitmix64(splitmix64(seed)+r)")
	maxEvals := fs.Int("max-evals", 0, "evaluation budget per run, in function evaluations (0 = 100000·N)")
	active := fs.Bool("active", false, "cmaes only: active covariance update (negative weights)")
	asJSON := fs.Bool("json", false, "print one JSON object instead of tables")

	return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if len(args) > 0 {
			return usagef("unexpected argument %q (optbench takes flags only)", args[0])
		}
		method, methodErr := population.ParseMethod(*optimizer)
		cfg := population.BenchConfig{
			Optimizer: method,
			Function:  *function,
			Dim:       *dim,
			Runs:      *runs,
			Target:    *target,
			Seed:      *seed,
			MaxEvals:  *maxEvals,
			Active:    *active,
		}
		switch {
		case *optimizer == "":
			return usagef("--optimizer is required: %s", population.MethodList())
		case methodErr != nil:
			return usagef("--optimizer %q: must be %s", *optimizer, population.MethodList())
		case *function == "":
			return usagef("--function is required: %s", strings.Join(population.FunctionNames, ", "))
		case !slices.Contains(population.FunctionNames, *function):
			return usagef("--function %q: must be one of %s", *function, strings.Join(population.FunctionNames, ", "))
		case *dim < 1 || *dim > 1000:
			return usagef("--dim %d: must be 1 to 1000 (the dimension is required)", *dim)
		case *function == "rosenbrock" && *dim < 2:
			return usagef("--dim %d: rosenbrock needs 2 or more", *dim)
		case *runs < 1 || *runs > 10000:
			return usagef("--runs %d: must be 1 to 10000", *runs)
		case math.IsNaN(*target) || math.IsInf(*target, 0) || *target <= 0:
			return usagef("--target %v: must be a positive number", *target)
		case *maxEvals < 0:
			return usagef("--max-evals %d: must be 0 (default) or positive", *maxEvals)
		case *active && method != population.MethodCMAES:
			return usagef("--active applies to --optimizer cmaes only")
		}
		r, err := population.ParseRestarts(*restarts)
		if err != nil {
			return usagef("--restarts %q: must be none or ipop", *restarts)
		}
		cfg.Restarts = r
		res, err := population.RunBench(ctx, cfg)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeOptbenchJSON(stdout, res)
		}
		return writeOptbenchText(stdout, res)
	}
}

func writeOptbenchJSON(w io.Writer, res *population.BenchResult) error {
	out := optbenchJSON{
		Optimizer: res.Config.Optimizer,
		Function:  res.Config.Function,
		Dim:       res.Config.Dim,
		Target:    res.Config.Target,
		Runs:      make([]optbenchRunJSON, len(res.Runs)),
		Successes: res.Successes,
	}
	for i, r := range res.Runs {
		out.Runs[i] = optbenchRunJSON{Seed: r.Seed, Evaluations: r.Evaluations, Success: r.Success}
		if !math.IsInf(r.Best, 0) && !math.IsNaN(r.Best) {
			b := r.Best
			out.Runs[i].Best = &b
		}
	}
	if !math.IsInf(res.MedianEvaluations, 0) {
		m := res.MedianEvaluations
		out.MedianEvaluations = &m
	}
	enc := json.NewEncoder(w)
	return enc.Encode(out)
}

func writeOptbenchText(w io.Writer, res *population.BenchResult) error {
	c := res.Config
	extra := ""
	if c.Active {
		extra = ", active"
	}
	fmt.Fprintf(w, "%s on %s, dim %d, target %g, restarts %s%s, max evals %d per run\n\n",
		c.Optimizer, c.Function, c.Dim, c.Target, c.Restarts, extra, c.MaxEvals)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "run\tseed\tevaluations\tbest f\trestarts\tstop\tsuccess\t\n")
	for i, r := range res.Runs {
		ok := "no"
		if r.Success {
			ok = "yes"
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t%.3g\t%d\t%s\t%s\t\n", i, r.Seed, r.Evaluations, r.Best, r.Restarts, r.Stop, ok)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	median := "- (more than half the runs failed)"
	if !math.IsInf(res.MedianEvaluations, 0) {
		median = fmt.Sprintf("%g", res.MedianEvaluations)
	}
	_, err := fmt.Fprintf(w, "\nsuccesses %d/%d, median evaluations %s\n", res.Successes, len(res.Runs), median)
	return err
}
