package engine

import (
	"errors"
	"fmt"
)

// ErrSearch is wrapped by errors about search options.
var ErrSearch = errors.New("engine: bad search options")

// ExpectimaxOptions configures an Expectimax searcher. The zero value, with
// Depth set, is the exact mode of DESIGN.md: no table, no cutoff, loss value 0.
type ExpectimaxOptions struct {
	// Depth is the search depth in plies (a move layer and a spawn layer
	// count one each); MinDepth to MaxDepth.
	Depth int
	// LossValue is the value of a board with no legal move at a max layer.
	// 0 in the exact mode; play uses a large negative value so that the
	// player fears losing more than any evaluation it can reach.
	LossValue float64
	// TableBits sets a transposition table of 2^TableBits entries (24 bytes
	// each); 0 means no table. At most 30.
	TableBits int
	// ProbCutoff evaluates a spawn layer as a leaf once the probability of
	// reaching it falls below this value; 0 turns pruning off. With pruning
	// off the table never changes a value.
	ProbCutoff float64
	// HeuristicOnly leaves move scores out: positions are valued by the
	// evaluator alone, so multiplying every weight of a linear evaluator by a
	// positive constant changes no decision.
	HeuristicOnly bool
}

// Validate reports the first option out of range, naming it.
func (o ExpectimaxOptions) Validate() error {
	switch {
	case CheckDepth(o.Depth) != nil:
		return fmt.Errorf("%w: depth %w", ErrSearch, CheckDepth(o.Depth))
	case o.TableBits < 0 || o.TableBits > 30:
		return fmt.Errorf("%w: table bits %d: want 0 (no table) to 30", ErrSearch, o.TableBits)
	case !(o.ProbCutoff >= 0 && o.ProbCutoff < 1):
		return fmt.Errorf("%w: probability cutoff %v: want 0 (off) or in (0, 1)", ErrSearch, o.ProbCutoff)
	}
	return nil
}

// MoveValue is the value of one legal root move.
type MoveValue struct {
	Dir   Dir
	Value float64 // score(m) + chance(after(b, m), depth-1)
	Nodes uint64  // nodes in the move's subtree, its chance node included
}

// SearchResult reports one search from a root board.
type SearchResult struct {
	Value   float64 // the root value max(b, depth)
	Nodes   uint64  // every call of max or chance, the root included
	TTHits  uint64  // calls answered by the transposition table
	Best    Dir     // the legal move of largest value, ties to the earlier Dir
	HasMove bool    // false when the root has no legal move
	Moves   []MoveValue
}

// ttEntry is one transposition-table slot: the full board as a verified key,
// the remaining plies of the spawn layer it describes, and its value. epoch
// tags entries of the current game (older ones read as empty) and search the
// search that wrote them (older ones may always be replaced).
type ttEntry struct {
	key    Board
	value  float64
	epoch  uint32
	search uint16
	depth  uint8
}

// Expectimax searches boards with an Evaluator. It caches spawn layers in an
// optional transposition table that lives as long as the searcher, so a
// player reuses it across the moves of a game without allocating. A searcher
// is not safe for concurrent use; give each goroutine its own.
type Expectimax struct {
	eval     Evaluator
	opts     ExpectimaxOptions
	scoreMul float64 // 1, or 0 when HeuristicOnly; multiplying by 1 is exact
	table    []ttEntry
	mask     uint64
	epoch    uint32
	search   uint16
	nodes    uint64
	hits     uint64
}

// NewExpectimax returns a searcher; the table, if any, is allocated here once.
func NewExpectimax(e Evaluator, opts ExpectimaxOptions) (*Expectimax, error) {
	if e == nil {
		return nil, fmt.Errorf("%w: no evaluator", ErrSearch)
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	s := &Expectimax{eval: e, opts: opts, epoch: 1, scoreMul: 1}
	if opts.HeuristicOnly {
		s.scoreMul = 0
	}
	if opts.TableBits > 0 {
		s.table = make([]ttEntry, 1<<opts.TableBits)
		s.mask = 1<<opts.TableBits - 1
	}
	return s, nil
}

// SetEvaluator switches evaluators (a new candidate's weights, say) and
// forgets every cached value, without reallocating the table.
func (s *Expectimax) SetEvaluator(e Evaluator) {
	s.eval = e
	s.Reset()
}

// Reset forgets every cached value. Play calls it before each game so that a
// game never depends on the games searched before it.
func (s *Expectimax) Reset() {
	s.epoch++
	if s.epoch == 0 { // wrapped: stale entries could read as current
		clear(s.table)
		s.epoch = 1
	}
}

// Search evaluates every legal move of b and returns the root value, the
// node and table-hit counts, and each legal move's value and nodes.
func (s *Expectimax) Search(b Board) SearchResult {
	res := SearchResult{}
	s.begin()
	best := 0.0
	for _, d := range Dirs {
		before := s.nodes
		v, ok := s.root(b, d)
		if !ok {
			continue
		}
		res.Moves = append(res.Moves, MoveValue{Dir: d, Value: v, Nodes: s.nodes - before})
		if !res.HasMove || v > best {
			best, res.Best, res.HasMove = v, d, true
		}
	}
	s.nodes++ // the root
	res.Value = s.opts.LossValue
	if res.HasMove {
		res.Value = best
	}
	res.Nodes, res.TTHits = s.nodes, s.hits
	return res
}

// Move returns the best move from b, which must have a legal move; it
// implements Player without allocating.
func (s *Expectimax) Move(b Board) Dir {
	s.begin()
	best, bestDir, found := 0.0, Up, false
	for _, d := range Dirs {
		if v, ok := s.root(b, d); ok && (!found || v > best) {
			best, bestDir, found = v, d, true
		}
	}
	return bestDir
}

// root returns the value of the root move d from b,
// score(m) + chance(after(b, m), depth-1), and whether d is legal.
func (s *Expectimax) root(b Board, d Dir) (float64, bool) {
	nb, score, ok := b.Move(d)
	if !ok {
		return 0, false
	}
	return s.scoreMul*float64(score) + s.chance(nb, s.opts.Depth-1, 1), true
}

// Nodes returns the nodes and table hits of the last search.
func (s *Expectimax) Nodes() (nodes, hits uint64) { return s.nodes, s.hits }

func (s *Expectimax) begin() {
	s.nodes, s.hits = 0, 0
	s.search++
}

// max is the move layer: the best move's score plus the spawn layer below it.
func (s *Expectimax) max(b Board, d int, prob float64) float64 {
	s.nodes++
	if d == 0 {
		return s.eval.Evaluate(b)
	}
	t := b.Transpose() // shared by up and down
	best, found := 0.0, false
	for _, dir := range Dirs {
		nb, score, ok := moveWith(b, t, dir)
		if !ok {
			continue
		}
		var v float64
		if d == 1 { // the spawn layer below is a leaf: skip the call
			s.nodes++
			v = s.scoreMul*float64(score) + s.eval.Evaluate(nb)
		} else {
			v = s.scoreMul*float64(score) + s.chance(nb, d-1, prob)
		}
		if !found || v > best {
			best, found = v, true
		}
	}
	if !found {
		return s.opts.LossValue
	}
	return best
}

// chance is the spawn layer: the mean over empty cells of 0.9 times the value
// with a 2 there plus 0.1 times the value with a 4, summed in increasing cell
// order. prob is the probability of reaching b from the root.
func (s *Expectimax) chance(b Board, d int, prob float64) float64 {
	s.nodes++
	empty := b.CountEmpty()
	if d == 0 || empty == 0 || prob < s.opts.ProbCutoff {
		return s.eval.Evaluate(b)
	}
	var slot *ttEntry
	if s.table != nil {
		slot = &s.table[s.index(b, d)]
		if slot.key == b && int(slot.depth) == d && slot.epoch == s.epoch {
			s.hits++
			return slot.value
		}
	}
	p2 := prob * 0.9 / float64(empty)
	p4 := prob * 0.1 / float64(empty)
	sum := 0.0
	if d == 1 { // the move layer below is a leaf: skip the calls
		s.nodes += 2 * uint64(empty)
		for shift := 0; shift < 64; shift += 4 {
			if b>>shift&0xf == 0 {
				sum += 0.9*s.eval.Evaluate(b|1<<shift) + 0.1*s.eval.Evaluate(b|2<<shift)
			}
		}
	} else {
		for shift := 0; shift < 64; shift += 4 {
			if b>>shift&0xf == 0 {
				sum += 0.9*s.max(b|1<<shift, d-1, p2) + 0.1*s.max(b|2<<shift, d-1, p4)
			}
		}
	}
	v := sum / float64(empty)
	if slot != nil && (slot.epoch != s.epoch || slot.search != s.search || d >= int(slot.depth)) {
		*slot = ttEntry{key: b, value: v, epoch: s.epoch, search: s.search, depth: uint8(d)}
	}
	return v
}

// index hashes a board and depth to a table slot (a multiplicative hash; the
// high bits are the best mixed).
func (s *Expectimax) index(b Board, d int) uint64 {
	h := (uint64(b) ^ uint64(d)<<59) * 0x9E3779B97F4A7C15
	h ^= h >> 29
	h *= 0xBF58476D1CE4E5B9
	return (h >> 20) & s.mask
}
