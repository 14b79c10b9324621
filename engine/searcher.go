package engine

import "fmt"

// A Searcher is a Player that can also report a full search and switch
// evaluators without reallocating: what a worker keeps across candidates.
type Searcher interface {
	Player
	Search(b Board) SearchResult
	SetEvaluator(e Evaluator)
}

var (
	_ Searcher = (*Expectimax)(nil)
	_ Searcher = (*Beam)(nil)
	_ Resetter = (*Expectimax)(nil)
)

// Algorithms lists the search algorithms by name.
var Algorithms = []string{"expectimax", "beam"}

// DefaultLossValue is the value players give a lost position: far below any
// evaluation a weight vector of sane scale reaches, so a player takes any
// risk elsewhere before one of losing. The exact mode of DESIGN.md uses 0.
const DefaultLossValue = -1e9

// PlayTableBits sizes the transposition table of a player searching depth
// plies: none below 4 plies, where a table costs more time than the
// transpositions it finds save; 2^14 entries (384 KiB per player) from 4
// plies on. Larger tables find a few more transpositions but miss the
// cache: at 6 plies 2^22 entries cost 1.5-2x the CPU per move of 2^12-2^14
// on positions from real games (BenchmarkTable in engine/bench_test.go).
func PlayTableBits(depth int) int {
	if depth < 4 {
		return 0
	}
	return 14
}

// SearchConfig names a search algorithm and its parameters: what a weights
// file records as "search" and what play and the tuner build players from.
type SearchConfig struct {
	Algorithm  string  // "expectimax" or "beam"
	Depth      int     // plies
	Width      int     // beam width (beam only)
	LossValue  float64 // value of a lost position
	TableBits  int     // expectimax transposition table size, log2 entries (0 = none)
	ProbCutoff float64 // expectimax probability cutoff (0 = off)
	// HeuristicOnly values positions by the evaluator alone, without move
	// scores; then the weights of a linear evaluator are scale-invariant.
	HeuristicOnly bool
	Adaptive      bool // expectimax: shallower searches on boards with few distinct tiles
}

// NewSearcher builds the searcher cfg describes around e.
func NewSearcher(e Evaluator, cfg SearchConfig) (Searcher, error) {
	switch cfg.Algorithm {
	case "expectimax":
		return NewExpectimax(e, ExpectimaxOptions{Depth: cfg.Depth, LossValue: cfg.LossValue, TableBits: cfg.TableBits, ProbCutoff: cfg.ProbCutoff, HeuristicOnly: cfg.HeuristicOnly, Adaptive: cfg.Adaptive})
	case "beam":
		return NewBeam(e, BeamOptions{Width: cfg.Width, Depth: cfg.Depth, LossValue: cfg.LossValue, HeuristicOnly: cfg.HeuristicOnly})
	}
	return nil, fmt.Errorf("%w: algorithm %q: want expectimax or beam", ErrSearch, cfg.Algorithm)
}
