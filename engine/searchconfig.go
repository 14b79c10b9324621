package engine

import (
	"fmt"
	"strconv"
)

// SearchConfig describes a player's search: the one description that a
// tuner config's search section, a weights file's search, the tuner and the
// commands all use. On disk it keeps each file's keys: the yaml tags are a
// config's (heuristic_only, loss); a weights file writes move_scores (the
// negation of HeuristicOnly) and no loss (see eval).
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

// Validate reports the first option that is out of range or that its
// algorithm has no use for, as a *SearchError naming it. The rules, in the
// order checked:
//   - algorithm: one of Algorithms;
//   - depth: MinDepth to MaxDepth plies, and for the nneonneo search odd and
//     at least 3 (see Algorithm.CheckDepth);
//   - width: at least 1 for beam search (the others ignore it: a config
//     carries a default width whatever its algorithm);
//   - table: 0 to 30, and 0 unless the search is expectimax;
//   - cutoff: 0 or a probability in (0, 1), and 0 for beam search;
//   - adaptive: only for expectimax.
//
// The loss value and HeuristicOnly take any value.
func (cfg SearchConfig) Validate() error {
	a := cfg.Algorithm
	if _, err := ParseAlgorithm(string(a)); err != nil {
		return &SearchError{Key: "algorithm", Msg: err.Error()}
	}
	if err := a.CheckDepth(cfg.Depth); err != nil {
		return &SearchError{Key: "depth", Msg: err.Error()}
	}
	if a == AlgorithmBeam && cfg.Width < 1 {
		return &SearchError{Key: "width", Msg: fmt.Sprintf("%d: want at least 1 board", cfg.Width)}
	}
	switch {
	case cfg.TableBits < 0 || cfg.TableBits > maxTableBits:
		return &SearchError{Key: "table", Msg: fmt.Sprintf("%d: want 0 (no table) to %d (log2 of the entries)", cfg.TableBits, maxTableBits)}
	case cfg.TableBits != 0 && a != AlgorithmExpectimax:
		return &SearchError{Key: "table", Msg: fmt.Sprintf("%d: only the expectimax search has a table to size (want 0, or leave it out)", cfg.TableBits)}
	}
	switch p := cfg.ProbCutoff; {
	case !(p >= 0 && p < 1) && a == AlgorithmNneonneo:
		return &SearchError{Key: "cutoff", Msg: fmt.Sprintf("%v: want 0 (the program's 1e-4) or a probability in (0, 1)", p)}
	case !(p >= 0 && p < 1):
		return &SearchError{Key: "cutoff", Msg: CheckCutoff(p).Error()}
	case p != 0 && a == AlgorithmBeam:
		return &SearchError{Key: "cutoff", Msg: fmt.Sprintf("%v: beam search has no probability cutoff (want 0, or leave it out)", p)}
	}
	if cfg.Adaptive && a != AlgorithmExpectimax {
		msg := "only the expectimax search has this option"
		if a == AlgorithmNneonneo {
			msg += " (the nneonneo search adapts its depth by its own rule)"
		}
		return &SearchError{Key: "adaptive", Msg: msg}
	}
	return nil
}

// String describes the search in one line, the way reports and commands
// show it: the algorithm and depth, then only what differs from the plain
// search, e.g. "expectimax, 1 ply", "beam, 5 plies, width 8",
// "expectimax, 7 plies, cutoff 0.001, table 2^14, adaptive depth",
// "nneonneo, 5 plies (cap 2), cutoff 0.0001, heuristic only (no move scores)".
// The cutoff shown is the one searched with (Cutoff); the loss value is
// left out.
func (cfg SearchConfig) String() string {
	unit := "plies"
	if cfg.Depth == 1 {
		unit = "ply"
	}
	s := fmt.Sprintf("%s, %d %s", cfg.Algorithm, cfg.Depth, unit)
	switch {
	case cfg.Algorithm == AlgorithmNneonneo:
		s += fmt.Sprintf(" (cap %d)", (cfg.Depth-1)/2)
	case cfg.Algorithm == AlgorithmBeam && cfg.Width > 0:
		s += fmt.Sprintf(", width %d", cfg.Width)
	}
	if c := cfg.Cutoff(); c != 0 {
		s += ", cutoff " + strconv.FormatFloat(c, 'g', -1, 64)
	}
	if cfg.TableBits != 0 {
		s += fmt.Sprintf(", table 2^%d", cfg.TableBits)
	}
	if cfg.Adaptive {
		s += ", adaptive depth"
	}
	if !cfg.ScoresMoves() {
		s += ", heuristic only (no move scores)"
	}
	return s
}

// A SearchError is a search option out of range, or one its algorithm has
// no use for. Key names the option as configs and weights files write it
// (algorithm, depth, width, table, cutoff, adaptive) and Msg is the value
// and what is allowed ("4: the nneonneo search wants an odd depth ..."),
// so that a caller can say where the value came from: "c.yaml:3:
// search.depth: " + Msg, or "flag --depth: " + Msg. It wraps ErrSearch.
type SearchError struct {
	Key string
	Msg string
}

func (e *SearchError) Error() string { return fmt.Sprintf("%v: %s: %s", ErrSearch, e.Key, e.Msg) }
func (e *SearchError) Unwrap() error { return ErrSearch }

// maxTableBits bounds the expectimax table: 2^30 entries are 24 GiB.
const maxTableBits = 30

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

// optionError is an option out of range. Its text is only the problem and
// what is allowed, so that callers can prefix the field or flag it came
// from; errors.Is(err, ErrSearch) holds.
type optionError struct{ msg string }

func (e *optionError) Error() string        { return e.msg }
func (e *optionError) Is(target error) bool { return target == ErrSearch }
