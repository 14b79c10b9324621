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

// classicRow holds one row's share of the classic terms; int8 keeps the
// table at 256 KiB, small enough to stay in cache during a search.
type classicRow struct {
	d0, d1, smooth, empty int8
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
			t.d0 += int8(b - a)
		} else {
			t.d1 += int8(a - b)
		}
		if a != 0 && b != 0 {
			t.smooth -= int8(abs(a - b))
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
	// Sums in int: four rows of -45 overflow int8.
	empty := int(r0.empty) + int(r1.empty) + int(r2.empty) + int(r3.empty)
	mono := max(int(r0.d0)+int(r1.d0)+int(r2.d0)+int(r3.d0), int(r0.d1)+int(r1.d1)+int(r2.d1)+int(r3.d1)) +
		max(int(c0.d0)+int(c1.d0)+int(c2.d0)+int(c3.d0), int(c0.d1)+int(c1.d1)+int(c2.d1)+int(c3.d1))
	smooth := int(r0.smooth) + int(r1.smooth) + int(r2.smooth) + int(r3.smooth) +
		int(c0.smooth) + int(c1.smooth) + int(c2.smooth) + int(c3.smooth)
	return float64(27*empty + 10*mono + 3*smooth)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
