package tunebench

import (
	"fmt"
	"math"
	"sync"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

// Snake16 is the feature set of the snake16 problem: a positional table of
// 16 weights, one for each cell's place along a snake from the top-left
// corner, each multiplying the value of the tile on that cell, plus the
// empty cells. It is the set of one's own of tuner/example_test.go (one
// table shaped by two parameters) with its table opened up into 16 free
// weights: a problem of 17 dimensions where an optimizer's handling of
// many coordinates, not its handling of a few, sets how far it gets. It is
// registered (eval.Register) so that weights files, configs and evotune
// objective can name it.
var Snake16 = &eval.FeatureSet{
	Name:    "snake16",
	Summary: "a positional table along a snake from the top-left corner (16 weights) and the empty cells",
	Features: func() []eval.Feature {
		fs := make([]eval.Feature, 0, 17)
		for k := range 16 {
			fs = append(fs, eval.Feature{
				Name:       fmt.Sprintf("place%02d", k),
				Definition: fmt.Sprintf("the value 2^rank of the tile on the cell at place %d of the snake (places 0-3: row 0 left to right; 4-7: row 1 right to left; 8-11: row 2 left to right; 12-15: row 3 right to left), 0 if it is empty", k),
			})
		}
		return append(fs, eval.Feature{Name: "empty", Definition: "the number of empty cells"})
	}(),
	// Halving along the snake: the gradient table 2048 programs start
	// from, scaled so that an empty cell is worth a tile of 64 in the
	// corner.
	Defaults: func() []float64 {
		w := make([]float64, 17)
		for k := range 16 {
			w[k] = math.Pow(0.5, float64(k))
		}
		w[16] = 64
		return w
	}(),
	ScaleInvariant: true,
	Reference:      "empty",
	Model:          snakeModel{},
}

func init() {
	if err := eval.Register(Snake16); err != nil {
		panic(err)
	}
}

// snakeCell is each cell's place on the snake, cells numbered as the
// board's nibbles (row-major from the top-left).
var snakeCell = [16]int{0, 1, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11, 15, 14, 13, 12}

type snakeModel struct{}

func (snakeModel) Features(b engine.Board, _, dst []float64) {
	clear(dst)
	for i := range 16 {
		r := int(b >> (4 * i) & 0xf)
		if r == 0 {
			dst[16]++
			continue
		}
		dst[snakeCell[i]] = math.Ldexp(1, r)
	}
}

// Compile folds the weights into each cell's value by rank. Every feature
// is a cell's, so the set is a sum over rows: a row's value is its cells'
// added left to right, and the board's the rows' added in pairs, the form
// of engine.Lines, whose tables the searchers read where they would call
// Evaluate: a move at 2 to 5 plies costs about 0.6 of the CPU of calling
// an evaluator per leaf (BenchmarkSnake16Games). The rows are added in
// pairs, so the sum rounds differently from one over the cells in order
// where the weights are not powers of two; the golden games are the same.
func (snakeModel) Compile(w, _ []float64) (engine.Evaluator, error) {
	e := new(snakeEval)
	for i := range 16 {
		e.cell[i][0] = w[16]
		for r := 1; r < 16; r++ {
			e.cell[i][r] = w[snakeCell[i]] * math.Ldexp(1, r)
		}
	}
	return e, nil
}

// snakeEval is a compiled snake16 vector. Its row tables (2 MiB) are built
// when a searcher first asks for them, not by Compile: registering the set
// compiles its defaults in every process, most of which never search with
// it.
type snakeEval struct {
	cell  [16][16]float64 // each cell's value by rank
	once  sync.Once
	lines engine.Lines
}

var _ engine.LineEvaluator = (*snakeEval)(nil)

// row is the value of row r of b: its cells' values added left to right.
func (e *snakeEval) row(b engine.Board, r int) float64 {
	v := 0.0
	for c := range 4 {
		i := 4*r + c
		v += e.cell[i][b>>(4*i)&0xf]
	}
	return v
}

// Evaluate is engine.Lines' sum of the rows, from the cell values.
func (e *snakeEval) Evaluate(b engine.Board) float64 {
	return (e.row(b, 0) + e.row(b, 1)) + (e.row(b, 2) + e.row(b, 3))
}

// Lines returns the row tables, built on the first call.
func (e *snakeEval) Lines() *engine.Lines {
	e.once.Do(func() {
		for r := range e.lines.Rows {
			t := new([1 << 16]float64)
			for line := range t {
				t[line] = e.row(engine.Board(line)<<(16*r), r)
			}
			e.lines.Rows[r] = t
		}
	})
	return &e.lines
}
