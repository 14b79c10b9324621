package engine

// The slow, obviously correct twin of the engine: a board as a grid of
// exponents and moves written cell by cell, sharing no code with the tables.

type grid [4][4]int

func gridOf(b Board) grid {
	var g grid
	for r := range 4 {
		for c := range 4 {
			g[r][c] = int(uint64(b) >> (4 * (4*r + c)) & 0xf)
		}
	}
	return g
}

func (g grid) board() Board {
	var x uint64
	for r := range 4 {
		for c := range 4 {
			x |= uint64(g[r][c]) << (4 * (4*r + c))
		}
	}
	return Board(x)
}

// refMove moves a grid: for each line, walk from the side moved toward,
// carrying the last unmerged tile.
func refMove(g grid, d Dir) (grid, int, bool) {
	var out grid
	score := 0
	for line := range 4 {
		// cell(i) is the i-th cell of this line counted from the side moved toward.
		cell := func(i int) (int, int) {
			switch d {
			case Left:
				return line, i
			case Right:
				return line, 3 - i
			case Up:
				return i, line
			default: // Down
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

func refCanMove(g grid) bool {
	for _, d := range Dirs {
		if _, _, ok := refMove(g, d); ok {
			return true
		}
	}
	return false
}
