package eval_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/internal/golden"
)

// gameSearches are the searches of the golden game table: every expectimax
// depth a player uses, exact and with the players' table and cutoff, and
// beam search. moves caps a game where a whole one would take too long;
// games is how many seeds each plays.
var gameSearches = []struct {
	name   string
	cfg    engine.SearchConfig
	moves  int
	games  int
	skipIf func(set string) bool
}{
	{name: "expectimax 1", cfg: engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 1}, games: 3},
	{name: "expectimax 2", cfg: engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 2}, games: 3},
	{name: "expectimax 3", cfg: engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 3}, moves: 600, games: 3},
	{name: "expectimax 3 heuristic-only loss-0", cfg: engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 3, HeuristicOnly: true}, moves: 300, games: 2},
	{name: "expectimax 4", cfg: engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 4}, moves: 300, games: 2},
	{name: "expectimax 5", cfg: engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 5}, moves: 250, games: 2},
	{name: "expectimax 5 exact", cfg: engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 5, ProbCutoff: -1}, moves: 100, games: 2},
	{name: "expectimax 6", cfg: engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 6}, moves: 60, games: 2},
	{name: "expectimax 7", cfg: engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 7}, moves: 40, games: 2},
	{name: "expectimax 7 adaptive", cfg: engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 7, Adaptive: true}, moves: 40, games: 2},
	{name: "beam 5 width 8", cfg: engine.SearchConfig{Algorithm: engine.AlgorithmBeam, Depth: 5, Width: 8}, moves: 300, games: 2},
	{name: "beam 4 width 3 heuristic-only", cfg: engine.SearchConfig{Algorithm: engine.AlgorithmBeam, Depth: 4, Width: 3, HeuristicOnly: true}, moves: 300, games: 2},
}

// gamePlayers are the evaluators of the golden game table: every built-in
// set, a tuned standard vector, and two sets of one's own (a sum over the
// cells in order, which no table of lines reproduces, and a sum of row and
// column tables).
func gamePlayers(t *testing.T) []struct {
	name string
	e    engine.Evaluator
} {
	compile := func(name string, w []float64) engine.Evaluator {
		s, err := eval.Set(name)
		if err != nil {
			t.Fatal(err)
		}
		if w == nil {
			w = s.Defaults
		}
		e, err := s.Compile(w)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	return []struct {
		name string
		e    engine.Evaluator
	}{
		{"classic", compile("classic", nil)},
		{"standard", compile("standard", nil)},
		{"standard-tuned", compile("standard", []float64{88.61, 4.808, 61.26, 66.33, 81.81})},
		{"nneonneo", compile("nneonneo", nil)},
		{"own-cells", newCellSum()},
		{"own-lines", newLineSum()},
	}
}

// TestGamesGolden pins the games every set plays with every search: a
// change to a searcher or an evaluator that changes a value by a rounding
// changes a move somewhere here. If it fails and the change is intended,
// the diff of testdata/games.golden shows which games moved.
func TestGamesGolden(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("# set\tsearch\tseed\tscore\tmoves\tmax_tile\tfinal\n")
	for _, p := range gamePlayers(t) {
		for _, gs := range gameSearches {
			cfg := gs.cfg.WithPlayDefaults()
			cfg.Width = gs.cfg.Width
			cfg.HeuristicOnly = gs.cfg.HeuristicOnly
			cfg.Adaptive = gs.cfg.Adaptive
			cfg.LossValue = engine.DefaultLossValue
			switch {
			case gs.cfg.HeuristicOnly:
				cfg.LossValue = 0
			case gs.cfg.ProbCutoff < 0: // the exact search: no cutoff, no table
				cfg.ProbCutoff, cfg.TableBits = 0, 0
			}
			s, err := engine.NewSearcher(p.e, cfg)
			if err != nil {
				t.Fatal(err)
			}
			for i := range gs.games {
				seed := engine.GameSeed(55, uint64(i))
				r := engine.PlayLimit(seed, s, gs.moves)
				fmt.Fprintf(&sb, "%s\t%s\t%d\t%d\t%d\t%d\t%v\n", p.name, gs.name, seed, r.Score, r.Moves, r.MaxTile, r.Final.Hex())
			}
		}
	}
	golden.Check(t, "testdata/games.golden", []byte(sb.String()))
}

// cellSum is a set of one's own that the engine cannot take apart: a value
// per cell and rank, summed over the cells in order.
type cellSum [16][16]float64

func newCellSum() *cellSum {
	t := new(cellSum)
	for i := range 16 {
		for r := 1; r < 16; r++ {
			t[i][r] = math.Ldexp(1, r) * math.Pow(0.6, float64(i)) * (1 + float64(i%3)/7)
		}
		t[i][0] = 37.5
	}
	return t
}

func (t *cellSum) Evaluate(b engine.Board) float64 {
	v := 0.0
	for i := range 16 {
		v += t[i][b>>(4*i)&0xf]
	}
	return v
}

// lineSum is a set of one's own that is a sum of line tables: a table per
// row and per column, rows summed in pairs, then the columns.
type lineSum struct {
	rows, cols [4]*[1 << 16]float64
}

func newLineSum() *lineSum {
	l := new(lineSum)
	for k := range 4 {
		l.rows[k], l.cols[k] = new([1 << 16]float64), new([1 << 16]float64)
		for line := range 1 << 16 {
			v, h := 0.0, 0.0
			for i := range 4 {
				r := float64(line >> (4 * i) & 0xf)
				if r == 0 {
					v += 11.25
					continue
				}
				v += math.Pow(r, 1.5) * float64(4-k+i) / 3
				h -= math.Abs(r-float64(line>>(4*((i+1)%4))&0xf)) * 1.3
			}
			l.rows[k][line], l.cols[k][line] = v, h+v/(float64(k)+1.7)
		}
	}
	return l
}

func (l *lineSum) Evaluate(b engine.Board) float64 {
	x, y := uint64(b), uint64(b.Transpose())
	rows := (l.rows[0][uint16(x)] + l.rows[1][uint16(x>>16)]) + (l.rows[2][uint16(x>>32)] + l.rows[3][uint16(x>>48)])
	cols := (l.cols[0][uint16(y)] + l.cols[1][uint16(y>>16)]) + (l.cols[2][uint16(y>>32)] + l.cols[3][uint16(y>>48)])
	return rows + cols
}
