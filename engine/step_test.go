package engine

import (
	"errors"
	"testing"
)

// TestGameStepsAsPlay checks that a Game stepped with a player's moves is
// PlayContext's game, seed for seed, with and without a move limit.
func TestGameStepsAsPlay(t *testing.T) {
	for seed := range uint64(40) {
		for _, limit := range []int{0, 25} {
			p, err := NewSearcher(snakeEval{}, SearchConfig{Algorithm: AlgorithmExpectimax, Depth: 1})
			if err != nil {
				t.Fatal(err)
			}
			want := PlayLimit(seed, p, limit)
			g := NewGame(seed)
			for !g.Over(limit) {
				if err := g.Play(p.Move(g.Board())); err != nil {
					t.Fatal(err)
				}
			}
			if got := g.Result(); got != want {
				t.Fatalf("seed %d limit %d: stepped %+v, played %+v", seed, limit, got, want)
			}
		}
	}
}

func TestGameIllegalMove(t *testing.T) {
	g := NewGame(1)
	before := g.Result()
	for _, d := range Dirs {
		if _, _, ok := g.Board().Move(d); !ok {
			if err := g.Play(d); !errors.Is(err, ErrIllegalMove) {
				t.Fatalf("illegal %v: err %v, want ErrIllegalMove", d, err)
			}
			if g.Result() != before {
				t.Fatal("an illegal move changed the game")
			}
			return
		}
	}
	t.Skip("every move legal on the first board of seed 1")
}
