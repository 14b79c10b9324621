package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

// evalFlags selects an evaluator: a named one with its default weights, or
// a weights file.
type evalFlags struct {
	fs      *flag.FlagSet
	name    string
	weights string
	file    *eval.WeightsFile // set by load when --weights is given
}

func addEvalFlags(fs *flag.FlagSet) *evalFlags {
	f := &evalFlags{fs: fs}
	fs.StringVar(&f.name, "eval", "classic", "evaluator with its default weights: "+strings.Join(eval.Names(), ", "))
	fs.StringVar(&f.weights, "weights", "", "weights file (evotune.weights/v1) to evaluate with, instead of --eval")
	return f
}

func (f *evalFlags) given(name string) bool {
	given := false
	f.fs.Visit(func(fl *flag.Flag) { given = given || fl.Name == name })
	return given
}

// load returns the evaluator and a short description of it.
func (f *evalFlags) load() (engine.Evaluator, string, error) {
	if f.weights != "" {
		if f.given("eval") {
			return nil, "", usagef("flags --eval and --weights: give one evaluator, not both")
		}
		wf, err := eval.ReadWeightsFile(f.weights)
		if err != nil {
			return nil, "", badInput(err)
		}
		c, err := wf.Compile()
		if err != nil {
			return nil, "", badInput(fmt.Errorf("%s: %w", f.weights, err))
		}
		f.file = wf
		return c, fmt.Sprintf("%s weights from %s", wf.Features, f.weights), nil
	}
	e, err := eval.Lookup(f.name)
	if err != nil {
		return nil, "", usagef("flag --eval: unknown evaluator %q (want %s)", f.name, strings.Join(eval.Names(), ", "))
	}
	return e, f.name, nil
}

// searchDefaults applies what a weights file says it was tuned for to the
// search flags the user left alone.
// searchDefaults takes the weights file's search for the flags that were
// not given, and returns the file's search (nil without one).
func (f *evalFlags) searchDefaults(depth *int, algo *string, width *int, heuristicOnly *bool) *engine.SearchConfig {
	if f.file == nil || f.file.Search == nil {
		return nil
	}
	s := f.file.Search
	if !f.given("depth") && s.Depth > 0 {
		*depth = s.Depth
	}
	if !f.given("search") && s.Algorithm != "" {
		*algo = string(s.Algorithm)
	}
	if !f.given("width") && s.Width > 0 {
		*width = s.Width
	}
	*heuristicOnly = s.HeuristicOnly
	return s
}

// checkDepth validates a --depth flag value against the one depth range
// (engine.MinDepth to engine.MaxDepth).
func checkDepth(depth int) error {
	if err := engine.CheckDepth(depth); err != nil {
		return usagef("flag --depth: %v", err)
	}
	return nil
}
