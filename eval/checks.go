package eval

import (
	"math"

	"github.com/evotune/evotune/engine"
)

// A Check is a golden vector of a weights file: a board, its feature vector
// in the set's order and its weighted value. Another engine that implements
// the same features must reproduce the features exactly and the value
// within CheckTolerance.
type Check struct {
	Board    engine.Board
	Features []float64
	Value    float64
	Line     int // where the check starts in the file it was read from; 0 otherwise
}

// CheckTolerance bounds the difference between a check's value and the
// value computed again, relative to the size of the terms: |file - computed|
// must not exceed CheckTolerance·max(1, Σ|w_f·feature_f|). Features are
// integers and must match exactly.
const CheckTolerance = 1e-9

// checkBoards exercise every feature of the built-in sets, each both zero
// and non-zero, and their edge cases: the empty board; full boards with and
// without a move (one perfectly monotone); the largest tile in a corner, out of every corner, and in
// a corner and elsewhere at once; gaps inside lines (monotonicity counts an
// empty cell as rank 0, smoothness and merge skip it); equal neighbours
// across gaps (not counted); and rank 15 next to rank 15.
var checkBoards = []string{
	"0 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0",
	"2 4 2 4/4 8 16 2/2 16 8 4/4 2 4 2",
	"1024 512 256 128/8 16 32 64/4 2 0 0/0 0 0 0",
	"2 0 4 0/0 2048 8 0/0 4 2 0/2 0 0 2",
	"2 2 0 2/4 0 4 8/8 8 16 16/0 2 0 2",
	"64 2 4 64/2 64 2 4/4 2 8 2/64 4 2 2",
	"32768 32768 2 0/4 0 0 0/0 0 0 0/0 2 8 32768",
	"2 4 8 16/4 8 16 32/8 16 32 64/16 32 64 128",
	"128 64 16 4/256 32 8 2/512 64 4 0/1024 2 0 0",
}

// CheckBoards returns the boards NewWeightsFile and Marshal check by default.
func CheckBoards() []engine.Board {
	out := make([]engine.Board, len(checkBoards))
	for i, s := range checkBoards {
		b, err := engine.ParseBoard(s)
		if err != nil {
			panic("eval: bad check board " + s + ": " + err.Error())
		}
		out[i] = b
	}
	return out
}

// makeCheck computes the golden vector of b under the weights w and shape
// parameters p (nil: the defaults) of s: the features under p and their
// value Σ w·f in float64, as Value states it.
func makeCheck(s *FeatureSet, w, p []float64, b engine.Board) Check {
	f := s.FeatureVector(b, p, nil)
	return Check{Board: b, Features: f, Value: Value(w, f)}
}

// valueAgrees reports whether value (from a file) agrees with the value of
// f under w, within CheckTolerance.
func valueAgrees(value float64, w, f []float64) bool {
	scale := 1.0
	sum := 0.0
	for i := range w {
		sum += math.Abs(w[i] * f[i])
	}
	scale = max(scale, sum)
	return math.Abs(value-Value(w, f)) <= CheckTolerance*scale
}
