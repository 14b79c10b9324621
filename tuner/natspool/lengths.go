package natspool

import "math"

// How finely a batch is cut depends on how much its games differ in
// length. Guided self-scheduling (blocks for the fleet's slots) gives a
// job up to a slot's whole even part of the games left: where games are
// of one length, every slot's work then ends together, in the fewest jobs
// and so the fewest move requests. Where they differ (from candidate to
// candidate most of all, and a job is one candidate's), a job of long
// games ends the batch late while the other slots wait, and a job of half
// that part (factoring: blocks cut for twice the slots) leaves as many
// games again to even the slots out as they come free. The coordinator
// cannot know a batch's lengths before it is played, but a run's batches
// are alike: it measures the spread of the last batch's lengths and cuts
// the next one by it; guided until a batch says otherwise, as a pool cut
// every batch before it measured them. Cutting decides only which slot
// plays a game, never its result.

// unevenSpread is the coefficient of variation of a batch's game lengths
// (in moves) above which the next batch is cut by factoring. Games that
// nearly all reach a move limit have a spread under 0.1; games that end
// after 20 to 300 moves, about 0.6. Between them guided self-scheduling's
// larger jobs lose little to a long one, and factoring's smaller ones
// cost requests: a slot of 64 on 2 cores playing 1.3 boards a request
// instead of 1.8 took 8% longer a game (docs/many-machines.md).
const unevenSpread = 0.25

// minSpreadGames is the fewest games whose lengths say anything of the
// next batch's: a validation of 2 games leaves the cut as it was.
const minSpreadGames = 16

// spread returns the coefficient of variation (standard deviation over
// mean) of the lengths in moves of the games st asked for, and false if
// they are too few to tell. It walks them in batch order, so the same
// results give the same figure however they arrived.
func (st *batchState) spread() (float64, bool) {
	var n, sum, sq float64
	for c, want := range st.want {
		for g, w := range want {
			if !w {
				continue
			}
			m := float64(st.results[c][g].Moves)
			n, sum, sq = n+1, sum+m, sq+m*m
		}
	}
	if n < minSpreadGames || sum == 0 {
		return 0, false
	}
	mean := sum / n
	return math.Sqrt(max(0, sq/n-mean*mean)) / mean, true
}

// cutFor returns the slots to cut a batch for on a fleet of slots slots
// (0: unknown, then 0): twice as many (factoring) when the last batch
// measured had games of uneven lengths, else slots. A single slot has no
// other to even out with.
func (p *Pool) cutFor(slots int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if slots > 1 && p.uneven {
		return 2 * slots
	}
	return slots
}

// measured notes the spread of the lengths of a batch played to its end,
// for the cut of the next.
func (p *Pool) measured(st *batchState) {
	cv, ok := st.spread()
	if !ok {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.uneven = cv > unevenSpread
}
