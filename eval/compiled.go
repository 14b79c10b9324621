package eval

import (
	"sync"

	"github.com/evotune/evotune/engine"
)

// evalKind selects the fast path of a compiled evaluator.
type evalKind uint8

const (
	// kindLines: an engine.Lines (the standard set's), whose tables the
	// searchers read themselves.
	kindLines evalKind = iota
	// kindClassic: the classic terms from the shared classic row table.
	kindClassic
	// kindLines32: Σ over the 4 rows, then the 4 columns, of table32[line],
	// in float32 and in that order: the arithmetic of the engine the
	// nneonneo set reproduces.
	kindLines32
)

// compiled is what the built-in sets' Models compile to: weights (and
// parameters) folded into tables. One type with a switch on its kind, rather
// than a type per set, keeps Evaluate a leaf function that a searcher's
// interface call reaches directly (for kindLines the searchers read the
// tables instead). It is immutable and safe to share between goroutines;
// Evaluate does not allocate.
type compiled struct {
	kind evalKind

	// kindLines: the tables.
	lines *engine.Lines

	// kindClassic: weights of empty, mono and smooth.
	classic [3]float64

	// kindLines32: a line's value in float32.
	table32 *[1 << 16]float32
}

var (
	_ engine.LineTable32   = (*compiled)(nil)
	_ engine.LineEvaluator = (*compiled)(nil)
)

// Lines returns the tables of kindLines, nil for the other kinds.
func (c *compiled) Lines() *engine.Lines {
	if c.kind != kindLines {
		return nil
	}
	return c.lines
}

// LineTable32 returns the float32 line table of kindLines32, whose
// Evaluate is the form engine.LineTable32 describes, and nil for the other
// kinds.
func (c *compiled) LineTable32() *[1 << 16]float32 {
	if c.kind != kindLines32 {
		return nil
	}
	return c.table32
}

// Evaluate returns Σ w[i]·feature[i](b).
func (c *compiled) Evaluate(b engine.Board) float64 {
	x := uint64(b)
	y := uint64(b.Transpose()) // its rows are b's columns read top to bottom
	switch c.kind {
	case kindLines:
		// Lines.Evaluate's sums for the standard set's shape (one table,
		// the corner key), written out as before the form existed: the
		// searchers that still call Evaluate (beam search) would pay two
		// calls for it. TestLeafLayerMatchesTwin holds the two equal.
		l := c.lines
		t := l.Rows[0]
		rows := (t[uint16(x)] + t[uint16(x>>16)]) + (t[uint16(x>>32)] + t[uint16(x>>48)])
		cols := (t[uint16(y)] + t[uint16(y>>16)]) + (t[uint16(y>>32)] + t[uint16(y>>48)])
		return (rows + cols) + l.KeyValue[uint8(cornerKey(x))]
	case kindLines32:
		// Left to right, each sum rounded to float32: rows, columns, then
		// the two, as the reproduced engine adds them.
		t := c.table32
		rows := t[uint16(x)] + t[uint16(x>>16)] + t[uint16(x>>32)] + t[uint16(x>>48)]
		cols := t[uint16(y)] + t[uint16(y>>16)] + t[uint16(y>>32)] + t[uint16(y>>48)]
		return float64(rows + cols)
	}
	// Written out here rather than called, which keeps Evaluate a leaf
	// function: no stack check, no frame.
	rows := classicRows[uint16(x)] + classicRows[uint16(x>>16)] + classicRows[uint16(x>>32)] + classicRows[uint16(x>>48)]
	cols := classicRows[uint16(y)] + classicRows[uint16(y>>16)] + classicRows[uint16(y>>32)] + classicRows[uint16(y>>48)]
	empty, mono, smooth := classicSums(rows, cols)
	return c.classic[0]*float64(empty) + c.classic[1]*float64(mono) + c.classic[2]*float64(smooth)
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
	// cornerOnce builds them on first use (the standard model's Compile
	// and Features), not at start-up, as classicOnce does.
	cornerOnce sync.Once
)

func buildCornerKeys() {
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
func cornerTable(w float64) *[256]float64 {
	t := new([256]float64)
	for m := range 16 {
		t[2*m+1] = w * float64(m)
	}
	return t
}
