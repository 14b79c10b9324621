package engine

import (
	"fmt"
	"math/bits"
)

// NneonneoCutoff is the probability cutoff of nneonneo/2048-ai
// (CPROB_THRESH_BASE).
const NneonneoCutoff = 1e-4

// nnCacheDepthLimit is the program's CACHE_DEPTH_LIMIT: spawn layers this
// many moves or more from the root are not cached.
const nnCacheDepthLimit = 15

// NneonneoOptions configures an Nneonneo searcher. The zero value is the
// program as published: no cap (its adaptive depth) and its cutoff.
type NneonneoOptions struct {
	// Cap limits the search to the root move plus at most Cap more moves
	// (2·Cap+1 plies); 0 means no cap. From a root board b the limit is
	// min(Cap, max(3, distinct(b)-2)) more moves, distinct(b) being the
	// number of different tiles on b, so caps 1 to 3 are fixed depths.
	Cap int
	// ProbCutoff makes a spawn layer a leaf once the probability of
	// reaching it falls below this value (compared in float32, as the
	// program does); 0 means NneonneoCutoff.
	ProbCutoff float64
}

// Validate reports the first option out of range, naming it.
func (o NneonneoOptions) Validate() error {
	switch {
	case o.Cap < 0 || o.Cap > 255:
		return fmt.Errorf("%w: cap %d: want 0 (none) to 255 moves", ErrSearch, o.Cap)
	case !(o.ProbCutoff >= 0 && o.ProbCutoff < 1):
		return fmt.Errorf("%w: probability cutoff %v: want 0 (the program's 1e-4) or in (0, 1)", ErrSearch, o.ProbCutoff)
	}
	return nil
}

// Nneonneo is the search of nneonneo/2048-ai (2048.cpp), reproduced so that
// an evaluator tuned with it means the same thing in that program: its
// _score_toplevel_move for each root move, node for node and in its float32
// arithmetic, so that with the program's heuristic (the nneonneo feature
// set) every root move's value equals the program's bit for bit.
//
//   - Values are the evaluator's alone (no move scores), rounded to float32.
//   - A move layer is worth the best of its moves' spawn layers, and at
//     least 0 (the program starts its maximum at 0): so a board with no
//     legal move is worth 0, and so is one whose moves are all worth less.
//   - A spawn layer is a leaf when the probability of reaching it is below
//     the cutoff or the depth limit is reached (the moves made since the
//     root, the root move not counted, reach the limit). The probability is
//     1 after the root move and is divided by the empty cells of each board
//     spawned on and multiplied by 0.9 for a 2, 0.1 for a 4; otherwise it is
//     the mean over empty cells of 0.9·(the 2's move layer) + 0.1·(the 4's).
//   - A table, fresh for each root move, keyed by the board, remembers each
//     spawn layer's value with the moves made since the root when it was
//     computed; a spawn layer at that many moves or more reuses it (an entry
//     from nearer the root searched at least as deep), a new value replaces
//     it. Layers 15 or more moves deep are not cached.
//   - A legal root move is worth float32(value + 1e-6), an illegal one
//     nothing; Move plays the first move of largest value. (The program
//     plays only a move worth more than 0 and gives up otherwise.)
//
// One rule differs from the program's, and only at rank 15: the program
// merges two 32768 tiles into one 32768, these rules do not merge them.
//
// The table grows as a search needs it and is kept, so a player stops
// allocating once it has met its deepest position. A searcher is not safe
// for concurrent use; give each goroutine its own.
type Nneonneo struct {
	eval   Evaluator
	lines  *[1 << 16]float32 // eval's table if it is a LineTable32, read at the leaves
	opts   NneonneoOptions
	cutoff float32
	limit  int // moves below the root move at which spawn layers are leaves
	depth  int // moves made since the root move: the program's curdepth
	table  nnTable
	nodes  uint64
	hits   uint64
	moves  uint64 // move layers searched: 4 of the program's moves_evaled each
}

var _ Searcher = (*Nneonneo)(nil)

// NewNneonneo returns a searcher with the evaluator e.
func NewNneonneo(e Evaluator, opts NneonneoOptions) (*Nneonneo, error) {
	if e == nil {
		return nil, fmt.Errorf("%w: no evaluator", ErrSearch)
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	cutoff := opts.ProbCutoff
	if cutoff == 0 {
		cutoff = NneonneoCutoff
	}
	s := &Nneonneo{opts: opts, cutoff: float32(cutoff)}
	s.SetEvaluator(e)
	s.table.init(10)
	return s, nil
}

// SetEvaluator switches evaluators. Nothing else changes: the table holds
// nothing from one root move to the next.
func (s *Nneonneo) SetEvaluator(e Evaluator) {
	s.eval, s.lines = e, nil
	if l, ok := e.(LineTable32); ok {
		s.lines = l.LineTable32()
	}
}

// depthLimit returns the moves below the root move that a search from b
// makes: min(Cap, max(3, distinct(b)-2)), without the minimum when Cap is 0.
func (s *Nneonneo) depthLimit(b Board) int {
	limit := max(3, b.DistinctTiles()-2)
	if s.opts.Cap > 0 {
		limit = min(limit, s.opts.Cap)
	}
	return limit
}

// Search values every legal root move of b. The root value is the largest
// move value, 0 without a legal move. Nodes counts every spawn and move
// layer and the root; TTHits the spawn layers answered by the table.
func (s *Nneonneo) Search(b Board) SearchResult {
	s.nodes, s.hits, s.moves = 0, 0, 0
	s.limit = s.depthLimit(b)
	res := SearchResult{}
	best := float32(0)
	for _, d := range Dirs {
		before := s.nodes
		v, ok := s.root(b, d)
		if !ok {
			continue
		}
		res.Moves = append(res.Moves, MoveValue{Dir: d, Value: float64(v), Nodes: s.nodes - before})
		if !res.HasMove || v > best {
			best, res.Best, res.HasMove = v, d, true
		}
	}
	s.nodes++ // the root
	res.Value = float64(best)
	res.Nodes, res.TTHits = s.nodes, s.hits
	return res
}

// Move returns the first legal move of largest value; b must have a legal
// move. It does not allocate once the table has grown to what b needs.
func (s *Nneonneo) Move(b Board) Dir {
	s.nodes, s.hits, s.moves = 0, 0, 0
	s.limit = s.depthLimit(b)
	best, bestDir, found := float32(0), Up, false
	for _, d := range Dirs {
		if v, ok := s.root(b, d); ok && (!found || v > best) {
			best, bestDir, found = v, d, true
		}
	}
	return bestDir
}

// Nodes returns the nodes and table hits of the last search.
func (s *Nneonneo) Nodes() (nodes, hits uint64) { return s.nodes, s.hits }

// Evaluated returns the program's count of evaluated moves (moves_evaled)
// for the last search: 4 per move layer, legal or not. Of the program's
// own figures it is the one that pins the shape of the tree searched, so a
// port checks it, and so does package eval's test against the program.
func (s *Nneonneo) Evaluated() uint64 { return 4 * s.moves }

// root is the program's _score_toplevel_move with a fresh table.
func (s *Nneonneo) root(b Board, d Dir) (float32, bool) {
	nb, _, ok := b.Move(d)
	if !ok {
		return 0, false
	}
	s.table.clear()
	s.depth = 0
	// The program adds the double 1e-6 to its float and returns a float.
	return float32(float64(s.chance(nb, 1)) + 1e-6), true
}

// chance is the program's score_tilechoose_node.
func (s *Nneonneo) chance(b Board, prob float32) float32 {
	s.nodes++
	// max and chance test for leaves before they call here, so only a
	// root move could meet one.
	if prob < s.cutoff || s.depth >= s.limit {
		return float32(s.eval.Evaluate(b))
	}
	cache := s.depth < nnCacheDepthLimit
	if cache {
		if v, depth, ok := s.table.get(b); ok && depth <= s.depth {
			s.hits++
			return v
		}
	}
	// A chance node follows a legal move, which always leaves an empty cell.
	empty := b.emptyCells()
	n := float32(bits.OnesCount64(empty))
	prob /= n
	p2, p4 := float32(prob*0.9), float32(prob*0.1)
	// max's test for leaves below it, made once for all the spawns: most
	// move layers of a deep search have only leaves below them.
	deep := s.depth+1 >= s.limit
	leaves2, leaves4 := deep || p2 < s.cutoff, deep || p4 < s.cutoff
	sum := float32(0)
	// The empty cells in increasing order, as the program visits them: the
	// float32 sum depends on the order.
	for ; empty != 0; empty &= empty - 1 {
		shift := bits.TrailingZeros64(empty)
		var v2, v4 float32
		if leaves2 {
			v2 = s.maxLeaves(b | 1<<shift)
		} else {
			v2 = s.max(b|1<<shift, p2)
		}
		if leaves4 {
			v4 = s.maxLeaves(b | 2<<shift)
		} else {
			v4 = s.max(b|2<<shift, p4)
		}
		// The conversions round each product as the program does and
		// keep the compiler from fusing it with the addition.
		sum += float32(v2 * 0.9)
		sum += float32(v4 * 0.1)
	}
	sum /= n
	if cache {
		s.table.put(b, s.depth, sum)
	}
	return sum
}

// max is the program's score_move_node.
func (s *Nneonneo) max(b Board, prob float32) float32 {
	depth := s.depth + 1
	if prob < s.cutoff || depth >= s.limit {
		// Every spawn layer below is a leaf: chance's first test, made
		// once here for all of them.
		return s.maxLeaves(b)
	}
	s.nodes++
	s.moves++
	s.depth = depth
	best := float32(0)
	t := b.Transpose()
	// The moves in the program's order.
	if nb := slideCols(b, t, &colUp); nb != b {
		best = nnMax(best, s.chance(nb, prob))
	}
	if nb := slideCols(b, t, &colDown); nb != b {
		best = nnMax(best, s.chance(nb, prob))
	}
	if nb := slideRows(b, &rowLeft); nb != b {
		best = nnMax(best, s.chance(nb, prob))
	}
	if nb := slideRows(b, &rowRight); nb != b {
		best = nnMax(best, s.chance(nb, prob))
	}
	s.depth = depth - 1
	return best
}

// maxLeaves is max when every spawn layer below it is a leaf: the best
// heuristic of the boards its moves make, at least 0. Most of a deep
// search's nodes are these leaves, so with a LineTable32 the table is read
// here rather than through Evaluate.
func (s *Nneonneo) maxLeaves(b Board) float32 {
	s.moves++
	t := b.Transpose()
	best := float32(0)
	n := uint64(1) // this node and its leaves
	if l := s.lines; l != nil {
		// The vertical moves as horizontal ones of the transpose, which
		// gives their boards' columns without transposing them. All four
		// moves first, so that their look-ups overlap.
		up, down := slideRows(t, &rowLeft), slideRows(t, &rowRight)
		left, right := slideRows(b, &rowLeft), slideRows(b, &rowRight)
		if up != t {
			n++
			best = nnMax(best, lineSum(l, up.Transpose(), up))
		}
		if down != t {
			n++
			best = nnMax(best, lineSum(l, down.Transpose(), down))
		}
		if left != b {
			n++
			best = nnMax(best, lineSum(l, left, left.Transpose()))
		}
		if right != b {
			n++
			best = nnMax(best, lineSum(l, right, right.Transpose()))
		}
	} else {
		up, down := slideCols(b, t, &colUp), slideCols(b, t, &colDown)
		left, right := slideRows(b, &rowLeft), slideRows(b, &rowRight)
		for _, nb := range [4]Board{up, down, left, right} {
			if nb != b {
				n++
				best = nnMax(best, float32(s.eval.Evaluate(nb)))
			}
		}
	}
	s.nodes += n
	return best
}

// lineSum is a LineTable32's value of the board b whose transpose is t:
// its rows, then its columns, each sum in float32 from left to right.
func lineSum(l *[1 << 16]float32, b, t Board) float32 {
	x, y := uint64(b), uint64(t)
	return (l[uint16(x)] + l[uint16(x>>16)] + l[uint16(x>>32)] + l[uint16(x>>48)]) +
		(l[uint16(y)] + l[uint16(y>>16)] + l[uint16(y>>32)] + l[uint16(y>>48)])
}

// nnMax is the program's std::max(best, v) for floats: best unless best < v
// (so best when v is NaN), which Go's max is not.
func nnMax(best, v float32) float32 {
	if best < v {
		return v
	}
	return best
}

// nnTable is a hash table from boards to (moves since the root, value) that
// never forgets an entry within a root move, like the program's
// unordered_map, and forgets them all in O(1) between root moves: each entry
// carries the epoch it was written in, and an entry of an older epoch reads
// as an empty slot. Open addressing with linear probing; nothing is ever
// deleted within an epoch, so a probe can stop at the first empty slot. It
// doubles when half full, which allocates only while a player meets deeper
// positions than before.
type nnTable struct {
	slots []nnSlot
	shift uint   // 64 - log2(len(slots)): the index is the hash's top bits
	epoch uint32 // of the current root move; 0 is never current
	used  int    // entries of the current epoch
}

type nnSlot struct {
	key   Board
	value float32
	tag   uint32 // epoch<<8 | moves since the root
}

const nnEpochs = 1 << 24

func (t *nnTable) init(logSize uint) {
	t.slots = make([]nnSlot, 1<<logSize)
	t.shift = 64 - logSize
	t.epoch = 1
	t.used = 0
}

// clear forgets every entry.
func (t *nnTable) clear() {
	t.epoch++
	t.used = 0
	if t.epoch == nnEpochs { // wrapped: old tags could read as current
		clear(t.slots)
		t.epoch = 1
	}
}

func (t *nnTable) index(b Board) uint64 {
	h := uint64(b) * 0x9E3779B97F4A7C15
	h ^= h >> 32
	return (h * 0xBF58476D1CE4E5B9) >> t.shift
}

func (t *nnTable) get(b Board) (value float32, depth int, ok bool) {
	mask := uint64(len(t.slots) - 1)
	for i := t.index(b); ; i = (i + 1) & mask {
		sl := &t.slots[i]
		if sl.tag>>8 != t.epoch {
			return 0, 0, false
		}
		if sl.key == b {
			return sl.value, int(sl.tag & 0xff), true
		}
	}
}

// put sets b's entry, replacing any.
func (t *nnTable) put(b Board, depth int, value float32) {
	mask := uint64(len(t.slots) - 1)
	tag := t.epoch<<8 | uint32(depth)
	for i := t.index(b); ; i = (i + 1) & mask {
		sl := &t.slots[i]
		if sl.tag>>8 != t.epoch {
			*sl = nnSlot{key: b, value: value, tag: tag}
			t.used++
			if 2*t.used > len(t.slots) {
				t.grow()
			}
			return
		}
		if sl.key == b {
			sl.value, sl.tag = value, tag
			return
		}
	}
}

// grow doubles the table, keeping the current entries.
func (t *nnTable) grow() {
	old := t.slots
	epoch := t.epoch
	t.init(uint(64-t.shift) + 1)
	t.epoch = epoch
	mask := uint64(len(t.slots) - 1)
	for _, sl := range old {
		if sl.tag>>8 != epoch {
			continue
		}
		i := t.index(sl.key)
		for t.slots[i].tag>>8 == epoch {
			i = (i + 1) & mask
		}
		t.slots[i] = sl
		t.used++
	}
}
