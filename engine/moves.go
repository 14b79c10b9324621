package engine

import "fmt"

// A Dir is a move direction. The order Up, Down, Left, Right is the order in
// which searchers try moves and break ties.
type Dir uint8

// The four directions. Up slides toward row 0, Left toward column 0.
const (
	Up Dir = iota
	Down
	Left
	Right
)

// Dirs lists the directions in tie-breaking order.
var Dirs = [4]Dir{Up, Down, Left, Right}

var dirNames = [4]string{"up", "down", "left", "right"}

func (d Dir) String() string {
	if int(d) < len(dirNames) {
		return dirNames[d]
	}
	return fmt.Sprintf("Dir(%d)", uint8(d))
}

// Row tables, indexed by a 16-bit row (column 0 in the low nibble). A merge
// only ever joins tiles within a run of equal tiles, and a run of n equal
// tiles yields n/2 merges whichever way it slides, so one score table serves
// both directions (the differential tests check this claim too).
var (
	rowLeft  [1 << 16]uint16 // the row after sliding toward column 0
	rowRight [1 << 16]uint16 // the row after sliding toward column 3
	rowScore [1 << 16]uint16 // the sum of the tiles created by merges, over 4 (at most 65536/4)
	// colUp and colDown are the row tables' changes (old XOR new) spread
	// into a column: nibble i of the line goes to bit 16i. XORed into the
	// board at column c's offset, they move that column without a second
	// transpose.
	colUp   [1 << 16]uint64
	colDown [1 << 16]uint64
)

func spreadColumn(line uint16) uint64 {
	x := uint64(line)
	return x&0xf | (x>>4&0xf)<<16 | (x>>8&0xf)<<32 | (x>>12&0xf)<<48
}

// init builds the tables at every start of the program, so it slides each
// row once: sliding right is sliding the mirrored row left and mirroring
// the result back. Halving the slides took a millisecond off the start of
// every command (a quarter of the tables' time; a run of short player
// games pays it in every worker).
func init() {
	for row := range 1 << 16 {
		left, score := slideLine([4]int{row & 0xf, row >> 4 & 0xf, row >> 8 & 0xf, row >> 12 & 0xf})
		rowLeft[row] = packLine(left)
		rowScore[row] = uint16(score >> 2)
	}
	for row := range 1 << 16 {
		rowRight[row] = mirrorRow(rowLeft[mirrorRow(uint16(row))])
		colUp[row] = spreadColumn(uint16(row) ^ rowLeft[row])
		colDown[row] = spreadColumn(uint16(row) ^ rowRight[row])
	}
}

// mirrorRow reverses the order of a row's four cells.
func mirrorRow(r uint16) uint16 {
	return r>>12 | r>>4&0x00f0 | r<<4&0x0f00 | r<<12
}

// slideLine slides a line of exponents toward index 0: compact the tiles,
// then merge equal neighbours from index 0 on, each tile at most once; two
// 32768 tiles (exponent 15) do not merge.
func slideLine(line [4]int) (out [4]int, score int) {
	n := 0
	var tiles [4]int
	for _, k := range line {
		if k != 0 {
			tiles[n] = k
			n++
		}
	}
	j := 0
	for i := 0; i < n; i++ {
		if i+1 < n && tiles[i] == tiles[i+1] && tiles[i] < MaxRank {
			out[j] = tiles[i] + 1
			score += 1 << out[j]
			i++
		} else {
			out[j] = tiles[i]
		}
		j++
	}
	return out, score
}

func packLine(line [4]int) uint16 {
	return uint16(line[0] | line[1]<<4 | line[2]<<8 | line[3]<<12)
}

// moveRows applies a row table to every row.
func moveRows(b Board, table *[1 << 16]uint16) (Board, int) {
	x := uint64(b)
	r0, r1, r2, r3 := uint16(x), uint16(x>>16), uint16(x>>32), uint16(x>>48)
	nb := uint64(table[r0]) | uint64(table[r1])<<16 | uint64(table[r2])<<32 | uint64(table[r3])<<48
	return Board(nb), 4 * (int(rowScore[r0]) + int(rowScore[r1]) + int(rowScore[r2]) + int(rowScore[r3]))
}

// moveCols moves every column of b, given its transpose t, whose rows are
// b's columns read top to bottom.
func moveCols(b, t Board, table *[1 << 16]uint64) (Board, int) {
	y := uint64(t)
	c0, c1, c2, c3 := uint16(y), uint16(y>>16), uint16(y>>32), uint16(y>>48)
	nb := uint64(b) ^ table[c0] ^ table[c1]<<4 ^ table[c2]<<8 ^ table[c3]<<12
	return Board(nb), 4 * (int(rowScore[c0]) + int(rowScore[c1]) + int(rowScore[c2]) + int(rowScore[c3]))
}

// slideRows and slideCols are moveRows and moveCols without the score, for
// the searches that add none (Nneonneo).
func slideRows(b Board, table *[1 << 16]uint16) Board {
	x := uint64(b)
	return Board(uint64(table[uint16(x)]) | uint64(table[uint16(x>>16)])<<16 |
		uint64(table[uint16(x>>32)])<<32 | uint64(table[uint16(x>>48)])<<48)
}

func slideCols(b, t Board, table *[1 << 16]uint64) Board {
	y := uint64(t)
	return b ^ Board(table[uint16(y)]^table[uint16(y>>16)]<<4^table[uint16(y>>32)]<<8^table[uint16(y>>48)]<<12)
}

// Move slides the board in direction d. It returns the new board, the move's
// score (the sum of the values of the tiles created by merges) and whether
// the move is legal, that is, changes the board. The spawn that follows a
// legal move is not part of Move.
func (b Board) Move(d Dir) (Board, int, bool) {
	var nb Board
	var score int
	switch d {
	case Left:
		nb, score = moveRows(b, &rowLeft)
	case Right:
		nb, score = moveRows(b, &rowRight)
	case Up:
		nb, score = moveCols(b, b.Transpose(), &colUp)
	case Down:
		nb, score = moveCols(b, b.Transpose(), &colDown)
	default:
		panic(fmt.Sprintf("engine: Move(%d): no such direction", d))
	}
	return nb, score, nb != b
}

// moveWith is Move for a board b whose transpose t is already known: the
// searchers transpose once per node for both vertical moves. It is not
// Move's implementation because routing Move through it (a second switch,
// not inlined) cost Move about 10% (BenchmarkMove); t is not read for
// horizontal moves.
func moveWith(b, t Board, d Dir) (Board, int, bool) {
	var nb Board
	var score int
	switch d {
	case Up:
		nb, score = moveCols(b, t, &colUp)
	case Down:
		nb, score = moveCols(b, t, &colDown)
	case Left:
		nb, score = moveRows(b, &rowLeft)
	default:
		nb, score = moveRows(b, &rowRight)
	}
	return nb, score, nb != b
}

// CanMove reports whether any move is legal, that is, whether the game goes on.
func (b Board) CanMove() bool {
	// A board with a tile and an empty cell can move: a row holding both
	// slides one way or the other, and if every row is full or empty, a
	// column crosses a full row and an empty one. Only full boards, rare in
	// a game, need the tables.
	if b != 0 && b.emptyCells() != 0 {
		return true
	}
	return rowsCanMove(b) || rowsCanMove(b.Transpose())
}

func rowsCanMove(b Board) bool {
	for r := range 4 {
		row := b.Row(r)
		if rowLeft[row] != row || rowRight[row] != row {
			return true
		}
	}
	return false
}
