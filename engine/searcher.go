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
	_ Resetter = (*Expectimax)(nil)
)

// An Algorithm names a search algorithm, as configs, weights files and the
// --search flag write it.
type Algorithm string

// The search algorithms.
const (
	AlgorithmExpectimax Algorithm = "expectimax"
	AlgorithmBeam       Algorithm = "beam"
)

// Algorithms lists the search algorithms, the default first.
var Algorithms = []Algorithm{AlgorithmExpectimax, AlgorithmBeam}

// ParseAlgorithm returns the algorithm named s, or an error wrapping
// ErrSearch whose text, `unknown algorithm "s" (want expectimax or beam)`,
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
	return "", &optionError{fmt.Sprintf("unknown algorithm %q (want %s)", s, strings.Join(names, " or "))}
}

// The depth range of every search, in plies, wherever a depth is read (a
// config, a weights file, a --depth flag). 20 plies is far past any search
// that finishes: a game at 7 plies costs about 250 times one at 3, and each
// further 2 plies multiply that by 15 or more, so a larger value is a typo.
// (The transposition table stores depths in a byte, which would allow 255.)
const (
	MinDepth = 1
	MaxDepth = 20
)

// CheckDepth returns nil if depth is within MinDepth to MaxDepth, else an
// error wrapping ErrSearch whose text is "DEPTH: want 1 to 20 plies".
func CheckDepth(depth int) error {
	if depth < MinDepth || depth > MaxDepth {
		return &optionError{fmt.Sprintf("%d: want %d to %d plies", depth, MinDepth, MaxDepth)}
	}
	return nil
}

// optionError is an option out of range. Its text is only the problem and
// what is allowed, so that callers can prefix the field or flag it came
// from; errors.Is(err, ErrSearch) holds.
type optionError struct{ msg string }

func (e *optionError) Error() string        { return e.msg }
func (e *optionError) Is(target error) bool { return target == ErrSearch }

// DefaultLossValue is the value players give a lost position: far below any
// evaluation a weight vector of sane scale reaches, so a player takes any
// risk elsewhere before one of losing. The exact mode of DESIGN.md uses 0.
const DefaultLossValue = -1e9

// PlayTableBits sizes the transposition table of a player searching depth
// plies: none below 4 plies, where a table costs more time than the
// transpositions it finds save; 2^20 entries (24 MiB per player) from 4
// plies on, enough for the searches of a game up to 6 plies or so.
func PlayTableBits(depth int) int {
	if depth < 4 {
		return 0
	}
	return 20
}

// SearchConfig describes a player's search: the one description that a
// tuner config's search section, a weights file's search, the tuner and the
// play and search commands all use. On disk it keeps each file's keys: the
// yaml tags are a config's (heuristic_only, loss); a weights file writes
// move_scores (the negation of HeuristicOnly) and no loss (see eval).
type SearchConfig struct {
	Algorithm Algorithm `yaml:"algorithm"`
	Depth     int       `yaml:"depth"` // plies, MinDepth to MaxDepth
	Width     int       `yaml:"width"` // beam width (beam only)
	// HeuristicOnly values positions by the evaluator alone, without move
	// scores; then the weights of a linear evaluator are scale-invariant.
	HeuristicOnly bool    `yaml:"heuristic_only"`
	LossValue     float64 `yaml:"loss"` // value of a lost position
	// TableBits is the expectimax transposition table's size, log2 entries
	// (0 = none); ProbCutoff the expectimax probability cutoff (0 = off).
	// Neither is written anywhere: players derive them (see ForPlay).
	TableBits  int     `yaml:"-"`
	ProbCutoff float64 `yaml:"-"`
}

// ForPlay returns cfg with the transposition table a player uses at its
// depth (PlayTableBits; expectimax only): the one place the table of a
// playing searcher is sized.
func (cfg SearchConfig) ForPlay() SearchConfig {
	cfg.TableBits = 0
	if cfg.Algorithm == AlgorithmExpectimax {
		cfg.TableBits = PlayTableBits(cfg.Depth)
	}
	return cfg
}

// NewSearcher builds the searcher cfg describes around e.
func NewSearcher(e Evaluator, cfg SearchConfig) (Searcher, error) {
	switch cfg.Algorithm {
	case AlgorithmExpectimax:
		return NewExpectimax(e, ExpectimaxOptions{Depth: cfg.Depth, LossValue: cfg.LossValue, TableBits: cfg.TableBits, ProbCutoff: cfg.ProbCutoff, HeuristicOnly: cfg.HeuristicOnly})
	case AlgorithmBeam:
		return NewBeam(e, BeamOptions{Width: cfg.Width, Depth: cfg.Depth, LossValue: cfg.LossValue, HeuristicOnly: cfg.HeuristicOnly})
	}
	_, err := ParseAlgorithm(string(cfg.Algorithm))
	return nil, fmt.Errorf("%w: %w", ErrSearch, err)
}
