package engine

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestSearchConfigValidate checks every rule of Validate: the key it names
// and the text callers and tests elsewhere quote.
func TestSearchConfigValidate(t *testing.T) {
	const (
		ex = AlgorithmExpectimax
		bm = AlgorithmBeam
		nn = AlgorithmNneonneo
	)
	for _, c := range []struct {
		cfg      SearchConfig
		key, msg string // key "" = valid
	}{
		{SearchConfig{Algorithm: ex, Depth: 3}, "", ""},
		{SearchConfig{Algorithm: ex, Depth: 7, TableBits: 30, ProbCutoff: 0.5, Adaptive: true, HeuristicOnly: true, LossValue: -1e9}, "", ""},
		{SearchConfig{Algorithm: bm, Depth: 5, Width: 1}, "", ""},
		{SearchConfig{Algorithm: nn, Depth: 5, ProbCutoff: 1e-3}, "", ""},
		{SearchConfig{Algorithm: ex, Depth: 3, Width: 0}, "", ""}, // width is beam's alone
		{SearchConfig{Algorithm: nn, Depth: 3, Width: 8}, "", ""}, // a config's default width
		{SearchConfig{Algorithm: ex, Depth: 1, ProbCutoff: 0}, "", ""},

		{SearchConfig{Algorithm: "minimax", Depth: 3}, "algorithm", `unknown algorithm "minimax" (want expectimax, beam or nneonneo)`},
		{SearchConfig{Depth: 3}, "algorithm", `unknown algorithm "" (want expectimax, beam or nneonneo)`},
		{SearchConfig{Algorithm: ex, Depth: 0}, "depth", "0: want 1 to 20 plies"},
		{SearchConfig{Algorithm: bm, Depth: 21, Width: 8}, "depth", "21: want 1 to 20 plies"},
		{SearchConfig{Algorithm: nn, Depth: 4}, "depth", "4: the nneonneo search wants an odd depth of at least 3 plies (2c+1 for the program's cap c: 3, 5, 7, ...)"},
		{SearchConfig{Algorithm: nn, Depth: 1}, "depth", "1: the nneonneo search wants an odd depth"},
		{SearchConfig{Algorithm: nn, Depth: 21}, "depth", "21: want 1 to 20 plies"},
		{SearchConfig{Algorithm: bm, Depth: 3, Width: 0}, "width", "0: want at least 1 board"},
		{SearchConfig{Algorithm: bm, Depth: 3, Width: -2}, "width", "-2: want at least 1 board"},
		{SearchConfig{Algorithm: ex, Depth: 3, TableBits: 31}, "table", "31: want 0 (no table) to 30 (log2 of the entries)"},
		{SearchConfig{Algorithm: ex, Depth: 3, TableBits: -1}, "table", "-1: want 0 (no table) to 30"},
		{SearchConfig{Algorithm: bm, Depth: 3, Width: 8, TableBits: 14}, "table", "14: only the expectimax search has a table to size (want 0, or leave it out)"},
		{SearchConfig{Algorithm: nn, Depth: 3, TableBits: 10}, "table", "10: only the expectimax search"},
		{SearchConfig{Algorithm: ex, Depth: 3, ProbCutoff: 1}, "cutoff", "1: want 0 (off) or a probability in (0, 1)"},
		{SearchConfig{Algorithm: ex, Depth: 3, ProbCutoff: -0.1}, "cutoff", "-0.1: want 0 (off)"},
		{SearchConfig{Algorithm: ex, Depth: 3, ProbCutoff: math.NaN()}, "cutoff", "NaN: want 0 (off)"},
		{SearchConfig{Algorithm: nn, Depth: 3, ProbCutoff: 1.5}, "cutoff", "1.5: want 0 (the program's 1e-4) or a probability in (0, 1)"},
		{SearchConfig{Algorithm: bm, Depth: 3, Width: 8, ProbCutoff: 0.01}, "cutoff", "0.01: beam search has no probability cutoff (want 0, or leave it out)"},
		{SearchConfig{Algorithm: bm, Depth: 3, Width: 8, Adaptive: true}, "adaptive", "only the expectimax search has this option"},
		{SearchConfig{Algorithm: nn, Depth: 3, Adaptive: true}, "adaptive", "only the expectimax search has this option (the nneonneo search adapts its depth by its own rule)"},
		// The first rule broken is the one reported.
		{SearchConfig{Algorithm: nn, Depth: 4, TableBits: 40, Adaptive: true}, "depth", "4: the nneonneo"},
	} {
		err := c.cfg.Validate()
		if c.key == "" {
			if err != nil {
				t.Errorf("%+v: %v, want nil", c.cfg, err)
			}
			continue
		}
		var se *SearchError
		if !errors.As(err, &se) || !errors.Is(err, ErrSearch) {
			t.Errorf("%+v: %v, want a *SearchError wrapping ErrSearch", c.cfg, err)
			continue
		}
		if se.Key != c.key || !strings.HasPrefix(se.Msg, c.msg) {
			t.Errorf("%+v: key %q, %q; want %q, %q", c.cfg, se.Key, se.Msg, c.key, c.msg)
		}
		if want := "engine: bad search options: " + se.Key + ": " + se.Msg; err.Error() != want {
			t.Errorf("%+v: %q, want %q", c.cfg, err, want)
		}
	}
}

// TestSearchConfigString checks the one description of a search, with the
// texts the report and the check command print.
func TestSearchConfigString(t *testing.T) {
	for _, c := range []struct {
		cfg  SearchConfig
		want string
	}{
		{SearchConfig{Algorithm: AlgorithmExpectimax, Depth: 1, Width: 8, LossValue: DefaultLossValue}, "expectimax, 1 ply"},
		{SearchConfig{Algorithm: AlgorithmExpectimax, Depth: 3}, "expectimax, 3 plies"},
		{SearchConfig{Algorithm: AlgorithmExpectimax, Depth: 3, HeuristicOnly: true}, "expectimax, 3 plies, heuristic only (no move scores)"},
		{SearchConfig{Algorithm: AlgorithmExpectimax, Depth: 7, ProbCutoff: 1e-3, TableBits: 14, Adaptive: true}, "expectimax, 7 plies, cutoff 0.001, table 2^14, adaptive depth"},
		{SearchConfig{Algorithm: AlgorithmExpectimax, Depth: 5, ProbCutoff: 1e-5}, "expectimax, 5 plies, cutoff 1e-05"},
		{SearchConfig{Algorithm: AlgorithmBeam, Depth: 5, Width: 8}, "beam, 5 plies, width 8"},
		{SearchConfig{Algorithm: AlgorithmBeam, Depth: 2}, "beam, 2 plies"}, // a weights file may leave the width out
		{SearchConfig{Algorithm: AlgorithmNneonneo, Depth: 5, Width: 8}, "nneonneo, 5 plies (cap 2), cutoff 0.0001, heuristic only (no move scores)"},
		{SearchConfig{Algorithm: AlgorithmNneonneo, Depth: 3, ProbCutoff: 0.01, HeuristicOnly: true}, "nneonneo, 3 plies (cap 1), cutoff 0.01, heuristic only (no move scores)"},
	} {
		if got := c.cfg.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.cfg, got, c.want)
		}
	}
}

func TestAlgorithmCheckDepth(t *testing.T) {
	for _, c := range []struct {
		a     Algorithm
		depth int
		ok    bool
	}{
		{AlgorithmExpectimax, 1, true}, {AlgorithmExpectimax, 4, true}, {AlgorithmExpectimax, 0, false}, {AlgorithmExpectimax, 21, false},
		{AlgorithmBeam, 2, true},
		{AlgorithmNneonneo, 1, false}, {AlgorithmNneonneo, 3, true}, {AlgorithmNneonneo, 4, false}, {AlgorithmNneonneo, 5, true},
		{AlgorithmNneonneo, 19, true}, {AlgorithmNneonneo, 21, false},
	} {
		err := c.a.CheckDepth(c.depth)
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrSearch)) {
			t.Errorf("%s.CheckDepth(%d) = %v, want ok %v", c.a, c.depth, err, c.ok)
		}
	}
}

func TestScoresMoves(t *testing.T) {
	for _, c := range []struct {
		cfg  SearchConfig
		want bool
	}{
		{SearchConfig{Algorithm: AlgorithmExpectimax, Depth: 3}, true},
		{SearchConfig{Algorithm: AlgorithmExpectimax, Depth: 3, HeuristicOnly: true}, false},
		{SearchConfig{Algorithm: AlgorithmBeam, Depth: 3}, true},
		{SearchConfig{Algorithm: AlgorithmNneonneo, Depth: 3}, false},
	} {
		if got := c.cfg.ScoresMoves(); got != c.want {
			t.Errorf("%+v: ScoresMoves() = %v, want %v", c.cfg, got, c.want)
		}
	}
}

func TestSearchConfigCutoff(t *testing.T) {
	for _, c := range []struct {
		cfg  SearchConfig
		want float64
	}{
		{SearchConfig{Algorithm: AlgorithmExpectimax}, 0},
		{SearchConfig{Algorithm: AlgorithmExpectimax, ProbCutoff: 0.02}, 0.02},
		{SearchConfig{Algorithm: AlgorithmNneonneo}, NneonneoCutoff},
		{SearchConfig{Algorithm: AlgorithmNneonneo, ProbCutoff: 0.01}, 0.01},
	} {
		if got := c.cfg.Cutoff(); got != c.want {
			t.Errorf("%+v: Cutoff() = %v, want %v", c.cfg, got, c.want)
		}
	}
}
