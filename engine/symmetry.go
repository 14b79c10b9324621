package engine

// Transpose mirrors b about its main diagonal: cell (r, c) goes to (c, r).
// Three rounds of swaps exchange ever larger blocks: single nibbles within
// 2x2 blocks, then 2x2 blocks within the board.
func (b Board) Transpose() Board {
	x := uint64(b)
	a1 := x & 0xF0F00F0FF0F00F0F
	a2 := x & 0x0000F0F00000F0F0
	a3 := x & 0x0F0F00000F0F0000
	a := a1 | a2<<12 | a3>>12
	b1 := a & 0xFF00FF0000FF00FF
	b2 := a & 0x00FF00FF00000000
	b3 := a & 0x00000000FF00FF00
	return Board(b1 | b2>>24 | b3<<24)
}

// MirrorH reverses every row: cell (r, c) goes to (r, 3-c).
func (b Board) MirrorH() Board {
	x := uint64(b)
	// Swap nibbles within bytes, then bytes within 16-bit rows.
	x = (x&0x0F0F0F0F0F0F0F0F)<<4 | (x&0xF0F0F0F0F0F0F0F0)>>4
	x = (x&0x00FF00FF00FF00FF)<<8 | (x&0xFF00FF00FF00FF00)>>8
	return Board(x)
}

// MirrorV reverses the order of the rows: cell (r, c) goes to (3-r, c).
func (b Board) MirrorV() Board {
	x := uint64(b)
	x = (x&0x0000FFFF0000FFFF)<<16 | (x&0xFFFF0000FFFF0000)>>16
	x = x<<32 | x>>32
	return Board(x)
}

// Symmetry returns the image of b under the i-th of the 8 symmetries of the
// square, i in [0, 8): bit 0 mirrors rows, bit 1 mirrors columns, bit 2
// transposes (applied in that order). Symmetry(0) is the identity.
func (b Board) Symmetry(i int) Board {
	if i&1 != 0 {
		b = b.MirrorH()
	}
	if i&2 != 0 {
		b = b.MirrorV()
	}
	if i&4 != 0 {
		b = b.Transpose()
	}
	return b
}

// Rotate returns b rotated a quarter turn clockwise.
func (b Board) Rotate() Board { return b.Transpose().MirrorH() }
