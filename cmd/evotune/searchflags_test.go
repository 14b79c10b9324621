package main

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/evotune/evotune/engine"
)

// TestSearchFlagsMerge checks the one rule by which play, compare and
// search lay their flags over a weights file's search.
func TestSearchFlagsMerge(t *testing.T) {
	const (
		ex = engine.AlgorithmExpectimax
		bm = engine.AlgorithmBeam
		nn = engine.AlgorithmNneonneo
	)
	loss := engine.DefaultLossValue
	tuned := &engine.SearchConfig{Algorithm: ex, Depth: 4, ProbCutoff: 0.01, Adaptive: true}
	scaleFree := &engine.SearchConfig{Algorithm: ex, Depth: 3, HeuristicOnly: true}
	beam := &engine.SearchConfig{Algorithm: bm, Depth: 2, Width: 3}
	for _, c := range []struct {
		name  string
		args  []string
		file  *engine.SearchConfig
		exact bool
		want  engine.SearchConfig
	}{
		{"defaults", nil, nil, false, engine.SearchConfig{Algorithm: ex, Depth: 3, Width: 8, LossValue: loss}},
		{"play defaults at depth", []string{"--depth", "5"}, nil, false, engine.SearchConfig{Algorithm: ex, Depth: 5, Width: 8, LossValue: loss, TableBits: 14, ProbCutoff: 0.02}},
		{"the file's search", nil, tuned, false, engine.SearchConfig{Algorithm: ex, Depth: 4, Width: 8, LossValue: loss, TableBits: 14, ProbCutoff: 0.01, Adaptive: true}},
		{"its depth given", []string{"--depth", "4"}, tuned, false, engine.SearchConfig{Algorithm: ex, Depth: 4, Width: 8, LossValue: loss, TableBits: 14, ProbCutoff: 0.01, Adaptive: true}},
		{"another depth", []string{"--depth", "5"}, tuned, false, engine.SearchConfig{Algorithm: ex, Depth: 5, Width: 8, LossValue: loss, TableBits: 14, ProbCutoff: 0.02}},
		{"another algorithm", []string{"--search", "beam"}, tuned, false, engine.SearchConfig{Algorithm: bm, Depth: 4, Width: 8, LossValue: loss}},
		{"flags over the file", []string{"--cutoff", "0", "--table", "0", "--adaptive=false", "--loss", "-5"}, tuned, false, engine.SearchConfig{Algorithm: ex, Depth: 4, Width: 8, LossValue: -5}},
		{"heuristic only stays", []string{"--search", "beam", "--width", "2"}, scaleFree, false, engine.SearchConfig{Algorithm: bm, Depth: 3, Width: 2, LossValue: loss, HeuristicOnly: true}},
		{"the file's width", nil, beam, false, engine.SearchConfig{Algorithm: bm, Depth: 2, Width: 3, LossValue: loss}},
		{"nneonneo", []string{"--search", "nneonneo", "--depth", "5"}, nil, false, engine.SearchConfig{Algorithm: nn, Depth: 5, Width: 8, LossValue: loss}},
		{"exact", []string{"--depth", "5"}, nil, true, engine.SearchConfig{Algorithm: ex, Depth: 5, Width: 8}},
		{"exact with the file's search", nil, tuned, true, engine.SearchConfig{Algorithm: ex, Depth: 4, Width: 8, ProbCutoff: 0.01, Adaptive: true}},
	} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		sf := addSearchFlags(fs, "with --weights: the file's", "width", "cutoff", "table", "adaptive", "loss")
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		got, err := sf.merge(c.file, "w.yaml", c.exact)
		if err != nil || got != c.want {
			t.Errorf("%s: %+v, %v; want %+v", c.name, got, err, c.want)
		}
	}
}

// TestSearchFlagsMergeErrors checks that a bad search names the flag that
// set the bad value, or the file it came from.
func TestSearchFlagsMergeErrors(t *testing.T) {
	even := &engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 4}
	for _, c := range []struct {
		args []string
		file *engine.SearchConfig
		want string
	}{
		{[]string{"--search", "mcts"}, nil, `flag --search: unknown algorithm "mcts" (want expectimax, beam or nneonneo)`},
		{[]string{"--depth", "0"}, nil, "flag --depth: 0: want 1 to 20 plies"},
		{[]string{"--search", "nneonneo", "--depth", "4"}, nil, "flag --depth: 4: the nneonneo search wants an odd depth"},
		{[]string{"--search", "nneonneo"}, even, "w.yaml: search.depth: 4: the nneonneo search wants an odd depth of at least 3 plies (2c+1 for the program's cap c: 3, 5, 7, ...); give --depth"},
		{[]string{"--width", "0"}, nil, "flag --width: 0: want at least 1 board"},
		{[]string{"--table", "31"}, nil, "flag --table: 31: want 0 (no table) to 30 (log2 of the entries)"},
		{[]string{"--search", "beam", "--table", "10"}, nil, "flag --table: 10: only the expectimax search has a table to size"},
		{[]string{"--cutoff", "1"}, nil, "flag --cutoff: 1: want 0 (off) or a probability in (0, 1)"},
		{[]string{"--search", "beam", "--cutoff", "0.1"}, nil, "flag --cutoff: 0.1: beam search has no probability cutoff"},
		{[]string{"--search", "nneonneo", "--adaptive"}, nil, "flag --adaptive: only the expectimax search has this option"},
	} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		sf := addSearchFlags(fs, "with --weights: the file's", "width", "cutoff", "table", "adaptive", "loss")
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		_, err := sf.merge(c.file, "w.yaml", false)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != exitUsage || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%v: %v, want a usage error %q", c.args, err, c.want)
		}
	}
}
