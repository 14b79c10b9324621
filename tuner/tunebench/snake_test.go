package tunebench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/internal/cputime"
	"github.com/evotune/evotune/internal/golden"
)

// TestSnake16GamesGolden pins the games the snake16 set plays, with its
// halving table and with a vector whose weights do not halve, at every
// depth a player of the problem uses and deeper: a change to how the set
// compiles or how the engine reads it that moves a value by a rounding
// moves a game here.
func TestSnake16GamesGolden(t *testing.T) {
	uneven := make([]float64, 17)
	for k := range 16 {
		uneven[k] = math.Pow(0.63, float64(k)) * (1 + float64(k%5)/9)
	}
	uneven[16] = 41.7
	searches := []struct {
		name         string
		cfg          engine.SearchConfig
		moves, games int
	}{
		{"expectimax 1", engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 1}, 0, 3},
		{"expectimax 2", engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 2}, 0, 3},
		{"expectimax 3", engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 3}, 500, 3},
		{"expectimax 5", engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 5}, 200, 2},
		{"expectimax 7", engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 7}, 30, 2},
		{"beam 5 width 8", engine.SearchConfig{Algorithm: engine.AlgorithmBeam, Depth: 5, Width: 8}, 300, 2},
	}
	var sb strings.Builder
	sb.WriteString("# weights\tsearch\tseed\tscore\tmoves\tmax_tile\tfinal\n")
	for _, w := range []struct {
		name string
		w    []float64
	}{{"defaults", Snake16.Defaults}, {"uneven", uneven}} {
		e, err := Snake16.Compile(w.w)
		if err != nil {
			t.Fatal(err)
		}
		for _, sc := range searches {
			cfg := sc.cfg.WithPlayDefaults()
			cfg.Width, cfg.LossValue = sc.cfg.Width, engine.DefaultLossValue
			s, err := engine.NewSearcher(e, cfg)
			if err != nil {
				t.Fatal(err)
			}
			for i := range sc.games {
				seed := engine.GameSeed(16, uint64(i))
				r := engine.PlayLimit(seed, s, sc.moves)
				fmt.Fprintf(&sb, "%s\t%s\t%d\t%d\t%d\t%d\t%v\n", w.name, sc.name, seed, r.Score, r.Moves, r.MaxTile, r.Final.Hex())
			}
		}
	}
	golden.Check(t, "testdata/snake16-games.golden", []byte(sb.String()))
}

// cellTable is snake16's evaluator as it was before it compiled to row
// tables: each cell's value by rank, added cell by cell.
type cellTable [16][16]float64

func (t *cellTable) Evaluate(b engine.Board) float64 {
	v := 0.0
	for i := range 16 {
		v += t[i][b>>(4*i)&0xf]
	}
	return v
}

// BenchmarkSnake16Games plays 20 seeded games with snake16's defaults and
// the players' search, the set compiled to row tables (rows, what Compile
// gives) and to a table of cell values added cell by cell (cells, which
// the searchers must call): CPU a move.
//
//	go test ./tuner/tunebench -run '^$' -bench Snake16Games -benchtime 2x -count 6
func BenchmarkSnake16Games(b *testing.B) {
	rows, err := Snake16.Compile(Snake16.Defaults)
	if err != nil {
		b.Fatal(err)
	}
	cells := (*cellTable)(&rows.(*snakeEval).cell)
	for _, depth := range []int{2, 3, 5} {
		for _, form := range []struct {
			name string
			e    engine.Evaluator
		}{{"rows", rows}, {"cells", cells}} {
			b.Run(fmt.Sprintf("plies=%d/form=%s", depth, form.name), func(b *testing.B) {
				cfg := engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: depth, LossValue: engine.DefaultLossValue}.WithPlayDefaults()
				s, err := engine.NewSearcher(form.e, cfg)
				if err != nil {
					b.Fatal(err)
				}
				moves := 0
				cpu0, err := cputime.Process()
				if err != nil {
					b.Fatal(err)
				}
				for b.Loop() {
					for i := range 20 {
						moves += engine.Play(engine.GameSeed(3, uint64(i)), s).Moves
					}
				}
				cpu1, _ := cputime.Process()
				b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(moves), "cpu-ns/move")
			})
		}
	}
}

// TestSnake16LinesAreEvaluate checks that the row tables the searchers
// read give Evaluate's values bit for bit.
func TestSnake16LinesAreEvaluate(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 16))
	w := make([]float64, 17)
	for i := range w {
		w[i] = (rng.Float64() - 0.3) * math.Pow(10, float64(rng.IntN(6)-3))
	}
	e, err := Snake16.Compile(w)
	if err != nil {
		t.Fatal(err)
	}
	l := e.(engine.LineEvaluator).Lines()
	for range 100_000 {
		b := engine.Board(rng.Uint64())
		if got, want := l.Evaluate(b), e.Evaluate(b); got != want {
			t.Fatalf("%v: tables %v, Evaluate %v", b.Hex(), got, want)
		}
	}
}
