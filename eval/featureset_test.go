package eval

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/evotune/evotune/engine"
)

// cells is a test set of one's own: the rank of each of the first n cells.
type cells struct{ n int }

func (m cells) Features(b engine.Board, _, dst []float64) {
	for i := range m.n {
		dst[i] = float64(b >> (4 * i) & 0xf)
	}
}

func (m cells) Compile(w, _ []float64) (engine.Evaluator, error) {
	return cellsEval{w: [2]float64{w[0], w[1]}}, nil
}

type cellsEval struct{ w [2]float64 }

func (e cellsEval) Evaluate(b engine.Board) float64 {
	return e.w[0]*float64(b&0xf) + e.w[1]*float64(b>>4&0xf)
}

func newCells() *FeatureSet {
	return &FeatureSet{
		Name:     "cells-test",
		Features: []Feature{{"a", "the rank of cell 0"}, {"b", "the rank of cell 1"}},
		Defaults: []float64{1, 2},
		Params:   []Param{{Name: "p", Default: 1, Min: 0, Max: 2}},
		Model:    cells{n: 2},
	}
}

func TestCheck(t *testing.T) {
	if err := newCells().Check(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(s *FeatureSet)
		want string
	}{
		{"bad name", func(s *FeatureSet) { s.Name = "a b" }, `name "a b"`},
		{"empty name", func(s *FeatureSet) { s.Name = "" }, `name ""`},
		{"no model", func(s *FeatureSet) { s.Model = nil }, "no Model"},
		{"no features", func(s *FeatureSet) { s.Features, s.Defaults = nil, nil }, "no features"},
		{"defaults", func(s *FeatureSet) { s.Defaults = []float64{1} }, "1 default weights for 2 features"},
		{"infinite default", func(s *FeatureSet) { s.Defaults[1] = math.Inf(1) }, "default weight of b is +Inf"},
		{"duplicate feature", func(s *FeatureSet) { s.Features[1].Name = "a" }, `feature "a": the name is used twice`},
		{"parameter named as a feature", func(s *FeatureSet) { s.Params[0].Name = "b" }, `parameter "b": the name is used twice`},
		{"bad feature name", func(s *FeatureSet) { s.Features[0].Name = "x:y" }, `feature name "x:y"`},
		{"default outside bounds", func(s *FeatureSet) { s.Params[0].Default = 3 }, "parameter p: default 3, bounds [0, 2]"},
		{"infinite bound", func(s *FeatureSet) { s.Params[0].Max = math.Inf(1) }, "want finite bounds"},
		{"scale-invariant without reference", func(s *FeatureSet) { s.ScaleInvariant = true }, "no Reference"},
		{"unknown reference", func(s *FeatureSet) { s.Reference = "c" }, `reference "c" is not a feature (features: a, b)`},
		{"non-positive reference", func(s *FeatureSet) { s.Reference, s.Defaults[0] = "a", 0 }, "reference a has default weight 0"},
		{"defaults that do not compile", func(s *FeatureSet) { s.Model = failing{} }, "the default weights do not compile: eval: bad weights: no"},
	} {
		s := newCells()
		tc.edit(s)
		err := s.Check()
		if !errors.Is(err, ErrFeatureSet) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Check() = %v, want ErrFeatureSet and %q", tc.name, err, tc.want)
		}
		if err := Register(s); !errors.Is(err, ErrFeatureSet) {
			t.Errorf("%s: Register: %v, want ErrFeatureSet", tc.name, err)
		}
	}
}

type failing struct{ cells }

func (failing) Compile(w, _ []float64) (engine.Evaluator, error) {
	return nil, errors.New("eval: bad weights: no")
}

// TestRegister registers a set of one's own: it is then known by name to
// Set, Lookup, Names and weights files, and a second set of that name is
// refused.
func TestRegister(t *testing.T) {
	s := newCells()
	s.Name = "cells-register-test"
	if err := Register(s); err != nil {
		t.Fatal(err)
	}
	defer func() { // leave the registry as the other tests expect it
		registryMu.Lock()
		registry = registry[:len(registry)-1]
		registryMu.Unlock()
	}()
	if got, err := Set(s.Name); got != s || err != nil {
		t.Errorf("Set: %v, %v", got, err)
	}
	if names := Names(); names[len(names)-1] != s.Name || names[0] != "classic" {
		t.Errorf("Names() = %v", names)
	}
	if e, err := Lookup(s.Name); err != nil || e.Evaluate(0x21) != 1*1+2*2 {
		t.Errorf("Lookup: %v", err)
	}
	if err := Register(newCells()); err != nil {
		t.Errorf("another name: %v", err)
	} else {
		registryMu.Lock()
		registry = registry[:len(registry)-1]
		registryMu.Unlock()
	}
	dup := newCells()
	dup.Name = s.Name
	if err := Register(dup); !errors.Is(err, ErrFeatureSet) || !strings.Contains(err.Error(), "registered already") {
		t.Errorf("a second set of the name: %v", err)
	}
	if err := Register(standardSet); !errors.Is(err, ErrFeatureSet) {
		t.Errorf("standard again: %v", err)
	}
	// Its weights file round-trips by name.
	wf, err := NewWeightsFile(s, []float64{3, -1}, []float64{0.5})
	if err != nil {
		t.Fatal(err)
	}
	data, err := wf.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseWeights(data, "cells.yaml")
	if err != nil || back.SetName != s.Name || back.Params[0] != 0.5 || len(back.Checks) != len(CheckBoards()) {
		t.Errorf("ParseWeights: %+v, %v", back, err)
	}
}
