package natspool

import (
	"math"
	"testing"

	"github.com/evotune/evotune/tuner"
)

// playedState is the state of a batch of cands x games played to its
// end, game (c, g) lasting moves(c, g) moves.
func playedState(cands, games int, moves func(c, g int) int) *batchState {
	b := plainBatch(cands, games)
	results := newResults(b)
	st := newBatchState(b, results, nil, 4, 0)
	for c := range cands {
		for g := range games {
			results[c][g].Moves = moves(c, g)
		}
	}
	return st
}

// TestSpread: the spread of a batch's lengths is their coefficient of
// variation, over the games asked for only, and unknown for fewer than
// minSpreadGames games.
func TestSpread(t *testing.T) {
	even := playedState(32, 8, func(c, g int) int { return 50 })
	if cv, ok := even.spread(); !ok || cv != 0 {
		t.Errorf("games of one length: spread %v, %v; want 0, true", cv, ok)
	}
	// Half the candidates play 20 moves, half 60: mean 40, deviation 20.
	halves := playedState(4, 8, func(c, g int) int { return 20 + 40*(c%2) })
	if cv, ok := halves.spread(); !ok || math.Abs(cv-0.5) > 1e-12 {
		t.Errorf("games of 20 and 60 moves: spread %v, %v; want 0.5, true", cv, ok)
	}
	// Games not asked for (a subset batch, as noise handling plays) do
	// not count, whatever their slots hold.
	b := &tuner.Batch{Vectors: make([][]float64, 4), Seeds: make([]uint64, 8)}
	for c := range 4 {
		for g := range 4 {
			b.Jobs = append(b.Jobs, tuner.Job{Candidate: c, Game: g})
		}
	}
	results := newResults(b)
	st := newBatchState(b, results, nil, 4, 0)
	for c := range 4 {
		for g := range 8 {
			results[c][g].Moves = 30
			if g >= 4 {
				results[c][g].Moves = 3000
			}
		}
	}
	if cv, ok := st.spread(); !ok || cv != 0 {
		t.Errorf("16 games of 30 moves asked for among others: spread %v, %v; want 0, true", cv, ok)
	}
	small := playedState(1, minSpreadGames-1, func(c, g int) int { return 10 * (g + 1) })
	if _, ok := small.spread(); ok {
		t.Errorf("%d games: a spread, want none", minSpreadGames-1)
	}
}

// TestCutFor: a pool cuts a batch for the fleet's slots (guided) until
// it has measured a batch of uneven lengths, then for twice as many
// (factoring) until it measures one of even lengths again; a batch of too
// few games changes nothing, a single slot is cut for as it is, and an
// unknown fleet stays unknown.
func TestCutFor(t *testing.T) {
	p := &Pool{}
	if got := p.cutFor(16); got != 16 {
		t.Errorf("before any batch: cut for %d slots of 16, want 16", got)
	}
	p.measured(playedState(32, 8, func(c, g int) int { return 20 + 280*((c+g)%4)/3 }))
	if got := p.cutFor(16); got != 32 {
		t.Errorf("after games of 20 to 300 moves: cut for %d slots of 16, want 32", got)
	}
	p.measured(playedState(1, 2, func(c, g int) int { return 50 }))
	if got := p.cutFor(16); got != 32 {
		t.Errorf("after a batch of 2 games: cut for %d slots of 16, want 32 as before", got)
	}
	if got := p.cutFor(1); got != 1 {
		t.Errorf("one slot: cut for %d, want 1", got)
	}
	if got := p.cutFor(0); got != 0 {
		t.Errorf("an unknown fleet: cut for %d slots, want 0", got)
	}
	p.measured(playedState(32, 8, func(c, g int) int { return 50 - (c+g)%3 }))
	if got := p.cutFor(16); got != 16 {
		t.Errorf("after games of 48 to 50 moves: cut for %d slots of 16, want 16", got)
	}
}

// TestBlocksFactoring: a batch cut for twice the slots gives no job more
// than half a slot's even part of the games left, and ends with at least
// twice the slots' one-game jobs.
func TestBlocksFactoring(t *testing.T) {
	const slots = 16
	b := plainBatch(32, 8)
	guided, factored := blocks(b, 4, slots), blocks(b, 4, 2*slots)
	left := 32 * 8
	for i, bl := range factored {
		if most := (left + 2*slots - 1) / (2 * slots); len(bl.games) > most {
			t.Fatalf("job %d has %d games of the %d left for %d slots, want %d at most", i, len(bl.games), left, slots, most)
		}
		left -= len(bl.games)
	}
	for _, bl := range factored[len(factored)-2*slots:] {
		if len(bl.games) != 1 {
			t.Fatalf("the last %d jobs are not all one game: %v", 2*slots, factored[len(factored)-2*slots:])
		}
	}
	t.Logf("32 candidates x 8 games on %d slots: %d jobs guided, %d by factoring", slots, len(guided), len(factored))
}
