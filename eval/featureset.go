package eval

import (
	"fmt"
	"math"
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

// A FeatureSet is a name and an ordered list of features. A weight vector
// for the set has one weight per feature, in the same order, and its
// evaluation of a board is Σ w[i]·feature[i](board).
//
// A FeatureSet is immutable and safe for concurrent use; get one from Set.
type FeatureSet struct {
	Name     string
	Summary  string // one line, for listings
	Features []Feature
	// Defaults is the hand-set starting weight vector: the baseline a tuned
	// vector has to beat. Do not modify it.
	Defaults []float64
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
}

// setImpl is what a feature set implements behind its public description.
// Neither method is on the hot path: compile runs once per weight vector and
// features is for the tuner, the tests and the golden checks.
type setImpl interface {
	// compile fills c's fast-path fields for the (validated) weights c.w.
	compile(c *Compiled)
	// features stores the feature vector of b in dst, len(dst) == number of
	// features.
	features(b engine.Board, dst []float64)
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

// Vector stores the feature vector of b in dst, reusing dst's storage when
// it is large enough, and returns it. The values do not depend on the
// weights, and are integers for the built-in sets.
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
// copy of w.
func (s *FeatureSet) Compile(w []float64) (*Compiled, error) {
	if err := s.Validate(w); err != nil {
		return nil, err
	}
	c := &Compiled{set: s, w: append([]float64(nil), w...)}
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
)

// A Compiled is a feature set with its weights folded into tables. It is
// immutable and safe to share between goroutines; Evaluate does not
// allocate.
type Compiled struct {
	set  *FeatureSet
	w    []float64
	kind evalKind

	// kindLines: a line's weighted terms, indexed by the line's 16 bits,
	// and the weighted corner term by corner key (see cornerKey).
	table     *[1 << 16]float64
	cornerTab [32]float64

	// kindClassic: weights of empty, mono and smooth.
	classic [3]float64
}

var _ engine.Evaluator = (*Compiled)(nil)

// Evaluate returns Σ w[i]·feature[i](b).
func (c *Compiled) Evaluate(b engine.Board) float64 {
	x := uint64(b)
	y := uint64(b.Transpose()) // its rows are b's columns read top to bottom
	if c.kind != kindLines {
		// Written out here rather than called, which keeps Evaluate a leaf
		// function: no stack check, no frame.
		rows := classicRows[uint16(x)] + classicRows[uint16(x>>16)] + classicRows[uint16(x>>32)] + classicRows[uint16(x>>48)]
		cols := classicRows[uint16(y)] + classicRows[uint16(y>>16)] + classicRows[uint16(y>>32)] + classicRows[uint16(y>>48)]
		empty, mono, smooth := classicSums(rows, cols)
		return c.classic[0]*float64(empty) + c.classic[1]*float64(mono) + c.classic[2]*float64(smooth)
	}
	t := c.table
	// A balanced sum: a chain of 8 dependent additions would cost more than
	// the look-ups.
	rows := (t[uint16(x)] + t[uint16(x>>16)]) + (t[uint16(x>>32)] + t[uint16(x>>48)])
	cols := (t[uint16(y)] + t[uint16(y>>16)]) + (t[uint16(y>>32)] + t[uint16(y>>48)])
	return (rows + cols) + c.cornerTab[cornerKey(x)&31]
}

// Set returns the feature set c was compiled from.
func (c *Compiled) Set() *FeatureSet { return c.set }

// Weights returns a copy of the weights c was compiled from.
func (c *Compiled) Weights() []float64 { return append([]float64(nil), c.w...) }

// Features stores the feature vector of b in dst, reusing dst's storage
// when it is large enough, and returns it (see FeatureSet.Vector).
func (c *Compiled) Features(b engine.Board, dst []float64) []float64 {
	return c.set.Vector(b, dst)
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
