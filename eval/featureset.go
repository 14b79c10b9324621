package eval

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/evotune/evotune/engine"
)

// A Feature is one named term of a feature set.
type Feature struct {
	Name string
	// Definition says, precisely enough for another engine to implement it,
	// what the feature computes. docs/weights-file.md, "Feature definitions", repeats it for the built-in sets.
	Definition string
}

// A Param is a shape parameter of a feature set: a number that changes the
// features themselves (an exponent, say) rather than weighting them. A tuner
// tunes parameters together with the weights, within their bounds.
type Param struct {
	Name       string
	Definition string  // what it changes, for docs and listings
	Default    float64 // the hand-set value
	Min, Max   float64 // inclusive bounds; Min <= Default <= Max
}

// A Model is the code behind a feature set: it computes the features of a
// board and compiles a weight vector into an evaluator. The built-in sets
// implement it in this package; a set of one's own implements it in one's
// own package. Neither method is on a search's hot path: Compile runs once
// per candidate, Features for golden checks, versions and tests.
//
// The FeatureSet validates what it passes: w has one finite weight per
// feature, p one value per parameter within its bounds (empty for a set
// without parameters). A Model must not keep w or p.
type Model interface {
	// Features stores in dst, one value per feature in order, the features
	// of b under the shape parameters p.
	Features(b engine.Board, p, dst []float64)
	// Compile returns an evaluator of Σ w[i]·feature[i](b) under p. The
	// evaluator is shared between goroutines, so it must be safe for
	// concurrent use, and it runs at every leaf of every search, so its
	// Evaluate should not allocate (fold the weights into tables here,
	// once). An error rejects values the model cannot represent; it should
	// wrap ErrWeights or ErrParams and name the set.
	Compile(w, p []float64) (engine.Evaluator, error)
}

// A FeatureSet is a name, an ordered list of features and the Model that
// computes them. A weight vector for the set has one weight per feature, in
// the same order, and its evaluation of a board is Σ w[i]·feature[i](board).
// A set may also declare shape parameters (Params): then the features depend
// on a parameter vector p, one value per Param in order, and a candidate is
// the pair (w, p), compiled together by CompileParams.
//
// A set is written as a literal, checked by Check and made known to Set,
// Lookup, configs and weights files by Register; the built-in sets are made
// the same way. Once checked, a FeatureSet is immutable: do not modify it or
// its slices. It is safe for concurrent use.
type FeatureSet struct {
	Name     string // letters, digits, '.', '_' and '-': it is written in configs and weights files
	Summary  string // one line, for listings
	Features []Feature
	// Defaults is the hand-set starting weight vector: the baseline a tuned
	// vector has to beat.
	Defaults []float64
	// Params lists the shape parameters, usually none.
	Params []Param
	// Symmetric says every feature, hence every evaluation, is invariant
	// under the 8 symmetries of the board (the built-in sets' tests check
	// it).
	Symmetric bool
	// ScaleInvariant says the evaluation is linear in the weights:
	// multiplying every weight by k > 0 multiplies every value by k and so
	// changes no decision of a search that scores leaves by the evaluation
	// alone. A search that adds move scores to leaf values breaks this: then
	// the scale of the weights matters and must be tuned. A scale-invariant
	// set names its Reference.
	ScaleInvariant bool
	// Reference names the feature whose weight a tuner holds fixed at its
	// default when the set is ScaleInvariant and the search does not add
	// move scores: then only the directions of weight vectors matter, and
	// tuning all of them wastes a dimension on scale. It is a feature with a
	// positive default weight that no sensible vector makes negative (empty
	// cells, for the built-in sets). See Normalize.
	Reference string
	// WeightLimit is the largest magnitude a weight may have where the
	// model holds weights in a narrower type than float64 (the nneonneo
	// set's float32, as the program's constants are); 0 means any finite
	// weight. Compiling a weight beyond it fails.
	WeightLimit float64
	// Model computes the features and compiles weights.
	Model Model

	// def is derived once from the description, on first use.
	def struct {
		once   sync.Once
		params []float64
		e      engine.Evaluator // the defaults compiled; nil if they fail to
		err    error
	}
	version struct {
		once sync.Once
		v    string
	}
}

// Index returns the position of the named feature, or -1.
func (s *FeatureSet) Index(name string) int {
	for i, f := range s.Features {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// FeatureNames returns the names of the features, in order.
func (s *FeatureSet) FeatureNames() []string {
	names := make([]string, len(s.Features))
	for i, f := range s.Features {
		names[i] = f.Name
	}
	return names
}

// ReferenceIndex returns the position of the Reference feature, or -1 for a
// set without one.
func (s *FeatureSet) ReferenceIndex() int {
	if s.Reference == "" {
		return -1
	}
	return s.Index(s.Reference)
}

// Normalize returns a new vector, w multiplied by the positive constant that
// brings the reference weight to its default value. Use it only when scale
// does not matter (ScaleInvariant and a search that does not add move
// scores): then it changes no decision, and it makes vectors comparable. It
// fails if w does not fit the set, the set has no reference, or w's
// reference weight is not positive.
func (s *FeatureSet) Normalize(w []float64) ([]float64, error) {
	if err := s.Validate(w); err != nil {
		return nil, err
	}
	r := s.ReferenceIndex()
	if r < 0 {
		return nil, fmt.Errorf("%w: %s: cannot normalise: the set has no reference feature", ErrWeights, s.Name)
	}
	ref := w[r]
	if !(ref > 0) {
		return nil, fmt.Errorf("%w: %s: cannot normalise: reference weight %s is %g, want > 0",
			ErrWeights, s.Name, s.Features[r].Name, ref)
	}
	k := s.Defaults[r] / ref
	out := make([]float64, len(w))
	for i, x := range w {
		out[i] = x * k
	}
	out[r] = s.Defaults[r] // exact, whatever the rounding of k
	return out, nil
}

// Validate reports whether w is a weight vector for s: one finite weight
// per feature.
func (s *FeatureSet) Validate(w []float64) error {
	if len(w) != len(s.Features) {
		return fmt.Errorf("%w: %s has %d features, got %d weights", ErrWeights, s.Name, len(s.Features), len(w))
	}
	for i, x := range w {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%w: %s: weight of %s is %g, want a finite number", ErrWeights, s.Name, s.Features[i].Name, x)
		}
	}
	return nil
}

// ParamNames returns the names of the shape parameters, in order.
func (s *FeatureSet) ParamNames() []string {
	names := make([]string, len(s.Params))
	for i, p := range s.Params {
		names[i] = p.Name
	}
	return names
}

// ParamIndex returns the position of the named parameter, or -1.
func (s *FeatureSet) ParamIndex(name string) int {
	for i, p := range s.Params {
		if p.Name == name {
			return i
		}
	}
	return -1
}

// DefaultParams returns a new vector of the parameters' defaults (empty for
// a set without parameters).
func (s *FeatureSet) DefaultParams() []float64 {
	p := make([]float64, len(s.Params))
	for i, x := range s.Params {
		p[i] = x.Default
	}
	return p
}

// ValidateParams reports whether p is a parameter vector for s: one finite
// value per parameter, within its bounds.
func (s *FeatureSet) ValidateParams(p []float64) error {
	if len(p) != len(s.Params) {
		return fmt.Errorf("%w: %s has %d parameters, got %d values", ErrParams, s.Name, len(s.Params), len(p))
	}
	for i, x := range p {
		if q := s.Params[i]; !(x >= q.Min && x <= q.Max) { // NaN fails too
			return fmt.Errorf("%w: %s: parameter %s is %g, want a number in [%g, %g]", ErrParams, s.Name, q.Name, x, q.Min, q.Max)
		}
	}
	return nil
}

// params returns p, or the default parameters if p is nil, without
// allocating.
func (s *FeatureSet) params(p []float64) []float64 {
	if p != nil || len(s.Params) == 0 {
		return p
	}
	s.def.once.Do(s.compileDefaults)
	return s.def.params
}

// compileDefaults compiles the default weights and parameters, once.
func (s *FeatureSet) compileDefaults() {
	s.def.params = s.DefaultParams()
	s.def.e, s.def.err = s.CompileParams(s.Defaults, s.def.params)
}

// FeatureVector stores the feature vector of b under the shape parameters p
// (nil: the defaults; validated by the caller) in dst, reusing dst's storage
// when it is large enough, and returns it. The values do not depend on the
// weights.
func (s *FeatureSet) FeatureVector(b engine.Board, p, dst []float64) []float64 {
	n := len(s.Features)
	if cap(dst) < n {
		dst = make([]float64, n)
	}
	dst = dst[:n]
	s.Model.Features(b, s.params(p), dst)
	return dst
}

// Value returns Σ w[i]·f[i] summed in feature order: the weighted value of a
// feature vector, as the golden checks of weights files state it.
func Value(w, f []float64) float64 {
	v := 0.0
	for i := range w {
		v += w[i] * f[i]
	}
	return v
}

// Compile turns a weight vector into an evaluator: for the built-in sets,
// the weights folded into row tables, built once (about a millisecond). A
// set with parameters gets its default parameters.
func (s *FeatureSet) Compile(w []float64) (engine.Evaluator, error) {
	return s.CompileParams(w, nil)
}

// CompileParams is Compile with the shape parameters p (nil means the
// defaults): what a tuner calls for a candidate (w, p) of a set with
// parameters. It validates w and p before the Model sees them.
func (s *FeatureSet) CompileParams(w, p []float64) (engine.Evaluator, error) {
	if err := s.Validate(w); err != nil {
		return nil, err
	}
	if p == nil {
		p = s.DefaultParams()
	}
	if err := s.ValidateParams(p); err != nil {
		return nil, err
	}
	e, err := s.Model.Compile(w, p)
	if err != nil {
		return nil, err
	}
	if e == nil {
		return nil, fmt.Errorf("eval: %s: the model compiled no evaluator", s.Name)
	}
	return e, nil
}

// Default returns s compiled with its default weights and parameters,
// compiled on first use and shared afterwards. A set that passes Check has
// defaults that compile; Default panics on one that does not.
func (s *FeatureSet) Default() engine.Evaluator {
	s.def.once.Do(s.compileDefaults)
	if s.def.err != nil {
		panic(fmt.Sprintf("eval: default weights of %s do not compile: %v", s.Name, s.def.err))
	}
	return s.def.e
}

// VectorNames returns the names of a tuning vector's coordinates: the
// features, then the shape parameters. A tuner works on such vectors, so
// that weights and parameters are tuned together.
func (s *FeatureSet) VectorNames() []string {
	return append(s.FeatureNames(), s.ParamNames()...)
}

// DefaultVector returns a new tuning vector of the defaults: the weights,
// then the parameters.
func (s *FeatureSet) DefaultVector() []float64 {
	return append(slices.Clone(s.Defaults), s.DefaultParams()...)
}

// SplitVector splits a tuning vector into its weights and its parameters
// (nil for a set without parameters); the slices share v's storage.
func (s *FeatureSet) SplitVector(v []float64) (w, p []float64, err error) {
	if len(v) != len(s.Features)+len(s.Params) {
		return nil, nil, fmt.Errorf("%w: %s has %d weights and %d parameters, got a vector of %d values", ErrWeights, s.Name, len(s.Features), len(s.Params), len(v))
	}
	w, p = v[:len(s.Features)], v[len(s.Features):]
	if len(p) == 0 {
		p = nil
	}
	return w, p, nil
}

// CompileVector compiles a tuning vector (weights, then parameters): what a
// game pool calls for a candidate.
func (s *FeatureSet) CompileVector(v []float64) (engine.Evaluator, error) {
	w, p, err := s.SplitVector(v)
	if err != nil {
		return nil, err
	}
	return s.CompileParams(w, p)
}
