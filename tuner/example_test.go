package tuner_test

import (
	"context"
	"fmt"
	"log"
	"math"
	"os"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/engine/stats"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/tuner"
)

// snake is a feature set of one's own, written outside package eval: a
// positional weight table over the 16 cells, which rewards large tiles laid
// along a snake from the top-left corner, plus the empty cells. Its table
// is shaped by two parameters, tuned with the weights.
var snake = register(&eval.FeatureSet{
	Name:    "snake",
	Summary: "a snake-shaped positional table and the empty cells",
	Features: []eval.Feature{
		{Name: "snake", Definition: "Σ over non-empty cells of decay^k · value^power, value = 2^rank, k the cell's place on the snake (row 0 left to right, row 1 right to left, ...)"},
		{Name: "empty", Definition: "the number of empty cells"},
	},
	Defaults: []float64{1, 100},
	Params: []eval.Param{
		{Name: "decay", Definition: "how fast the table falls along the snake", Default: 0.25, Min: 0.05, Max: 1},
		{Name: "power", Definition: "the exponent of the tile values", Default: 1, Min: 0.5, Max: 2},
	},
	ScaleInvariant: true,
	Reference:      "empty",
	Model:          snakeModel{},
})

// register makes the set known by name: its weights files name it, and a
// run directory's config does too.
func register(s *eval.FeatureSet) *eval.FeatureSet {
	if err := eval.Register(s); err != nil {
		log.Fatal(err)
	}
	return s
}

// snakePlace is each cell's place on the snake.
var snakePlace = [16]int{0, 1, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11, 15, 14, 13, 12}

type snakeModel struct{}

// cell returns one cell's features: its share of snake, and 1 if empty.
func (snakeModel) cell(i, rank int, p []float64) (snake, empty float64) {
	if rank == 0 {
		return 0, 1
	}
	return math.Pow(p[0], float64(snakePlace[i])) * math.Pow(2, float64(rank)*p[1]), 0 // (2^rank)^power
}

func (m snakeModel) Features(b engine.Board, p, dst []float64) {
	dst[0], dst[1] = 0, 0
	for i := range 16 {
		s, e := m.cell(i, int(b>>(4*i)&0xf), p)
		dst[0] += s
		dst[1] += e
	}
}

// Compile folds weights and parameters into a table of each cell's value
// by rank, so that Evaluate is 16 look-ups and allocates nothing.
func (m snakeModel) Compile(w, p []float64) (engine.Evaluator, error) {
	t := new(snakeTable)
	for i := range 16 {
		for r := range 16 {
			s, e := m.cell(i, r, p)
			t[i][r] = w[0]*s + w[1]*e
		}
	}
	return t, nil
}

type snakeTable [16][16]float64

func (t *snakeTable) Evaluate(b engine.Board) float64 {
	v := 0.0
	for i := range 16 {
		v += t[i][b>>(4*i)&0xf]
	}
	return v
}

// Tuning a feature set of one's own: a small run (six generations of eight
// candidates at two plies, noise handling setting the games per candidate)
// from a nearly flat table (decay 0.9, where the set's default is 0.25), its
// weights file, and that file read back and verified as evotune check does.
// The gain is measured on 64 validation games no candidate played.
func Example_ownFeatureSet() {
	cfg := &tuner.Config{
		Name:        "snake",
		Set:         snake,
		Init:        map[string]float64{"decay": 0.9},
		Generations: 6,
		Search:      engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 2},
		Optimizer:   tuner.OptimizerConfig{Population: 8},
		Fitness:     tuner.FitnessConfig{Games: 16},
		Validation:  tuner.ValidationConfig{Every: 6, Games: 64},
	}
	cfg.Resolve()
	if err := cfg.Validate(); err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "snake")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	run, err := tuner.Create(cfg, dir, tuner.Options{})
	if err != nil {
		log.Fatal(err)
	}
	out, err := run.Run(context.Background())
	run.Close()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d generations, %d games: mean score %.0f at the start, %.0f tuned\n",
		out.Generations, out.Games, out.Start.Mean, out.Final.Mean)

	wf, err := eval.ReadWeightsFile(out.WeightsPath) // parses and verifies the golden checks
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %s, %d checks verified\n", wf.Format, wf.SetName, len(wf.Checks))
	fmt.Printf("weights %.3g, parameters %.3g\n", wf.Weights, wf.Params)
	// Output:
	// 6 generations, 3136 games: mean score 2681 at the start, 3348 tuned
	// evotune.weights/v2: snake, 9 checks verified
	// weights [0.653 97.5], parameters [0.857 1.36]
}

// Comparing two players on the same seeds: every game of one has its twin,
// with the same tiles spawned for the same moves, in the other, so the
// comparison is paired and needs far fewer games than two independent
// samples would.
func Example_comparePlayers() {
	play := func(set string) []engine.Result {
		e, err := eval.Lookup(set) // the set with its default weights
		if err != nil {
			log.Fatal(err)
		}
		search := engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 2, LossValue: engine.DefaultLossValue}
		rs, err := engine.PlayGames(context.Background(), 24, 0,
			func(i int) uint64 { return engine.GameSeed(7, uint64(i)) },
			func() (engine.Player, error) { return engine.NewSearcher(e, search) }, 0, nil)
		if err != nil {
			log.Fatal(err)
		}
		return rs
	}
	c, err := stats.Compare(play("standard"), play("classic"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("standard/classic %.2f [%.2f, %.2f], won %d, lost %d of %d: %v\n",
		c.Ratio, c.RatioCI95.Lo, c.RatioCI95.Hi, c.Wins, c.Losses, c.Games, c.Verdict)
	// Output:
	// standard/classic 3.30 [2.48, 4.40], won 24, lost 0 of 24: A better
}
