package engine

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// A Board is a 4x4 2048 position: 16 cells of 4 bits. Cell (row r, column c)
// sits at bit offset 4*(4r+c): row 0 is the low 16 bits and column 0 the low
// nibble of a row. A cell holds the tile's exponent: 0 empty, k for 2^k, at
// most 15 (32768).
type Board uint64

// MaxRank is the largest exponent a cell can hold (32768 = 2^15).
const MaxRank = 15

// ErrBoard is wrapped by every error about the text form of a board.
var ErrBoard = errors.New("engine: bad board")

// Cell returns the exponent at row r, column c.
func (b Board) Cell(r, c int) int { return int(b>>(4*(4*r+c))) & 0xf }

// SetCell returns b with the exponent at row r, column c replaced by k.
func (b Board) SetCell(r, c, k int) Board {
	shift := 4 * (4*r + c)
	return b&^(0xf<<shift) | Board(k&0xf)<<shift
}

// Row returns row r as 16 bits, column 0 in the low nibble.
func (b Board) Row(r int) uint16 { return uint16(b >> (16 * r)) }

// Grid returns the exponents as rows of columns.
func (b Board) Grid() [4][4]int {
	var g [4][4]int
	for r := range 4 {
		for c := range 4 {
			g[r][c] = b.Cell(r, c)
		}
	}
	return g
}

// FromGrid builds a board from exponents; each must be in [0, MaxRank].
func FromGrid(g [4][4]int) Board {
	var b Board
	for r := range 4 {
		for c := range 4 {
			b = b.SetCell(r, c, g[r][c])
		}
	}
	return b
}

// CountEmpty returns the number of empty cells.
func (b Board) CountEmpty() int { return bits.OnesCount64(b.emptyCells()) }

// emptyCells returns a mask with bit 4i set iff cell i is empty: each nibble
// folded to one bit that is set iff the nibble is non-zero, then inverted.
func (b Board) emptyCells() uint64 {
	x := uint64(b)
	x |= x >> 2
	x |= x >> 1
	return ^x & 0x1111111111111111
}

// DistinctTiles counts the different tile values (non-empty ranks) on b.
func (b Board) DistinctTiles() int {
	var seen uint16
	for x := uint64(b); x != 0; x >>= 4 {
		seen |= 1 << (x & 0xf)
	}
	return bits.OnesCount16(seen &^ 1)
}

// MaxRank returns the largest exponent on the board.
func (b Board) MaxRank() int {
	m := 0
	for x := uint64(b); x != 0; x >>= 4 {
		m = max(m, int(x&0xf))
	}
	return m
}

// MaxTile returns the value of the largest tile (0 for the empty board).
func (b Board) MaxTile() int { return tileValue(b.MaxRank()) }

func tileValue(k int) int {
	if k == 0 {
		return 0
	}
	return 1 << k
}

// Hex returns the canonical hex form, 0x followed by 16 digits.
func (b Board) Hex() string { return fmt.Sprintf("0x%016x", uint64(b)) }

// String returns the grid form: tile values, cells separated by spaces and
// rows by slashes, 0 for empty: "2 4 8 16/32 64 0 0/0 0 0 0/0 0 0 0".
func (b Board) String() string {
	var sb strings.Builder
	for r := range 4 {
		if r > 0 {
			sb.WriteByte('/')
		}
		for c := range 4 {
			if c > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(strconv.Itoa(tileValue(b.Cell(r, c))))
		}
	}
	return sb.String()
}

// Pretty returns the board as four right-aligned lines, "." for empty cells.
func (b Board) Pretty() string {
	var sb strings.Builder
	for r := range 4 {
		for c := range 4 {
			s := "."
			if k := b.Cell(r, c); k != 0 {
				s = strconv.Itoa(tileValue(k))
			}
			fmt.Fprintf(&sb, "%6s", s)
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// ParseBoard reads either text form: hex ("0x" and 1 to 16 hex digits) or a
// grid of tile values ("2 4 8 16/32 64 0 0/0 0 0 0/0 0 0 0"; 0, "." or "_"
// for empty; rows separated by "/" or newlines).
func ParseBoard(s string) (Board, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		digits := s[2:]
		if len(digits) == 0 || len(digits) > 16 {
			return 0, fmt.Errorf("%w: %q: hex form needs 1 to 16 hex digits after 0x", ErrBoard, s)
		}
		v, err := strconv.ParseUint(digits, 16, 64)
		if err != nil {
			return 0, fmt.Errorf("%w: %q: not a hex number", ErrBoard, s)
		}
		return Board(v), nil
	}
	rows := strings.FieldsFunc(s, func(r rune) bool { return r == '/' || r == '\n' || r == ';' })
	if len(rows) != 4 {
		return 0, fmt.Errorf("%w: %q: want 4 rows separated by '/' (or hex 0x...), got %d", ErrBoard, s, len(rows))
	}
	var b Board
	for r, row := range rows {
		cells := strings.FieldsFunc(row, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' })
		if len(cells) != 4 {
			return 0, fmt.Errorf("%w: %q: row %d has %d cells, want 4", ErrBoard, s, r+1, len(cells))
		}
		for c, cell := range cells {
			k, err := parseTile(cell)
			if err != nil {
				return 0, fmt.Errorf("%w: %q: row %d column %d: %v", ErrBoard, s, r+1, c+1, err)
			}
			b = b.SetCell(r, c, k)
		}
	}
	return b, nil
}

// parseTile turns a tile value into its exponent.
func parseTile(s string) (int, error) {
	if s == "." || s == "_" {
		return 0, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("tile %q is not a number", s)
	}
	if v == 0 {
		return 0, nil
	}
	if v < 2 || v > 1<<MaxRank || v&(v-1) != 0 {
		return 0, fmt.Errorf("tile %d is not a power of two from 2 to %d", v, 1<<MaxRank)
	}
	return bits.TrailingZeros(uint(v)), nil
}
