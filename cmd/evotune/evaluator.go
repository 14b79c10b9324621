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
	fs.StringVar(&f.weights, "weights", "", "weights file (evotune.weights/v1 or v2) to evaluate with, instead of --eval")
	return f
}

func (f *evalFlags) given(name string) bool { return flagGiven(f.fs, name) }

// load returns the evaluator and a short description of it.
func (f *evalFlags) load() (engine.Evaluator, string, error) {
	if f.weights != "" {
		if f.given("eval") {
			return nil, "", usagef("flags --eval and --weights: give one evaluator, not both")
		}
		if _, ok, _ := readParamsFile(f.weights); ok {
			return nil, "", usagef("flag --weights: %s is the params file of an external player, not a feature set's weights: play it with evotune play --params-file %s, compare it with evotune compare %s B", f.weights, f.weights, f.weights)
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
		return c, fmt.Sprintf("%s weights from %s", wf.SetName, f.weights), nil
	}
	e, err := eval.Lookup(f.name)
	if err != nil {
		return nil, "", usagef("flag --eval: unknown evaluator %q (want %s)", f.name, strings.Join(eval.Names(), ", "))
	}
	return e, f.name, nil
}

// fileSearch returns the search the weights file records, nil without a
// weights file or a search in it. Call it after load.
func (f *evalFlags) fileSearch() *engine.SearchConfig {
	if f.file == nil {
		return nil
	}
	return f.file.Search
}
