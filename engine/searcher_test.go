package engine

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/evotune/evotune/internal/refboard"
)

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

// TestNewSearcherValidates checks that NewSearcher refuses what Validate
// refuses, with Validate's error: a table or cutoff that the algorithm
// would silently ignore is an error, not a different search.
func TestNewSearcherValidates(t *testing.T) {
	for _, cfg := range []SearchConfig{
		{Algorithm: "minimax", Depth: 3},
		{Algorithm: AlgorithmExpectimax, Depth: 0},
		{Algorithm: AlgorithmBeam, Depth: 3, Width: 8, TableBits: 14},
		{Algorithm: AlgorithmBeam, Depth: 3, Width: 8, ProbCutoff: 0.01},
		{Algorithm: AlgorithmNneonneo, Depth: 3, Adaptive: true},
	} {
		_, err := NewSearcher(emptyCells{}, cfg)
		var se *SearchError
		if !errors.As(err, &se) || err.Error() != cfg.Validate().Error() {
			t.Errorf("%+v: err = %v, want Validate's %v", cfg, err, cfg.Validate())
		}
	}
}
