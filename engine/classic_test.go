package engine_test

import (
	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

// classic is the classic feature set with its default weights, the fixed
// reference evaluator of DESIGN.md: the engine's tests and benchmarks
// search with it.
var classic = func() engine.Evaluator {
	e, err := eval.Lookup("classic")
	if err != nil {
		panic(err)
	}
	return e
}()
