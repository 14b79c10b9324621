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

// CheckDepth is the package's CheckDepth with a's own rule on top: the
// nneonneo search counts depth as the program's cap c, the root move plus
// c more moves, so its depth in plies is odd, 2c+1, and at least 3.
func (a Algorithm) CheckDepth(depth int) error {
	if err := CheckDepth(depth); err != nil {
		return err
	}
	if a == AlgorithmNneonneo && (depth < 3 || depth%2 == 0) {
		return &optionError{fmt.Sprintf("%d: the nneonneo search wants an odd depth of at least 3 plies (2c+1 for the program's cap c: 3, 5, 7, ...)", depth)}
	}
	return nil
}

// CheckCutoff returns nil if a probability cutoff is 0 (off) or in (0, 1).
func CheckCutoff(p float64) error {
	if !(p >= 0 && p < 1) {
		return &optionError{fmt.Sprintf("%v: want 0 (off) or a probability in (0, 1)", p)}
	}
	return nil
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
	// ProbCutoff makes a spawn layer a leaf once the probability of
	// reaching it falls below this value; 0 turns pruning off (for the
	// nneonneo search, 0 means the program's own 1e-4, NneonneoCutoff).
	ProbCutoff float64 `yaml:"cutoff"`
	// TableBits is the expectimax transposition table's size, log2 entries
	// (0 = none); it changes no value with the cutoff off, only speed and
	// memory. A config that leaves it out gets PlayTableBits for its depth
	// (see WithPlayDefaults).
	TableBits int `yaml:"table"`
	// Adaptive searches boards with few distinct tiles less deep
	// (expectimax; see ExpectimaxOptions.Adaptive).
	Adaptive bool `yaml:"adaptive,omitempty"`
}

// Cutoff returns the probability cutoff the search actually uses: its
// ProbCutoff, except that for the nneonneo search 0 means the program's
// own NneonneoCutoff.
func (cfg SearchConfig) Cutoff() float64 {
	if cfg.Algorithm == AlgorithmNneonneo && cfg.ProbCutoff == 0 {
		return NneonneoCutoff
	}
	return cfg.ProbCutoff
}

// ScoresMoves reports whether the search adds move scores to positions'
// values. When it does not, multiplying every weight of a linear evaluator
// by a positive constant changes no decision.
func (cfg SearchConfig) ScoresMoves() bool {
	return !cfg.HeuristicOnly && cfg.Algorithm != AlgorithmNneonneo
}

// WithPlayDefaults returns cfg with the table and cutoff a player uses by
// default at its algorithm and depth: for expectimax PlayTableBits and
// PlayCutoff, for the others no table and no cutoff of ours (the nneonneo
// search's 0 is the program's own 1e-4). Configs, play and compare start
// from it and then apply what a file or flag says.
func (cfg SearchConfig) WithPlayDefaults() SearchConfig {
	cfg.TableBits, cfg.ProbCutoff = 0, 0
	if cfg.Algorithm == AlgorithmExpectimax {
		cfg.TableBits, cfg.ProbCutoff = PlayTableBits(cfg.Depth), PlayCutoff(cfg.Depth)
	}
	return cfg
}

// NewSearcher builds the searcher cfg describes around e.
func NewSearcher(e Evaluator, cfg SearchConfig) (Searcher, error) {
	switch cfg.Algorithm {
	case AlgorithmExpectimax:
		return NewExpectimax(e, ExpectimaxOptions{Depth: cfg.Depth, LossValue: cfg.LossValue, TableBits: cfg.TableBits, ProbCutoff: cfg.ProbCutoff, HeuristicOnly: cfg.HeuristicOnly, Adaptive: cfg.Adaptive})
	case AlgorithmBeam:
		return NewBeam(e, BeamOptions{Width: cfg.Width, Depth: cfg.Depth, LossValue: cfg.LossValue, HeuristicOnly: cfg.HeuristicOnly})
	case AlgorithmNneonneo:
		if err := cfg.Algorithm.CheckDepth(cfg.Depth); err != nil {
			return nil, fmt.Errorf("%w: depth %w", ErrSearch, err)
		}
		return NewNneonneo(e, NneonneoOptions{Cap: (cfg.Depth - 1) / 2, ProbCutoff: cfg.ProbCutoff})
	}
	_, err := ParseAlgorithm(string(cfg.Algorithm))
	return nil, fmt.Errorf("%w: %w", ErrSearch, err)
}
