package population

import (
	"fmt"
	"strings"
)

// Method names an optimizer. The names are stable: configs, checkpoints'
// provenance and optbench output carry them.
type Method string

// The methods.
const (
	MethodCMAES Method = "cmaes" // CMAES, the default
	MethodCEM   Method = "cem"   // CEM
)

// Methods lists every method, the default first.
var Methods = []Method{MethodCMAES, MethodCEM}

// ParseMethod accepts the name of a method; the error for any other string
// lists the names allowed.
func ParseMethod(s string) (Method, error) {
	for _, m := range Methods {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("%w: method %q: must be %s", ErrConfig, s, MethodList())
}

// MethodList is the names of Methods for messages: "cmaes or cem".
func MethodList() string {
	names := make([]string, len(Methods))
	for i, m := range Methods {
		names[i] = string(m)
	}
	return strings.Join(names, " or ")
}

// Options holds what belongs to one method only. Each method reads its own
// fields and ignores the other's, so that one settings struct (the tuner's,
// whose elite fraction always has a value) serves both.
type Options struct {
	// Elite is CEM's elite fraction, CEMConfig.Elite (0 = its default).
	Elite float64
	// Active turns on CMA-ES's active update, CMAESConfig.Active.
	Active bool
	// LRA turns on CMA-ES's learning rate adaptation, CMAESConfig.LRA.
	LRA bool
	// Mirrored turns on CMA-ES's mirrored sampling, CMAESConfig.Mirrored.
	Mirrored bool
	// Settle turns on CMA-ES's settling, CMAESConfig.Settle.
	Settle bool
}

// New validates cfg and returns the optimizer of method m at generation 0:
// NewCMAES or NewCEM with cfg and the method's fields of opts, the others
// at their defaults.
func New(m Method, cfg Config, opts Options) (Optimizer, error) {
	switch m {
	case MethodCMAES:
		o, err := NewCMAES(CMAESConfig{Config: cfg, Active: opts.Active, LRA: opts.LRA, Mirrored: opts.Mirrored, Settle: opts.Settle})
		if err != nil {
			return nil, err
		}
		return o, nil
	case MethodCEM:
		o, err := NewCEM(CEMConfig{Config: cfg, Elite: opts.Elite})
		if err != nil {
			return nil, err
		}
		return o, nil
	}
	_, err := ParseMethod(string(m))
	return nil, err
}
