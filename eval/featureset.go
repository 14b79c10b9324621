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
	// what the feature computes. The README's "Feature definitions" repeats it.
	Definition string
}

// A Param is a shape parameter of a feature set: a number that changes the
// features themselves (an exponent, say) rather than weighting them. A tuner
// tunes parameters together with the weights, within their bounds.
type Param struct {
	Name       string
	Definition string  // what it changes, for the README and listings
	Default    float64 // the hand-set value
	Min, Max   float64 // inclusive bounds; Min <= Default <= Max
}

// A FeatureSet is a name and an ordered list of features. A weight vector
// for the set has one weight per feature, in the same order, and its
// evaluation of a board is Σ w[i]·feature[i](board). A set may also declare
// shape parameters (Params): then the features depend on a parameter vector
// p, one value per Param in order, and a candidate is the pair (w, p),
// compiled together by CompileParams.
//
// A FeatureSet is immutable and safe for concurrent use; get one from Set.
type FeatureSet struct {
	Name     string
	Summary  string // one line, for listings
	Features []Feature
	// Defaults is the hand-set starting weight vector: the baseline a tuned
	// vector has to beat. Do not modify it.
	Defaults []float64
	// Params lists the shape parameters, usually none. Do not modify it.
	Params []Param
	// Symmetric says every feature, hence every evaluation, is invariant
	// under the 8 symmetries of the board (the tests check it).
	Symmetric bool
	// ScaleInvariant says the evaluation is linear in the weights:
	// multiplying every weight by k > 0 multiplies every value by k and so
	// changes no decision of a search that scores leaves by the evaluation
	// alone. A search that adds move scores to leaf values breaks this: then
	// the scale of the weights matters and must be tuned. See Reference and
	// Normalize.
	ScaleInvariant bool

	reference int // index of the weight Normalize holds at its default
	impl      setImpl

	defaultOnce     sync.Once
	defaultCompiled *Compiled

	version struct {
		once sync.Once
		v    string
	}
}

// setImpl is what a feature set implements behind its public description.
// Neither method is on the hot path: compile runs once per weight vector and
// features is for the tuner, the tests and the golden checks.
type setImpl interface {
	// compile fills c's fast-path fields for the (validated) weights c.w
	// and parameters c.p.
	compile(c *Compiled)
	// features stores the feature vector of b in dst, len(dst) == number of
	// features, under the default parameters.
	features(b engine.Board, dst []float64)
}

// shapedImpl is implemented by sets with shape parameters, whose features
// depend on the parameters a Compiled was built with.
type shapedImpl interface {
	setImpl
	// compiledFeatures is features under c's parameters.
	compiledFeatures(c *Compiled, b engine.Board, dst []float64)
	// check rejects validated weights and parameters that the set cannot
	// compile (outside the range of its arithmetic, say).
	check(w, p []float64) error
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

// Reference returns the index of the weight a tuner should hold fixed at
// its default when the set is ScaleInvariant and the search does not add
// move scores: then only the directions of weight vectors matter, and
// tuning all of them wastes a dimension on scale. The reference is a
// feature whose default weight is positive and which no sensible vector
// gives a negative weight (empty cells, for the built-in sets).
func (s *FeatureSet) Reference() int { return s.reference }

// Normalize returns a new vector, w multiplied by the positive constant that
// brings the reference weight to its default value. Use it only when scale
// does not matter (ScaleInvariant and a search that does not add move
// scores): then it changes no decision, and it makes vectors comparable. It
// fails if w does not fit the set or its reference weight is not positive.
func (s *FeatureSet) Normalize(w []float64) ([]float64, error) {
	if err := s.Validate(w); err != nil {
		return nil, err
	}
	ref := w[s.reference]
	if !(ref > 0) {
		return nil, fmt.Errorf("%w: %s: cannot normalise: reference weight %s is %g, want > 0",
			ErrWeights, s.Name, s.Features[s.reference].Name, ref)
	}
	k := s.Defaults[s.reference] / ref
	out := make([]float64, len(w))
	for i, x := range w {
		out[i] = x * k
	}
	out[s.reference] = s.Defaults[s.reference] // exact, whatever the rounding of k
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

// Vector stores the feature vector of b in dst, reusing dst's storage when
// it is large enough, and returns it. The values do not depend on the
// weights; for a set with parameters they are those of the default
// parameters (Compiled.Features gives them under other parameters).
func (s *FeatureSet) Vector(b engine.Board, dst []float64) []float64 {
	n := len(s.Features)
	if cap(dst) < n {
		dst = make([]float64, n)
	}
	dst = dst[:n]
	s.impl.features(b, dst)
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

// Compile turns a weight vector into an evaluator: the weights folded into
// row tables, built once (about a millisecond). The Compiled keeps its own
// copy of w. A set with parameters gets its default parameters.
func (s *FeatureSet) Compile(w []float64) (*Compiled, error) {
	return s.CompileParams(w, nil)
}

// CompileParams is Compile with the shape parameters p (nil means the
// defaults): what a tuner calls for a candidate (w, p) of a set with
// parameters. The Compiled keeps its own copies of w and p.
func (s *FeatureSet) CompileParams(w, p []float64) (*Compiled, error) {
	if err := s.Validate(w); err != nil {
		return nil, err
	}
	if p == nil {
		p = s.DefaultParams()
	}
	if err := s.ValidateParams(p); err != nil {
		return nil, err
	}
	if sh, ok := s.impl.(shapedImpl); ok {
		if err := sh.check(w, p); err != nil {
			return nil, err
		}
	}
	c := &Compiled{set: s, w: append([]float64(nil), w...), p: append([]float64{}, p...)}
	s.impl.compile(c)
	return c, nil
}

// evalKind selects the fast path of a Compiled.
type evalKind uint8

const (
	// kindLines: Σ over the 4 rows and 4 columns of table[line], plus
	// cornerTab[cornerKey(b)].
	kindLines evalKind = iota
	// kindClassic: the classic terms from the shared classic row table.
	kindClassic
	// kindLines32: Σ over the 4 rows, then the 4 columns, of table32[line],
	// in float32 and in that order: the arithmetic of the engine the
	// nneonneo set reproduces.
	kindLines32
)

// A Compiled is a feature set with its weights folded into tables. It is
// immutable and safe to share between goroutines; Evaluate does not
// allocate.
type Compiled struct {
	set  *FeatureSet
	w    []float64
	p    []float64
	kind evalKind

	// kindLines: a line's weighted terms, indexed by the line's 16 bits,
	// and the weighted corner term by corner key (see cornerKey).
	table     *[1 << 16]float64
	cornerTab [32]float64

	// kindClassic: weights of empty, mono and smooth.
	classic [3]float64

	// kindLines32: a line's value in float32; powers holds r^p for the
	// ranks r under each power parameter p, for Features.
	table32 *[1 << 16]float32
	powers  [][16]float64
}

var _ engine.Evaluator = (*Compiled)(nil)

// Evaluate returns Σ w[i]·feature[i](b).
func (c *Compiled) Evaluate(b engine.Board) float64 {
	x := uint64(b)
	y := uint64(b.Transpose()) // its rows are b's columns read top to bottom
	switch c.kind {
	case kindLines:
		t := c.table
		// A balanced sum: a chain of 8 dependent additions would cost more
		// than the look-ups.
		rows := (t[uint16(x)] + t[uint16(x>>16)]) + (t[uint16(x>>32)] + t[uint16(x>>48)])
		cols := (t[uint16(y)] + t[uint16(y>>16)]) + (t[uint16(y>>32)] + t[uint16(y>>48)])
		return (rows + cols) + c.cornerTab[cornerKey(x)&31]
	case kindLines32:
		// Left to right, each sum rounded to float32: rows, columns, then
		// the two, as the reproduced engine adds them.
		t := c.table32
		rows := t[uint16(x)] + t[uint16(x>>16)] + t[uint16(x>>32)] + t[uint16(x>>48)]
		cols := t[uint16(y)] + t[uint16(y>>16)] + t[uint16(y>>32)] + t[uint16(y>>48)]
		return float64(rows + cols)
	}
	// Written out here rather than called, which keeps Evaluate a leaf
	// function: no stack check, no frame.
	rows := classicRows[uint16(x)] + classicRows[uint16(x>>16)] + classicRows[uint16(x>>32)] + classicRows[uint16(x>>48)]
	cols := classicRows[uint16(y)] + classicRows[uint16(y>>16)] + classicRows[uint16(y>>32)] + classicRows[uint16(y>>48)]
	empty, mono, smooth := classicSums(rows, cols)
	return c.classic[0]*float64(empty) + c.classic[1]*float64(mono) + c.classic[2]*float64(smooth)
}

// Set returns the feature set c was compiled from.
func (c *Compiled) Set() *FeatureSet { return c.set }

// Weights returns a copy of the weights c was compiled from.
func (c *Compiled) Weights() []float64 { return append([]float64(nil), c.w...) }

// Params returns a copy of the shape parameters c was compiled with (empty
// for a set without parameters).
func (c *Compiled) Params() []float64 { return append([]float64{}, c.p...) }

// Features stores the feature vector of b under c's parameters in dst,
// reusing dst's storage when it is large enough, and returns it (see
// FeatureSet.Vector).
func (c *Compiled) Features(b engine.Board, dst []float64) []float64 {
	sh, ok := c.set.impl.(shapedImpl)
	if !ok {
		return c.set.Vector(b, dst)
	}
	n := len(c.set.Features)
	if cap(dst) < n {
		dst = make([]float64, n)
	}
	dst = dst[:n]
	sh.compiledFeatures(c, b, dst)
	return dst
}

// The corner feature (the largest rank m if a corner cell holds it, else 0)
// through a key: each row gets 2·(its largest rank), plus 1 for rows 0 and
// 3 when one of their end cells holds that rank. The board's key K is the
// largest row key. If some corner holds m, a row of key 2m+1 exists and K
// is odd; if not, every row holding m has key 2m, every other row key less
// than 2m, and K is even. So the corner feature is K/2 for odd K, else 0.
var (
	cornerKeyEnd [1 << 16]uint8 // rows 0 and 3
	cornerKeyMid [1 << 16]uint8 // rows 1 and 2
)

func init() {
	for row := range 1 << 16 {
		m := 0
		for i := range 4 {
			m = max(m, row>>(4*i)&0xf)
		}
		cornerKeyMid[row] = uint8(2 * m)
		cornerKeyEnd[row] = uint8(2 * m)
		if row&0xf == m || row>>12 == m {
			cornerKeyEnd[row]++
		}
	}
}

// cornerKey returns the board's corner key K, in [0, 32).
func cornerKey(x uint64) uint64 {
	// Widened before max so that max compiles to conditional moves: which
	// row wins is as good as random from board to board.
	return max(uint64(cornerKeyEnd[uint16(x)]), uint64(cornerKeyMid[uint16(x>>16)]),
		uint64(cornerKeyMid[uint16(x>>32)]), uint64(cornerKeyEnd[uint16(x>>48)]))
}

// cornerRank returns the corner feature of a board.
func cornerRank(x uint64) uint64 {
	k := cornerKey(x)
	return k >> 1 & -(k & 1)
}

// cornerTable returns the weighted corner term by corner key.
func cornerTable(w float64) [32]float64 {
	var t [32]float64
	for m := range 16 {
		t[2*m+1] = w * float64(m)
	}
	return t
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
func (s *FeatureSet) CompileVector(v []float64) (*Compiled, error) {
	w, p, err := s.SplitVector(v)
	if err != nil {
		return nil, err
	}
	return s.CompileParams(w, p)
}
