package engine

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/evotune/evotune/internal/refboard"
)

func TestAlgorithmCheckDepth(t *testing.T) {
	for _, c := range []struct {
		a     Algorithm
		depth int
		ok    bool
	}{
		{AlgorithmExpectimax, 1, true}, {AlgorithmExpectimax, 4, true}, {AlgorithmExpectimax, 0, false}, {AlgorithmExpectimax, 21, false},
		{AlgorithmBeam, 2, true},
		{AlgorithmNneonneo, 1, false}, {AlgorithmNneonneo, 3, true}, {AlgorithmNneonneo, 4, false}, {AlgorithmNneonneo, 5, true},
		{AlgorithmNneonneo, 19, true}, {AlgorithmNneonneo, 21, false},
	} {
		err := c.a.CheckDepth(c.depth)
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrSearch)) {
			t.Errorf("%s.CheckDepth(%d) = %v, want ok %v", c.a, c.depth, err, c.ok)
		}
	}
}

func TestScoresMoves(t *testing.T) {
	for _, c := range []struct {
		cfg  SearchConfig
		want bool
	}{
		{SearchConfig{Algorithm: AlgorithmExpectimax, Depth: 3}, true},
		{SearchConfig{Algorithm: AlgorithmExpectimax, Depth: 3, HeuristicOnly: true}, false},
		{SearchConfig{Algorithm: AlgorithmBeam, Depth: 3}, true},
		{SearchConfig{Algorithm: AlgorithmNneonneo, Depth: 3}, false},
	} {
		if got := c.cfg.ScoresMoves(); got != c.want {
			t.Errorf("%+v: ScoresMoves() = %v, want %v", c.cfg, got, c.want)
		}
	}
}

// TestNewSearcherNneonneo checks that the nneonneo algorithm at 2c+1 plies
// is the program's search at cap c, with the cutoff passed through.
func TestNewSearcherNneonneo(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, c := range []struct {
		depth, cap int
		cutoff     float64
	}{{3, 1, 0}, {5, 2, 0}, {5, 2, 0.01}} {
		s, err := NewSearcher(emptyCells{}, SearchConfig{Algorithm: AlgorithmNneonneo, Depth: c.depth, ProbCutoff: c.cutoff})
		if err != nil {
			t.Fatal(err)
		}
		ref, err := NewNneonneo(emptyCells{}, NneonneoOptions{Cap: c.cap, ProbCutoff: c.cutoff})
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			b := refboard.Random[Board](rng, 0.4, 11)
			got, want := s.Search(b), ref.Search(b)
			if got.Value != want.Value || got.Best != want.Best || len(got.Moves) != len(want.Moves) {
				t.Fatalf("depth %d on %s: %+v, want cap %d's %+v", c.depth, b.Hex(), got, c.cap, want)
			}
		}
	}
	if _, err := NewSearcher(emptyCells{}, SearchConfig{Algorithm: AlgorithmNneonneo, Depth: 4}); !errors.Is(err, ErrSearch) {
		t.Errorf("nneonneo at 4 plies: err = %v, want ErrSearch", err)
	}
}

// emptyCells values a board by its empty cells plus a little of its tile
// mass, so that searches have ties to break and values to compare.
type emptyCells struct{}

func (emptyCells) Evaluate(b Board) float64 {
	v := 0.0
	for i := range 16 {
		if r := b.Cell(i/4, i%4); r == 0 {
			v += 10
		} else {
			v += float64(r) / 8
		}
	}
	return v
}

func TestSearchConfigCutoff(t *testing.T) {
	for _, c := range []struct {
		cfg  SearchConfig
		want float64
	}{
		{SearchConfig{Algorithm: AlgorithmExpectimax}, 0},
		{SearchConfig{Algorithm: AlgorithmExpectimax, ProbCutoff: 0.02}, 0.02},
		{SearchConfig{Algorithm: AlgorithmNneonneo}, NneonneoCutoff},
		{SearchConfig{Algorithm: AlgorithmNneonneo, ProbCutoff: 0.01}, 0.01},
	} {
		if got := c.cfg.Cutoff(); got != c.want {
			t.Errorf("%+v: Cutoff() = %v, want %v", c.cfg, got, c.want)
		}
	}
}
