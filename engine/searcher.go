package engine

import (
	"fmt"
	"strings"
)

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
	_ Searcher = (*Nneonneo)(nil)
	_ Resetter = (*Expectimax)(nil)
)

// An Algorithm names a search algorithm, as configs, weights files and the
// --search flag write it.
type Algorithm string

// The search algorithms.
const (
	AlgorithmExpectimax Algorithm = "expectimax"
	AlgorithmBeam       Algorithm = "beam"
	// AlgorithmNneonneo is the search of nneonneo/2048-ai (Nneonneo):
	// heuristic only, an odd depth 2c+1 plies for the program's cap c.
	AlgorithmNneonneo Algorithm = "nneonneo"
)

// Algorithms lists the search algorithms, the default first.
var Algorithms = []Algorithm{AlgorithmExpectimax, AlgorithmBeam, AlgorithmNneonneo}

// ParseAlgorithm returns the algorithm named s, or an error wrapping
// ErrSearch whose text, `unknown algorithm "s" (want expectimax, beam or nneonneo)`,
// lists the allowed names.
func ParseAlgorithm(s string) (Algorithm, error) {
	for _, a := range Algorithms {
		if string(a) == s {
			return a, nil
		}
	}
	names := make([]string, len(Algorithms))
	for i, a := range Algorithms {
		names[i] = string(a)
	}
	return "", &optionError{fmt.Sprintf("unknown algorithm %q (want %s or %s)", s, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])}
}

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

// NewSearcher builds the searcher cfg describes around e, or returns
// cfg.Validate's error.
func NewSearcher(e Evaluator, cfg SearchConfig) (Searcher, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	switch cfg.Algorithm {
	case AlgorithmExpectimax:
		return NewExpectimax(e, ExpectimaxOptions{Depth: cfg.Depth, LossValue: cfg.LossValue, TableBits: cfg.TableBits, ProbCutoff: cfg.ProbCutoff, HeuristicOnly: cfg.HeuristicOnly, Adaptive: cfg.Adaptive})
	case AlgorithmBeam:
		return NewBeam(e, BeamOptions{Width: cfg.Width, Depth: cfg.Depth, LossValue: cfg.LossValue, HeuristicOnly: cfg.HeuristicOnly})
	default: // AlgorithmNneonneo: Validate admits no other
		return NewNneonneo(e, NneonneoOptions{Cap: (cfg.Depth - 1) / 2, ProbCutoff: cfg.ProbCutoff})
	}
}
