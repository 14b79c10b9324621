package eval

import "github.com/evotune/evotune/engine"

// Classic is the fixed reference evaluator of DESIGN.md, reproduced exactly.
// Over rows, for each adjacent pair of ranks (a, b) read left to right,
// d0 += b - a when a > b and d1 += a - b otherwise; over columns, read top to
// bottom, the same into d2 and d3 (empty cells count as rank 0). Then
//
//	mono   = max(d0, d1) + max(d2, d3)
//	smooth = - Σ |a - b| over adjacent pairs where both cells are non-empty
//	value  = 27*empty + 10*mono + 3*smooth
//
// It is invariant under the 8 symmetries of the board. The zero value is
// ready to use and safe for concurrent use.
type Classic struct{}

var _ engine.Evaluator = Classic{}

// classicRow holds one row's share of the classic terms.
type classicRow struct {
	d0, d1, smooth, empty int32
}

// classicRows is indexed by a 16-bit row read from column 0 (low nibble) on.
var classicRows [1 << 16]classicRow

func init() {
	for row := range 1 << 16 {
		var line [4]int
		for i := range 4 {
			line[i] = row >> (4 * i) & 0xf
		}
		classicRows[row] = classicLine(line)
	}
}

func classicLine(line [4]int) classicRow {
	var t classicRow
	for i := range 3 {
		a, b := line[i], line[i+1]
		if a > b {
			t.d0 += int32(b - a)
		} else {
			t.d1 += int32(a - b)
		}
		if a != 0 && b != 0 {
			t.smooth -= int32(abs(a - b))
		}
	}
	for _, k := range line {
		if k == 0 {
			t.empty++
		}
	}
	return t
}

// Evaluate returns the classic value of b: 4 row look-ups on b and 4 on its
// transpose (whose rows are b's columns read top to bottom).
func (Classic) Evaluate(b engine.Board) float64 {
	x := uint64(b)
	r0, r1, r2, r3 := &classicRows[uint16(x)], &classicRows[uint16(x>>16)], &classicRows[uint16(x>>32)], &classicRows[uint16(x>>48)]
	y := uint64(b.Transpose())
	c0, c1, c2, c3 := &classicRows[uint16(y)], &classicRows[uint16(y>>16)], &classicRows[uint16(y>>32)], &classicRows[uint16(y>>48)]
	empty := r0.empty + r1.empty + r2.empty + r3.empty
	mono := max(r0.d0+r1.d0+r2.d0+r3.d0, r0.d1+r1.d1+r2.d1+r3.d1) +
		max(c0.d0+c1.d0+c2.d0+c3.d0, c0.d1+c1.d1+c2.d1+c3.d1)
	smooth := r0.smooth + r1.smooth + r2.smooth + r3.smooth + c0.smooth + c1.smooth + c2.smooth + c3.smooth
	return float64(27*empty + 10*mono + 3*smooth)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
