package engine

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// BeamOptions configures a Beam searcher.
type BeamOptions struct {
	// Width is the number of boards kept per layer (K); at least 1.
	Width int
	// Depth is the search depth in plies, counted as for expectimax;
	// MinDepth to MaxDepth.
	Depth int
	// LossValue is the value of a board with no legal move.
	LossValue float64
	// HeuristicOnly leaves move scores out, as for ExpectimaxOptions.
	HeuristicOnly bool
}

// Validate reports the first option out of range, naming it: the rules of
// SearchConfig.Validate for a beam search.
func (o BeamOptions) Validate() error {
	return SearchConfig{Algorithm: AlgorithmBeam, Depth: o.Depth, Width: o.Width}.Validate()
}

// beamState is a board on the beam with the probability of reaching it from
// the root move and the expected score accumulated on the way.
type beamState struct {
	board Board
	p     float64
	acc   float64
	ev    float64 // eval(board), NaN until computed
}

func (st beamState) value() float64 { return st.acc + st.ev }

// Beam is a beam search that values each legal root move separately:
//
//   - Its beam starts with the board after the move, probability 1 and the
//     move's score.
//   - A spawn ply replaces every state by all its spawns (each empty cell, a
//     2 with probability 0.9 and a 4 with 0.1, divided by the empty count).
//   - A move ply replaces every state by the board after its best move,
//     the move maximising score + eval(after) (ties to the earlier Dir), and
//     adds that score; a state with no legal move ends with the loss value.
//   - After each ply, equal boards merge (probabilities add, accumulated
//     scores average by probability), states rank by accumulated score +
//     eval, and only the best Width stay; ties rank by board.
//
// The move's value is the probability-weighted sum of accumulated score +
// eval over every state that left the beam (pruned, lost or surviving to the
// last ply), so no probability mass is dropped: with an unlimited width and
// at most 3 plies it equals the expectimax value. Buffers are reused, so a
// search allocates nothing once warm. Not safe for concurrent use.
type Beam struct {
	eval     Evaluator
	opts     BeamOptions
	scoreMul float64 // 1, or 0 when HeuristicOnly
	cur, nxt []beamState
	nodes    uint64
}

// NewBeam returns a beam searcher.
func NewBeam(e Evaluator, opts BeamOptions) (*Beam, error) {
	if e == nil {
		return nil, fmt.Errorf("%w: no evaluator", ErrSearch)
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	s := &Beam{eval: e, opts: opts, scoreMul: 1}
	if opts.HeuristicOnly {
		s.scoreMul = 0
	}
	return s, nil
}

// SetEvaluator switches evaluators.
func (s *Beam) SetEvaluator(e Evaluator) { s.eval = e }

// Search values every legal move of b. Nodes counts the boards evaluated.
func (s *Beam) Search(b Board) SearchResult {
	res := SearchResult{Value: s.opts.LossValue}
	s.nodes = 0
	for _, d := range Dirs {
		nb, score, ok := b.Move(d)
		if !ok {
			continue
		}
		before := s.nodes
		v := s.value(nb, score)
		res.Moves = append(res.Moves, MoveValue{Dir: d, Value: v, Nodes: s.nodes - before})
		if !res.HasMove || v > res.Value {
			res.Value, res.Best, res.HasMove = v, d, true
		}
	}
	res.Nodes = s.nodes
	return res
}

// Move returns the best move from b, which must have a legal move.
func (s *Beam) Move(b Board) Dir {
	s.nodes = 0
	best, bestDir, found := 0.0, Up, false
	for _, d := range Dirs {
		nb, score, ok := b.Move(d)
		if !ok {
			continue
		}
		if v := s.value(nb, score); !found || v > best {
			best, bestDir, found = v, d, true
		}
	}
	return bestDir
}

func (s *Beam) evaluate(b Board) float64 {
	s.nodes++
	return s.eval.Evaluate(b)
}

// value runs the beam below one root move.
func (s *Beam) value(after Board, score int) float64 {
	acc := s.scoreMul * float64(score)
	s.cur = append(s.cur[:0], beamState{board: after, p: 1, acc: acc, ev: s.evaluate(after)})
	total := 0.0
	for ply := 2; ply <= s.opts.Depth && len(s.cur) > 0; ply++ {
		s.nxt = s.nxt[:0]
		if ply%2 == 0 {
			s.spawnPly()
		} else {
			total += s.movePly()
		}
		s.cur, s.nxt = s.nxt, s.cur
		total += s.prune()
	}
	for _, st := range s.cur {
		total += st.p * st.value()
	}
	return total
}

// spawnPly expands every state into its spawns.
func (s *Beam) spawnPly() {
	for _, st := range s.cur {
		empty := st.board.CountEmpty()
		if empty == 0 { // cannot follow a legal move; kept as it is
			s.nxt = append(s.nxt, st)
			continue
		}
		p2, p4 := st.p*0.9/float64(empty), st.p*0.1/float64(empty)
		for shift := 0; shift < 64; shift += 4 {
			if st.board>>shift&0xf != 0 {
				continue
			}
			s.nxt = append(s.nxt,
				beamState{board: st.board | 1<<shift, p: p2, acc: st.acc, ev: math.NaN()},
				beamState{board: st.board | 2<<shift, p: p4, acc: st.acc, ev: math.NaN()})
		}
	}
}

// movePly plays every state's best move; it returns the probability-weighted
// loss value of the states that have none.
func (s *Beam) movePly() float64 {
	lost := 0.0
	for _, st := range s.cur {
		t := st.board.Transpose()
		var best beamState
		found := false
		for _, d := range Dirs {
			nb, score, ok := moveWith(st.board, t, d)
			if !ok {
				continue
			}
			next := beamState{board: nb, p: st.p, acc: st.acc + s.scoreMul*float64(score), ev: s.evaluate(nb)}
			if !found || next.value() > best.value() {
				best, found = next, true
			}
		}
		if !found {
			lost += st.p * (st.acc + s.opts.LossValue)
			continue
		}
		s.nxt = append(s.nxt, best)
	}
	return lost
}

// prune merges equal boards in s.cur, ranks them and keeps the best Width; it
// returns the probability-weighted value of the states dropped.
func (s *Beam) prune() float64 {
	slices.SortFunc(s.cur, func(a, b beamState) int { return cmp.Compare(a.board, b.board) })
	n := 0
	for i := 0; i < len(s.cur); {
		st := s.cur[i]
		j := i + 1
		if j < len(s.cur) && s.cur[j].board == st.board {
			wacc := st.p * st.acc
			for ; j < len(s.cur) && s.cur[j].board == st.board; j++ {
				st.p += s.cur[j].p
				wacc += s.cur[j].p * s.cur[j].acc
			}
			st.acc = wacc / st.p
		}
		if math.IsNaN(st.ev) {
			st.ev = s.evaluate(st.board)
		}
		s.cur[n] = st
		n++
		i = j
	}
	s.cur = s.cur[:n]
	if n <= s.opts.Width {
		return 0
	}
	slices.SortFunc(s.cur, func(a, b beamState) int {
		if c := cmp.Compare(b.value(), a.value()); c != 0 {
			return c
		}
		return cmp.Compare(a.board, b.board)
	})
	dropped := 0.0
	for _, st := range s.cur[s.opts.Width:] {
		dropped += st.p * st.value()
	}
	s.cur = s.cur[:s.opts.Width]
	return dropped
}
