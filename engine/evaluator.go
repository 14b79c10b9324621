package engine

// An Evaluator scores a board for the searchers: larger is better. The
// searchers call it at every leaf, so implementations should be table-driven
// and must be safe for concurrent use if shared between goroutines.
type Evaluator interface {
	Evaluate(b Board) float64
}

// A LineTable32 is an Evaluator that computes in float32 from a table of
// line values: with t its table (indexed by a line's 16 bits, its first
// cell in the low nibble), rows = t[row 0] + t[row 1] + t[row 2] + t[row 3]
// and cols the same over the columns (each read top to bottom, the rows of
// b.Transpose()), every sum rounded to float32 from left to right, Evaluate
// returns float64(rows + cols). Nneonneo, whose search is float32
// throughout, reads the table at its leaves rather than calling Evaluate
// there; the two must agree bit for bit.
type LineTable32 interface {
	Evaluator
	// LineTable32 returns the table, or nil if the evaluator does not
	// compute this way after all (one type may serve several forms).
	LineTable32() *[1 << 16]float32
}
