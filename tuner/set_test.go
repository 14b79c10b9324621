package tuner

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

// emptyModel is the simplest set of one's own: the number of empty cells.
type emptyModel struct{}

func (emptyModel) Features(b engine.Board, _, dst []float64) { dst[0] = float64(b.CountEmpty()) }

func (emptyModel) Compile(w, _ []float64) (engine.Evaluator, error) {
	return emptyEval(w[0]), nil
}

type emptyEval float64

func (e emptyEval) Evaluate(b engine.Board) float64 { return float64(e) * float64(b.CountEmpty()) }

func unregisteredSet() *eval.FeatureSet {
	return &eval.FeatureSet{
		Name:     "empty-only",
		Features: []eval.Feature{{Name: "empty", Definition: "the number of empty cells"}},
		Defaults: []float64{10},
		Model:    emptyModel{},
	}
}

// TestConfigSet tunes a set that is not registered, given in the config,
// and checks that the config names it and refuses a set that is not well
// formed or a name that is not the set's.
func TestConfigSet(t *testing.T) {
	set := unregisteredSet()
	cfg := &Config{Set: set, Generations: 1, Search: engine.SearchConfig{Depth: 1},
		Fitness: FitnessConfig{Games: 2}, Validation: ValidationConfig{Games: 2}, Optimizer: OptimizerConfig{Population: 2}}
	cfg.Resolve()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if cfg.SetName != "empty-only" || cfg.Init["empty"] != 10 {
		t.Errorf("resolved: features %q, init %v", cfg.SetName, cfg.Init)
	}
	tu, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tu.Set() != set {
		t.Error("the tuner does not tune the config's set")
	}
	ctx := context.Background()
	if err := tu.ValidateStart(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := tu.Step(ctx, func() time.Duration { return 0 }); err != nil {
		t.Fatal(err)
	}
	if tu.Finished() == "" || tu.State().Games == 0 {
		t.Errorf("done %q after %d games", tu.Finished(), tu.State().Games)
	}

	bad := *cfg
	bad.SetName = "standard"
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), `"standard", but the config's feature set is empty-only`) {
		t.Errorf("a name that is not the set's: %v", err)
	}
	broken := unregisteredSet()
	broken.Defaults = nil
	bad = *cfg
	bad.Set = broken
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "0 default weights for 1 features") {
		t.Errorf("a set that is not well formed: %v", err)
	}
}
