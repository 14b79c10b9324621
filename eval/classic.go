package eval

import (
	"sync"

	"github.com/evotune/evotune/engine"
)

// classicRows packs one row's share of the classic terms into four bytes:
// -d0, -d1, -smooth and the empty count. Each is at most 45 for a row and at
// most 180 for four rows, so four rows add as plain uint32s without a carry
// crossing lanes. The table is 256 KiB, small enough to stay in cache.
//
// It is built on first use (classicOnce, in the model's Compile and
// Features), not at start-up: every command of the program would pay for
// it, most never evaluate a classic board, and a run's workers start often.
var (
	classicRows [1 << 16]uint32
	classicOnce sync.Once
)

func buildClassicRows() {
	for row := range 1 << 16 {
		var line [4]int
		for i := range 4 {
			line[i] = row >> (4 * i) & 0xf
		}
		d0, d1, smooth, empty := classicLine(line)
		classicRows[row] = uint32(-d0) | uint32(-d1)<<8 | uint32(-smooth)<<16 | uint32(empty)<<24
	}
}

func classicLine(line [4]int) (d0, d1, smooth, empty int) {
	for i := range 3 {
		a, b := line[i], line[i+1]
		if a > b {
			d0 += b - a
		} else {
			d1 += a - b
		}
		if a != 0 && b != 0 {
			smooth -= abs(a - b)
		}
	}
	for _, k := range line {
		if k == 0 {
			empty++
		}
	}
	return d0, d1, smooth, empty
}

// classicTerms returns the three classic features of b.
func classicTerms(b engine.Board) (empty, mono, smooth int) {
	x := uint64(b)
	rows := classicRows[uint16(x)] + classicRows[uint16(x>>16)] + classicRows[uint16(x>>32)] + classicRows[uint16(x>>48)]
	y := uint64(b.Transpose())
	cols := classicRows[uint16(y)] + classicRows[uint16(y>>16)] + classicRows[uint16(y>>32)] + classicRows[uint16(y>>48)]
	return classicSums(rows, cols)
}

// classicSums unpacks the sums of the packed row terms over the rows and
// over the columns.
func classicSums(rows, cols uint32) (empty, mono, smooth int) {
	empty = int(rows >> 24)
	// max(d0, d1) = -min(-d0, -d1).
	mono = -min(int(rows&0xff), int(rows>>8&0xff)) - min(int(cols&0xff), int(cols>>8&0xff))
	smooth = -int(rows>>16&0xff) - int(cols>>16&0xff)
	return empty, mono, smooth
}

// The classic set is the fixed reference evaluator of DESIGN.md, reproduced
// exactly, with its three terms exposed as features so that its weights can
// be tuned and exported like any other set's. Over rows, for each adjacent
// pair of ranks (a, b) read left to right, d0 += b - a when a > b and
// d1 += a - b otherwise; over columns, read top to bottom, the same into d2
// and d3 (empty cells count as rank 0). Then
//
//	mono   = max(d0, d1) + max(d2, d3)
//	smooth = - Σ |a - b| over adjacent pairs where both cells are non-empty
//	value  = 27*empty + 10*mono + 3*smooth
//
// with the default weights 27, 10, 3. Its monotonicity takes maxima over
// sums of rows and of columns, so it is not a sum over lines: the compiled
// form keeps the packed row table (4 look-ups on b, 4 on its transpose) and
// multiplies the three terms by their weights.
var classicSet = &FeatureSet{
	Name:    "classic",
	Summary: "the fixed reference evaluator: empty cells, monotonicity, smoothness",
	Features: []Feature{
		{"empty", "the number of empty cells"},
		{"mono", "max(d0, d1) + max(d2, d3), where over the rows read left to right, for each adjacent pair of ranks (a, b), d0 += b - a if a > b and d1 += a - b otherwise, and d2, d3 likewise over the columns read top to bottom (empty cells count as rank 0)"},
		{"smooth", "- Σ |r_a - r_b| over horizontally or vertically adjacent cells a, b that are both non-empty"},
	},
	Defaults:       []float64{27, 10, 3},
	Symmetric:      true,
	ScaleInvariant: true,
	Reference:      "empty",
	Model:          classicModel{},
}

type classicModel struct{}

func (classicModel) Compile(w, _ []float64) (engine.Evaluator, error) {
	classicOnce.Do(buildClassicRows)
	c := &compiled{kind: kindClassic}
	copy(c.classic[:], w)
	return c, nil
}

func (classicModel) Features(b engine.Board, _, f []float64) {
	classicOnce.Do(buildClassicRows)
	empty, mono, smooth := classicTerms(b)
	f[0], f[1], f[2] = float64(empty), float64(mono), float64(smooth)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
