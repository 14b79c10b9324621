package population

import (
	"bytes"
	"testing"
)

func TestParseMethod(t *testing.T) {
	for _, m := range Methods {
		got, err := ParseMethod(string(m))
		if err != nil || got != m {
			t.Errorf("ParseMethod(%q) = %q, %v", m, got, err)
		}
	}
	for _, s := range []string{"", "pso", "CMAES", "cma-es"} {
		_, err := ParseMethod(s)
		if !errorsIs(err, ErrConfig) || !contains(err.Error(), "must be cmaes or cem") {
			t.Errorf("ParseMethod(%q): %v, want an ErrConfig listing the methods", s, err)
		}
	}
}

// TestNew checks that New builds exactly what the method's own constructor
// builds, with the method's options and without the other method's.
func TestNew(t *testing.T) {
	cfg := Config{X0: []float64{1, -2, 3}, Seed: 5}
	opts := Options{Elite: 0.5, Active: true}
	a, err := NewCMAES(CMAESConfig{Config: cfg, Active: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCEM(CEMConfig{Config: cfg, Elite: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []Optimizer{a, c} {
		got, err := New(want.Method(), cfg, opts)
		if err != nil {
			t.Fatal(err)
		}
		if got.Method() != want.Method() || !bytes.Equal(mustMarshal(got), mustMarshal(want)) {
			t.Errorf("New(%q) differs from the method's constructor", want.Method())
		}
	}
	if o, err := New("pso", cfg, opts); o != nil || !errorsIs(err, ErrConfig) {
		t.Errorf("New(pso) = %v, %v", o, err)
	}
	for _, m := range Methods {
		if o, err := New(m, Config{}, opts); o != nil || !errorsIs(err, ErrConfig) {
			t.Errorf("New(%q) with an empty config = %v, %v; want a nil Optimizer and an error", m, o, err)
		}
	}
}
