package eval

import (
	"errors"
	"slices"
	"testing"
)

func TestTuningVector(t *testing.T) {
	for _, s := range registry {
		v := s.DefaultVector()
		if got, want := s.VectorNames(), append(s.FeatureNames(), s.ParamNames()...); !slices.Equal(got, want) || len(v) != len(want) {
			t.Fatalf("%s: names %v, defaults %v", s.Name, got, v)
		}
		w, p, err := s.SplitVector(v)
		if err != nil || !slices.Equal(w, s.Defaults) || !slices.Equal(p, s.DefaultParams()) && len(s.Params) > 0 {
			t.Fatalf("%s: SplitVector(%v) = %v, %v, %v", s.Name, v, w, p, err)
		}
		if len(s.Params) == 0 && p != nil {
			t.Errorf("%s: parameters %v of a set without any, want nil", s.Name, p)
		}
		// A vector compiles to what its weights and parameters compile to.
		v[0] *= 1.5
		if len(s.Params) > 0 {
			v[len(v)-1] = (s.Params[len(s.Params)-1].Min + s.Params[len(s.Params)-1].Max) / 2
		}
		c, err := s.CompileVector(v)
		if err != nil {
			t.Fatal(err)
		}
		w, p, _ = s.SplitVector(v)
		ref, err := s.CompileParams(w, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range gameBoards(1) {
			if c.Evaluate(b) != ref.Evaluate(b) {
				t.Fatalf("%s: %s: CompileVector %v, CompileParams %v", s.Name, b, c.Evaluate(b), ref.Evaluate(b))
			}
		}
		if _, err := s.CompileVector(v[:len(v)-1]); !errors.Is(err, ErrWeights) {
			t.Errorf("%s: a vector one short: err = %v, want ErrWeights", s.Name, err)
		}
	}
}
