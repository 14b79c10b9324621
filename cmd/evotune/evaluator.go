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
	name string
}

func addEvalFlags(fs *flag.FlagSet) *evalFlags {
	f := &evalFlags{}
	fs.StringVar(&f.name, "eval", "classic", "evaluator: "+strings.Join(eval.Names(), ", "))
	return f
}

// load returns the evaluator and a short description of it.
func (f *evalFlags) load() (engine.Evaluator, string, error) {
	e, err := eval.Lookup(f.name)
	if err != nil {
		return nil, "", usagef("flag --eval: unknown evaluator %q (want %s)", f.name, strings.Join(eval.Names(), ", "))
	}
	return e, f.name, nil
}

// checkDepth validates a --depth flag value.
func checkDepth(depth int) error {
	if depth < 1 || depth > 255 {
		return usagef("flag --depth: %d plies: want 1 to 255", depth)
	}
	return nil
}

func describeSearch(cfg engine.SearchConfig) string {
	if cfg.Algorithm == "beam" {
		return fmt.Sprintf("beam, width %d, %d plies", cfg.Width, cfg.Depth)
	}
	return fmt.Sprintf("expectimax, %d plies", cfg.Depth)
}
