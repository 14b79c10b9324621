package engine

import (
	"errors"
	"fmt"
	"math/bits"
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
	// each); 0 means no table. At most 30. The table lives from one Reset
	// to the next (a game, for a player).
	TableBits int
	// ProbCutoff evaluates a spawn layer as a leaf once the probability of
	// reaching it falls below this value; 0 turns pruning off. With pruning
	// off the table never changes a value.
	ProbCutoff float64
	// HeuristicOnly leaves move scores out: positions are valued by the
	// evaluator alone, so multiplying every weight of a linear evaluator by a
	// positive constant changes no decision.
	HeuristicOnly bool
	// Adaptive searches shallow boards less deep: from a root board with k
	// distinct tile values the depth is min(Depth, max(3, 2(k-2)+1)) plies,
	// the rule of nneonneo/2048-ai (its depth in moves, max(3, k-2), counts
	// the root move plus that many more; here without its floor of 7
	// plies). Off, every root is searched Depth plies.
	Adaptive bool
}

// Validate reports the first option out of range, naming it: the rules of
// SearchConfig.Validate for an expectimax search.
func (o ExpectimaxOptions) Validate() error {
	return SearchConfig{Algorithm: AlgorithmExpectimax, Depth: o.Depth, TableBits: o.TableBits, ProbCutoff: o.ProbCutoff, Adaptive: o.Adaptive}.Validate()
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
// the remaining plies of the spawn layer it describes, and its value. tag
// names the table's lifetime that wrote it (see tableScope); entries of an
// earlier one read as empty.
type ttEntry struct {
	key    Board
	value  float64
	tag    uint32
	search uint16 // the search that wrote it: older ones give way (scopeGame)
	depth  uint8
}

// tableScope is how long table entries stay valid. Every scope gives the
// same values (with the cutoff off); they differ in what they can reuse and
// in how much memory they keep warm. Players keep the table for the game
// (scopeGame): a later search meets entries of an earlier one at the same
// remaining depth, since two spawned 2s can make the board one spawned 4
// makes, and on positions from real games that saved 3% of the nodes at 5
// plies and 6-9% at 7 (BenchmarkTable). A table per root move, as
// nneonneo/2048-ai keeps, loses the transpositions between root moves (left
// then up reaches what up then left does): 7% more nodes at 5 plies, 15-25%
// at 7. The other scopes stay for the benchmarks that measured this.
type tableScope uint8

const (
	scopeGame     tableScope = iota // from one Reset to the next
	scopeSearch                     // one Search or Move call
	scopeRootMove                   // one root move's subtree
)

// Expectimax searches boards with an Evaluator. It caches spawn layers in an
// optional transposition table allocated once, so a player searches a whole
// game without allocating. A searcher is not safe for concurrent use; give
// each goroutine its own.
type Expectimax struct {
	eval     Evaluator
	lines    *Lines // eval's tables if it is a LineEvaluator, read at the leaves
	uniform  bool   // lines has one table for every line (Lines.uniform)
	opts     ExpectimaxOptions
	scoreMul float64 // 1, or 0 when HeuristicOnly; multiplying by 1 is exact
	table    []ttEntry
	mask     uint64
	scope    tableScope
	tag      uint32 // the current lifetime's tag; entries with another are stale
	search   uint16 // counts searches
	depth    int    // the depth of the current search (Adaptive may lower it)
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
	s := &Expectimax{opts: opts, tag: 1, scoreMul: 1}
	s.setEvaluator(e)
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
	s.setEvaluator(e)
	s.Reset()
}

func (s *Expectimax) setEvaluator(e Evaluator) {
	s.eval, s.lines = e, linesOf(e)
	s.uniform = s.lines != nil && s.lines.uniform()
}

// Reset forgets every cached value. Play calls it before each game so that a
// game never depends on the games searched before it.
func (s *Expectimax) Reset() { s.retag() }

// retag starts a new table lifetime: every entry written so far reads as
// empty from now on.
func (s *Expectimax) retag() {
	s.tag++
	if s.tag == 0 { // wrapped: stale entries could read as current
		clear(s.table)
		s.tag = 1
	}
}

// Search evaluates every legal move of b and returns the root value, the
// node and table-hit counts, and each legal move's value and nodes.
func (s *Expectimax) Search(b Board) SearchResult {
	res := SearchResult{}
	s.begin(b)
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
	s.begin(b)
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
	if s.scope == scopeRootMove {
		s.retag()
	}
	return s.scoreMul*float64(score) + s.chance(nb, s.depth-1, 1), true
}

// Nodes returns the nodes and table hits of the last search.
func (s *Expectimax) Nodes() (nodes, hits uint64) { return s.nodes, s.hits }

func (s *Expectimax) begin(b Board) {
	s.nodes, s.hits = 0, 0
	s.search++
	if s.scope == scopeSearch {
		s.retag()
	}
	s.depth = s.opts.Depth
	if s.opts.Adaptive {
		s.depth = min(s.depth, max(3, 2*(b.DistinctTiles()-2)+1))
	}
}

// Depth returns the depth in plies of the last search: Depth, or less
// with Adaptive.
func (s *Expectimax) Depth() int { return s.depth }

// max is the move layer: the best move's score plus the spawn layer below it.
// The four moves are written out in tie-breaking order rather than looped
// over: a loop through moveWith's switch cost 15% of a search's time
// (BenchmarkTable, pprof).
func (s *Expectimax) max(b Board, d int, prob float64) float64 {
	s.nodes++
	if d == 0 {
		return s.evaluate(b)
	}
	t := b.Transpose() // shared by up and down
	best, found := 0.0, false
	if nb, score := moveCols(b, t, &colUp); nb != b {
		best, found = s.after(nb, score, d, prob), true
	}
	if nb, score := moveCols(b, t, &colDown); nb != b {
		if v := s.after(nb, score, d, prob); !found || v > best {
			best, found = v, true
		}
	}
	if nb, score := moveRows(b, &rowLeft); nb != b {
		if v := s.after(nb, score, d, prob); !found || v > best {
			best, found = v, true
		}
	}
	if nb, score := moveRows(b, &rowRight); nb != b {
		if v := s.after(nb, score, d, prob); !found || v > best {
			best, found = v, true
		}
	}
	if !found {
		return s.opts.LossValue
	}
	return best
}

// after is the value of a legal move from a move layer with d plies left:
// the move's score plus the spawn layer below, nb being the board it leaves.
func (s *Expectimax) after(nb Board, score, d int, prob float64) float64 {
	return s.scoreMul*float64(score) + s.chance(nb, d-1, prob)
}

// chance is the spawn layer: the mean over empty cells of 0.9 times the value
// with a 2 there plus 0.1 times the value with a 4, summed in increasing cell
// order. prob is the probability of reaching b from the root.
func (s *Expectimax) chance(b Board, d int, prob float64) float64 {
	s.nodes++
	// The loops below visit the empty cells only, in increasing order.
	free := b.emptyCells()
	empty := bits.OnesCount64(free)
	if d == 0 || empty == 0 || prob < s.opts.ProbCutoff {
		return s.evaluate(b)
	}
	var slot *ttEntry
	if s.table != nil {
		slot = &s.table[s.index(b, d)]
		if slot.key == b && int(slot.depth) == d && slot.tag == s.tag {
			s.hits++
			return slot.value
		}
	}
	sum := 0.0
	if d == 1 { // the move layer below is a leaf: skip the calls
		s.nodes += 2 * uint64(empty)
		for m := free; m != 0; m &= m - 1 {
			two := Board(m & -m) // the lowest empty cell, holding a 2
			sum += 0.9*s.evaluate(b|two) + 0.1*s.evaluate(b|two<<1)
		}
	} else if d == 2 && s.lines != nil { // the move layers below have only leaves: leaves.go
		sum = s.spawnLeaves(b, free)
	} else if d == 2 {
		for m := free; m != 0; m &= m - 1 {
			two := Board(m & -m)
			sum += 0.9*s.maxLeaves(b|two) + 0.1*s.maxLeaves(b|two<<1)
		}
	} else {
		p2 := prob * 0.9 / float64(empty)
		p4 := prob * 0.1 / float64(empty)
		for m := free; m != 0; m &= m - 1 {
			two := Board(m & -m)
			sum += 0.9*s.max(b|two, d-1, p2) + 0.1*s.max(b|two<<1, d-1, p4)
		}
	}
	v := sum / float64(empty)
	// A live entry of this search gives way only to one at least as deep,
	// which saves more work when it hits.
	if slot != nil && (slot.tag != s.tag || slot.search != s.search || d >= int(slot.depth)) {
		*slot = ttEntry{key: b, value: v, tag: s.tag, search: s.search, depth: uint8(d)}
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

// PlayCutoff is the probability cutoff players use at depth plies unless
// told otherwise, chosen by CPU per move at equal strength in seeded games
// (docs/measurements.md, "Search at depth"): 0.02 at 4 and 5 plies, where it values the
// spawn of a 4 on a board with more than 5 empty cells one move layer
// short, and 1e-3 from 6 plies on. At 3 plies or less it could not fire
// (every spawn layer below the root is a leaf anyway), so there it is 0,
// the exact search, and a config at those depths reads as it always did.
func PlayCutoff(depth int) float64 {
	switch {
	case depth <= 3:
		return 0
	case depth <= 5:
		return 0.02
	}
	return 1e-3
}
