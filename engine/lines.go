package engine

// A LineEvaluator is an Evaluator that can say it is row decomposable: its
// value is a sum of terms of single rows and single columns, plus at most
// one term of the largest of per-row keys (Lines gives the exact form).
// The searchers then read the tables rather than call Evaluate: the move
// layers of leaves below a spawn layer, the bulk of an expectimax search,
// share most of their lines and cost less than half as much that way
// (BenchmarkLeafLayers), a whole move 0.6-0.7 as much (docs/leaf-layer.md).
// An evaluator that is not a LineEvaluator, or whose Lines returns nil or
// a malformed form (Valid), is searched through Evaluate, with the same
// values.
type LineEvaluator interface {
	Evaluator
	// Lines returns the tables, or nil if the evaluator does not compute
	// this way after all (one type may serve several forms). Evaluate must
	// return Lines().Evaluate(b) bit for bit; the simplest way is to call
	// it. The tables must not change while a searcher holds them.
	Lines() *Lines
}

// Lines is the table form of a row-decomposable evaluator. A row or a
// column is read as 16 bits, its first cell (column 0, or row 0) in the low
// nibble: row r of b is uint16(b >> 16r), column c is row c of
// b.Transpose(). The value of b is, in float64 and in this order,
//
//	rows = (Rows[0][row 0] + Rows[1][row 1]) + (Rows[2][row 2] + Rows[3][row 3])
//	cols = (Cols[0][col 0] + Cols[1][col 1]) + (Cols[2][col 2] + Cols[3][col 3])
//	key  = KeyValue[max(Keys[0][row 0], Keys[1][row 1], Keys[2][row 2], Keys[3][row 3])]
//	value = (rows + cols) + key
//
// where a part whose tables are nil is left out rather than added as 0
// (rows + cols without the key, say). Rows must be set; Cols and Keys are
// all set or all nil, and KeyValue is set with Keys. A table may serve
// several rows or columns (a set whose features treat every line alike
// has one, and a searcher reads it fastest: one table for every row and
// column, with ColKeys if there are keys). The tables hold no NaN: the
// searchers take the largest of move values with Go's max, which agrees
// with comparing them on every other value.
//
// The key term carries what is no sum over lines but is a function of the
// largest of row keys: the standard set's corner feature (the largest rank
// if a corner holds it) is KeyValue[K] with each row keyed 2·(its largest
// rank), plus 1 for an end row whose end cell holds it.
type Lines struct {
	Rows     [4]*[1 << 16]float64
	Cols     [4]*[1 << 16]float64
	Keys     [4]*[1 << 16]uint8
	KeyValue *[256]float64
	// ColKeys, if set, give the key from the columns: for every board,
	// max(ColKeys[c][col c]) over the columns equals max(Keys[r][row r])
	// over the rows (so it needs Keys). Evaluate never reads them; a
	// searcher that has a board's columns at hand and not its rows (a
	// vertical move's) reads them instead. The standard set's corner key
	// is such a key, read from the columns the same way.
	ColKeys [4]*[1 << 16]uint8
}

var _ LineEvaluator = (*Lines)(nil)

// Lines returns l: a Lines is itself a LineEvaluator.
func (l *Lines) Lines() *Lines { return l }

// Evaluate returns the value of b in the order the type's doc gives.
func (l *Lines) Evaluate(b Board) float64 { return l.value(b, b.Transpose()) }

// Valid reports whether l has the shape its doc requires.
func (l *Lines) Valid() bool {
	cols, keys := l.Cols[0] != nil, l.Keys[0] != nil
	for i := range 4 {
		if l.Rows[i] == nil || (l.Cols[i] != nil) != cols || (l.Keys[i] != nil) != keys {
			return false
		}
	}
	colKeys := l.ColKeys[0] != nil
	for i := range 4 {
		if (l.ColKeys[i] != nil) != colKeys {
			return false
		}
	}
	return keys == (l.KeyValue != nil) && (keys || !colKeys)
}

// uniform reports whether one table values every row and column, and the
// key, if any, can be read from the columns too.
func (l *Lines) uniform() bool {
	t := l.Rows[0]
	for i := range 4 {
		if l.Rows[i] != t || l.Cols[i] != t {
			return false
		}
	}
	return l.Keys[0] == nil || l.ColKeys[0] != nil
}

// value is Evaluate for a board b whose transpose t is known: the
// searchers often have it, or its rows from sliding the transpose.
func (l *Lines) value(b, t Board) float64 {
	x := uint64(b)
	v := l.rowSum(x)
	if l.Cols[0] != nil {
		v += l.colSum(uint64(t))
	}
	if l.Keys[0] != nil {
		v += l.key(x)
	}
	return v
}

// rowSum is rows: two pairs, then their sum. A chain of dependent
// additions would cost more than the look-ups.
func (l *Lines) rowSum(x uint64) float64 {
	return (l.Rows[0][uint16(x)] + l.Rows[1][uint16(x>>16)]) + (l.Rows[2][uint16(x>>32)] + l.Rows[3][uint16(x>>48)])
}

// colSum is cols, given the transpose's bits.
func (l *Lines) colSum(y uint64) float64 {
	return (l.Cols[0][uint16(y)] + l.Cols[1][uint16(y>>16)]) + (l.Cols[2][uint16(y>>32)] + l.Cols[3][uint16(y>>48)])
}

// key is the key term.
func (l *Lines) key(x uint64) float64 {
	return l.KeyValue[maxKey(maxKey(l.Keys[0][uint16(x)], l.Keys[1][uint16(x>>16)]), maxKey(l.Keys[2][uint16(x>>32)], l.Keys[3][uint16(x>>48)]))]
}

// maxKey is max(a, b) without a branch: which row holds the largest key
// is as good as random from board to board, and a mispredicted branch
// costs more than a conditional move, which the compiler gives max on
// 32-bit operands but not on bytes.
func maxKey(a, b uint8) uint8 {
	return uint8(max(uint32(a), uint32(b)))
}
