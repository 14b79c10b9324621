package refboard

import "fmt"

// A Grid is a board as exponents, g[row][column]; 0 is an empty cell.
type Grid [4][4]int

// Of returns the grid of b, an engine.Board (or any uint64 laid out the
// same way: cell (r, c) at bit offset 4*(4r+c)).
func Of[B ~uint64](b B) Grid {
	var g Grid
	for r := range 4 {
		for c := range 4 {
			g[r][c] = int(uint64(b) >> (4 * (4*r + c)) & 0xf)
		}
	}
	return g
}

// Bits returns g packed as an engine.Board's uint64; each exponent must be
// in [0, 15].
func (g Grid) Bits() uint64 {
	var x uint64
	for r := range 4 {
		for c := range 4 {
			x |= uint64(g[r][c]) << (4 * (4*r + c))
		}
	}
	return x
}

// CountEmpty returns the number of empty cells.
func (g Grid) CountEmpty() int {
	n := 0
	for r := range 4 {
		for c := range 4 {
			if g[r][c] == 0 {
				n++
			}
		}
	}
	return n
}

// MaxRank returns the largest exponent, 0 for an empty board.
func (g Grid) MaxRank() int {
	m := 0
	for r := range 4 {
		for c := range 4 {
			m = max(m, g[r][c])
		}
	}
	return m
}

// dir names a direction as engine.Dir's String does.
type dir string

func (d dir) String() string { return string(d) }

// dirs are the four directions, for CanMove.
var dirs = [4]dir{"up", "down", "left", "right"}

// Move slides g in direction d and returns the new grid, the score (the sum
// of the merged tiles' values) and whether anything moved. d is an
// engine.Dir, or anything whose String is "up" (toward row 0), "down",
// "left" (toward column 0) or "right": directions cross by name so that
// this package need not import engine nor copy its numbering.
//
// For each line Move walks from the side moved toward, carrying the last
// unmerged tile; a pair of 32768s (exponent 15) does not merge.
func (g Grid) Move(d fmt.Stringer) (Grid, int, bool) {
	name := d.String()
	if name != "up" && name != "down" && name != "left" && name != "right" {
		panic("refboard: Move toward " + name)
	}
	var out Grid
	score := 0
	for line := range 4 {
		// cell(i) is the i-th cell of this line counted from the side moved toward.
		cell := func(i int) (int, int) {
			switch name {
			case "left":
				return line, i
			case "right":
				return line, 3 - i
			case "up":
				return i, line
			default: // down
				return 3 - i, line
			}
		}
		pos := 0
		pending := 0 // a tile that may still merge with the next one
		for i := range 4 {
			r, c := cell(i)
			v := g[r][c]
			if v == 0 {
				continue
			}
			if pending != 0 && pending == v && v != 15 {
				or, oc := cell(pos)
				out[or][oc] = v + 1
				score += 1 << (v + 1)
				pos++
				pending = 0
				continue
			}
			if pending != 0 {
				or, oc := cell(pos)
				out[or][oc] = pending
				pos++
			}
			pending = v
		}
		if pending != 0 {
			or, oc := cell(pos)
			out[or][oc] = pending
		}
	}
	return out, score, out != g
}

// CanMove reports whether some direction moves g.
func (g Grid) CanMove() bool {
	for _, d := range dirs {
		if _, _, ok := g.Move(d); ok {
			return true
		}
	}
	return false
}

// Lines returns the 8 lines: rows left to right, then columns top to
// bottom.
func (g Grid) Lines() [8][4]int {
	var ls [8][4]int
	for i := range 4 {
		for j := range 4 {
			ls[i][j] = g[i][j]
			ls[4+i][j] = g[j][i]
		}
	}
	return ls
}

// Pairs calls f for every horizontally or vertically adjacent pair of
// cells, each pair once, in row-major order of its first cell.
func (g Grid) Pairs(f func(a, b int)) {
	for r := range 4 {
		for c := range 4 {
			if c+1 < 4 {
				f(g[r][c], g[r][c+1])
			}
			if r+1 < 4 {
				f(g[r][c], g[r+1][c])
			}
		}
	}
}
