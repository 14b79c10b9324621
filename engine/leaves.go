package engine

import (
	"math"
	"math/bits"
)

// The leaf layer. Most of an expectimax search's nodes are the leaves below
// its last move layers, max(b, 1), each the best of score(m) +
// eval(after(b, m)) over the moves m. Those move layers hang below spawn
// layers chance(c, 2), whose boards are c with one tile added, and
// spawnLeaves values such a spawn layer in one pass, sharing what its
// boards have in common: the lines of c but the one the tile is in slide,
// score and value as they do on c, so they are slid and valued once
// (axisBase), and a move then slides and values one new line and reads
// the cross lines of the board it makes (a horizontal move's columns, a
// vertical move's rows): about half the look-ups of a move layer valued
// on its own, and no call per leaf. That takes the tables of a
// LineEvaluator; an evaluator without them gets maxLeaves, the move layer
// in one pass with a call of Evaluate per leaf.
//
// The values are those of the plain search to the bit, and the nodes are
// counted where it counts them: sums are formed in the order Lines gives
// (floating-point addition commutes but does not associate), scores are
// integers, and the largest move value is Go's max, which agrees with a
// comparison on every value but NaN (an evaluator's tables hold none).
// TestLeafLayerMatchesTwin checks it against the recursive twin.

// linesOf returns e's tables if it is a LineEvaluator that has them.
func linesOf(e Evaluator) *Lines {
	if l, ok := e.(LineEvaluator); ok {
		if t := l.Lines(); t != nil && t.Valid() {
			return t
		}
	}
	return nil
}

// evaluate is eval(b), from the tables when there are some.
func (s *Expectimax) evaluate(b Board) float64 {
	if s.lines != nil {
		return s.lines.value(b, b.Transpose())
	}
	return s.eval.Evaluate(b)
}

// slides are the row tables by direction along an axis: toward the line's
// start (left, or up on the transpose), then toward its end.
var slides = [2]*[1 << 16]uint16{&rowLeft, &rowRight}

// maxLeaves is max(b, 1) for an evaluator without tables: the best of
// score(m) + eval(after(b, m)) over the legal moves m, in one pass. The two
// moves of an axis score alike (a merge joins tiles of one run of equal
// tiles, n/2 merges whichever way the run slides): one score per axis.
func (s *Expectimax) maxLeaves(b Board) float64 {
	t := b.Transpose()
	up, down := slideCols(b, t, &colUp), slideCols(b, t, &colDown)
	left, right := slideRows(b, &rowLeft), slideRows(b, &rowRight)
	n := uint64(1) // this node and its leaves
	best, found := 0.0, false
	if up != b || down != b {
		score := s.scoreMul * float64(lineScore(t))
		if up != b {
			n++
			best, found = score+s.eval.Evaluate(up), true
		}
		if down != b {
			n++
			if v := score + s.eval.Evaluate(down); !found || v > best {
				best, found = v, true
			}
		}
	}
	if left != b || right != b {
		score := s.scoreMul * float64(lineScore(b))
		if left != b {
			n++
			if v := score + s.eval.Evaluate(left); !found || v > best {
				best, found = v, true
			}
		}
		if right != b {
			n++
			if v := score + s.eval.Evaluate(right); !found || v > best {
				best, found = v, true
			}
		}
	}
	s.nodes += n
	if !found {
		return s.opts.LossValue
	}
	return best
}

// lineScore is the score of sliding every row of b either way.
func lineScore(b Board) int {
	x := uint64(b)
	return 4 * (int(rowScore[uint16(x)]) + int(rowScore[uint16(x>>16)]) + int(rowScore[uint16(x>>32)]) + int(rowScore[uint16(x>>48)]))
}

// axisBase is what the move layers below one spawn layer share along one
// axis: the rows of its board c (for the horizontal moves) or of c's
// transpose (the columns, for the vertical moves), each slid either way,
// with their values in that axis's tables. A move layer of c plus a tile in
// line k takes all of it but line k's share.
type axisBase struct {
	slid  [2]Board      // c's lines slid toward their start, toward their end
	val   [2][4]float64 // each slid line's value
	pair  [2][2]float64 // val[j][0] + val[j][1], val[j][2] + val[j][3]
	other [2][4]uint8   // the largest key of the slid lines but line k
	score [4]int        // the lines' score (either way) without line k's
}

// init fills a for the lines of x, valued by vals and keyed by keys (each
// nil for none).
func (a *axisBase) init(x Board, vals *[4]*[1 << 16]float64, keys *[4]*[1 << 16]uint8) {
	x0, x1, x2, x3 := uint16(x), uint16(x>>16), uint16(x>>32), uint16(x>>48)
	s0, s1, s2, s3 := 4*int(rowScore[x0]), 4*int(rowScore[x1]), 4*int(rowScore[x2]), 4*int(rowScore[x3])
	total := s0 + s1 + s2 + s3
	a.score = [4]int{total - s0, total - s1, total - s2, total - s3}
	for j, tab := range &slides {
		l0, l1, l2, l3 := tab[x0], tab[x1], tab[x2], tab[x3]
		a.slid[j] = Board(l0) | Board(l1)<<16 | Board(l2)<<32 | Board(l3)<<48
		if vals != nil {
			v0, v1, v2, v3 := vals[0][l0], vals[1][l1], vals[2][l2], vals[3][l3]
			a.val[j] = [4]float64{v0, v1, v2, v3}
			a.pair[j] = [2]float64{v0 + v1, v2 + v3}
		}
		if keys != nil {
			k0, k1, k2, k3 := keys[0][l0], keys[1][l1], keys[2][l2], keys[3][l3]
			k01, k23 := maxKey(k0, k1), maxKey(k2, k3)
			a.other[j] = [4]uint8{maxKey(k1, k23), maxKey(k0, k23), maxKey(k3, k01), maxKey(k2, k01)}
		}
	}
}

// spawnLeaves is the sum over the empty cells (free, in increasing order)
// of c of 0.9·max(c+2, 1) + 0.1·max(c+4, 1), for an evaluator with tables:
// chance(c, 2) but for the division by the empty cells.
func (s *Expectimax) spawnLeaves(c Board, free uint64) float64 {
	l := s.lines
	t := c.Transpose()
	var h, v axisBase
	var rowKeys, colKeys *[4]*[1 << 16]uint8
	if l.Keys[0] != nil {
		rowKeys = &l.Keys
		if l.ColKeys[0] != nil {
			colKeys = &l.ColKeys
		}
	}
	var colVals *[4]*[1 << 16]float64
	if l.Cols[0] != nil {
		colVals = &l.Cols
	}
	h.init(c, &l.Rows, rowKeys)
	v.init(t, colVals, colKeys)
	sum := 0.0
	for ; free != 0; free &= free - 1 {
		shift := bits.TrailingZeros64(free)
		r, k := shift>>4, shift>>2&3 // the cell's row and column
		ts := 4 * (4*k + r)          // its place in the transpose
		var v2, v4 float64
		if s.uniform {
			v2 = s.leafLayerUniform(&h, &v, c|1<<shift, t|1<<ts, r, k)
			v4 = s.leafLayerUniform(&h, &v, c|2<<shift, t|2<<ts, r, k)
		} else {
			v2 = s.leafLayer(&h, &v, c|1<<shift, t|1<<ts, r, k)
			v4 = s.leafLayer(&h, &v, c|2<<shift, t|2<<ts, r, k)
		}
		sum += 0.9*v2 + 0.1*v4
	}
	return sum
}

// leafLayerUniform is leafLayer for tables where one table values every
// line (s.uniform): one table pointer, the key of a vertical move read
// from its columns.
func (s *Expectimax) leafLayerUniform(h, v *axisBase, b, t Board, r, k int) float64 {
	l := s.lines
	tab := l.Rows[0]
	r, k = r&3, k&3
	hasKeys := l.Keys[0] != nil
	n := uint64(1) // this node and its leaves
	best := math.Inf(-1)

	col := uint16(t >> (16 * k))
	cmask := ^(Board(0xffff) << (16 * k))
	vscore := s.scoreMul * float64(v.score[k]+4*int(rowScore[col]))
	pair := v.pair[0][k>>1^1]
	sl := rowLeft[col]
	if mt := v.slid[0]&cmask | Board(sl)<<(16*k); mt != t {
		n++
		x := uint64(mt)
		val := ((tab[line(x, 0)] + tab[line(x, 1)]) + (tab[line(x, 2)] + tab[line(x, 3)])) + ((tab[sl] + v.val[0][k^1]) + pair)
		if hasKeys {
			val += l.KeyValue[maxKey(v.other[0][k], l.ColKeys[k][sl])]
		}
		best = max(best, vscore+val)
	}
	pair = v.pair[1][k>>1^1]
	sl = rowRight[col]
	if mt := v.slid[1]&cmask | Board(sl)<<(16*k); mt != t {
		n++
		x := uint64(mt)
		val := ((tab[line(x, 0)] + tab[line(x, 1)]) + (tab[line(x, 2)] + tab[line(x, 3)])) + ((tab[sl] + v.val[1][k^1]) + pair)
		if hasKeys {
			val += l.KeyValue[maxKey(v.other[1][k], l.ColKeys[k][sl])]
		}
		best = max(best, vscore+val)
	}

	row := uint16(b >> (16 * r))
	rmask := ^(Board(0xffff) << (16 * r))
	hscore := s.scoreMul * float64(h.score[r]+4*int(rowScore[row]))
	pair = h.pair[0][r>>1^1]
	sl = rowLeft[row]
	if m := h.slid[0]&rmask | Board(sl)<<(16*r); m != b {
		n++
		y := uint64(m)
		val := ((tab[sl] + h.val[0][r^1]) + pair) + ((tab[line(y, 0)] + tab[line(y, 1)]) + (tab[line(y, 2)] + tab[line(y, 3)]))
		if hasKeys {
			val += l.KeyValue[maxKey(h.other[0][r], l.Keys[r][sl])]
		}
		best = max(best, hscore+val)
	}
	pair = h.pair[1][r>>1^1]
	sl = rowRight[row]
	if m := h.slid[1]&rmask | Board(sl)<<(16*r); m != b {
		n++
		y := uint64(m)
		val := ((tab[sl] + h.val[1][r^1]) + pair) + ((tab[line(y, 0)] + tab[line(y, 1)]) + (tab[line(y, 2)] + tab[line(y, 3)]))
		if hasKeys {
			val += l.KeyValue[maxKey(h.other[1][r], l.Keys[r][sl])]
		}
		best = max(best, hscore+val)
	}
	s.nodes += n
	if n == 1 {
		return s.opts.LossValue
	}
	return best
}

// leafLayer is max(b, 1) for a board b (transpose t) that is the board of
// h and v with a tile added in row r, column k: the vertical moves take
// v's columns but column k, the horizontal ones h's rows but row r. Each
// move is written out: a loop over the two directions of an axis costs a
// quarter more (the table of slide tables read through, the indexes).
func (s *Expectimax) leafLayer(h, v *axisBase, b, t Board, r, k int) float64 {
	r, k = r&3, k&3
	n := uint64(1) // this node and its leaves
	best := math.Inf(-1)
	col := uint16(t >> (16 * k))
	cmask := ^(Board(0xffff) << (16 * k))
	vscore := s.scoreMul * float64(v.score[k]+4*int(rowScore[col]))
	if sl := rowLeft[col]; v.slid[0]&cmask|Board(sl)<<(16*k) != t {
		n++
		best = max(best, vscore+s.colMove(v, 0, k, sl))
	}
	if sl := rowRight[col]; v.slid[1]&cmask|Board(sl)<<(16*k) != t {
		n++
		best = max(best, vscore+s.colMove(v, 1, k, sl))
	}
	row := uint16(b >> (16 * r))
	rmask := ^(Board(0xffff) << (16 * r))
	hscore := s.scoreMul * float64(h.score[r]+4*int(rowScore[row]))
	if sl := rowLeft[row]; h.slid[0]&rmask|Board(sl)<<(16*r) != b {
		n++
		best = max(best, hscore+s.rowMove(h, 0, r, sl))
	}
	if sl := rowRight[row]; h.slid[1]&rmask|Board(sl)<<(16*r) != b {
		n++
		best = max(best, hscore+s.rowMove(h, 1, r, sl))
	}
	s.nodes += n
	if n == 1 {
		return s.opts.LossValue
	}
	return best
}

// line returns line j across b: the nibbles at offset 4j of its four
// 16-bit lines, first in the low nibble (column j of a board, or row j of
// a transpose), gathered by a multiply whose partial products do not
// overlap; cheaper than transposing the board for four of them.
func line(b uint64, j int) uint16 {
	return uint16((b >> (4 * j) & 0x000f000f000f000f) * 0x0001001001001000 >> 48)
}

// colMove is eval of the board that the vertical move toward the start
// (j = 0) or the end (j = 1) of the lines makes from v's board with column
// k slid to sl: its rows are the lines across the moved transpose.
func (s *Expectimax) colMove(v *axisBase, j, k int, sl uint16) float64 {
	l := s.lines
	k &= 3
	x := uint64(v.slid[j&1]&^(Board(0xffff)<<(16*k)) | Board(sl)<<(16*k))
	val := (l.Rows[0][line(x, 0)] + l.Rows[1][line(x, 1)]) + (l.Rows[2][line(x, 2)] + l.Rows[3][line(x, 3)])
	if l.Cols[0] != nil {
		val += (l.Cols[k][sl] + v.val[j&1][k^1]) + v.pair[j&1][k>>1^1]
	}
	switch {
	case l.KeyValue == nil:
	case l.ColKeys[0] != nil:
		val += l.KeyValue[maxKey(v.other[j&1][k], l.ColKeys[k][sl])]
	default:
		val += l.KeyValue[maxKey(maxKey(l.Keys[0][line(x, 0)], l.Keys[1][line(x, 1)]), maxKey(l.Keys[2][line(x, 2)], l.Keys[3][line(x, 3)]))]
	}
	return val
}

// rowMove is eval of the board that the horizontal move toward the start
// (j = 0) or the end (j = 1) of the rows makes from h's board with row r
// slid to sl: its columns are the lines across it.
func (s *Expectimax) rowMove(h *axisBase, j, r int, sl uint16) float64 {
	l := s.lines
	r &= 3
	val := (l.Rows[r][sl] + h.val[j&1][r^1]) + h.pair[j&1][r>>1^1]
	if l.Cols[0] != nil {
		y := uint64(h.slid[j&1]&^(Board(0xffff)<<(16*r)) | Board(sl)<<(16*r))
		val += (l.Cols[0][line(y, 0)] + l.Cols[1][line(y, 1)]) + (l.Cols[2][line(y, 2)] + l.Cols[3][line(y, 3)])
	}
	if l.KeyValue != nil {
		val += l.KeyValue[maxKey(h.other[j&1][r], l.Keys[r][sl])]
	}
	return val
}
