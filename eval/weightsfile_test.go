package eval

import (
	"errors"
	"flag"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/evotune/evotune/engine"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// tunedFile is a weights file as the tuner would export it.
func tunedFile() *WeightsFile {
	wf := NewWeightsFile(standardSet, []float64{52.25, 9.5, 301.125, 87.0625, 64.5})
	wf.Search = &engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 3}
	wf.Provenance = &Provenance{
		Run: "quick", Generation: 20, Optimizer: "cmaes", Seed: 1, Evaluations: 160,
		Fitness:  &Fitness{Metric: "mean_score", Mean: 43712.5, CI95: 2401.25, Games: 100, Seeds: &SeedRange{First: 1 << 32, Count: 100}},
		Baseline: &Fitness{Metric: "mean_score", Mean: 26100, CI95: 1900.5, Games: 100, Seeds: &SeedRange{First: 1 << 32, Count: 100}},
	}
	return wf
}

func TestGoldenWeightsFile(t *testing.T) {
	got, err := tunedFile().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "standard_tuned.yaml")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./eval -run Golden -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("Marshal differs from %s (run go test ./eval -run Golden -update after checking the change):\n%s", golden, got)
	}
	// The golden file reads back to the same content.
	wf, err := ParseWeights(want, golden)
	if err != nil {
		t.Fatal(err)
	}
	if orig := tunedFile(); !reflect.DeepEqual(stripLines(wf), orig) {
		t.Errorf("golden file reads back as\n%+v\nwant\n%+v", wf, orig)
	}
}

func stripLines(wf *WeightsFile) *WeightsFile {
	for i := range wf.Checks {
		wf.Checks[i].Line = 0
	}
	return wf
}

// weirdFloat draws values that are hard to round-trip through text.
func weirdFloat(rng *rand.Rand) float64 {
	for {
		var x float64
		switch rng.IntN(6) {
		case 0:
			// Any bits, but small enough for the check values not to overflow.
			x = math.Float64frombits(rng.Uint64())
			if math.Abs(x) > 1e300 {
				continue
			}
		case 1:
			x = rng.NormFloat64()
		case 2:
			x = float64(rng.IntN(2000) - 1000)
		case 3:
			x = []float64{0, math.Copysign(0, -1), math.SmallestNonzeroFloat64, -1e300, 0.1, 1e6, 1e21, 123456, 1234567, 1 << 53, 1<<53 + 2}[rng.IntN(11)]
		case 4:
			x = rng.Float64() * math.Pow(10, float64(rng.IntN(40)-20))
		default:
			x = -rng.ExpFloat64() * 100
		}
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			return x
		}
	}
}

func TestRoundTripBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	dir := t.TempDir()
	var err error
	for i := range 300 {
		s := registry[i%len(registry)]
		w := make([]float64, len(s.Features))
		for j := range w {
			w[j] = weirdFloat(rng)
		}
		wf := NewWeightsFile(s, w)
		var back *WeightsFile
		if i%30 == 0 { // through the disk now and then: each write syncs
			path := filepath.Join(dir, "w.yaml")
			data, err := wf.Marshal()
			if err != nil {
				t.Fatalf("weights %v: %v", w, err)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			back, err = ReadWeightsFile(path)
		} else {
			var data []byte
			if data, err = wf.Marshal(); err == nil {
				back, err = ParseWeights(data, "w.yaml")
			}
		}
		if err != nil {
			t.Fatalf("weights %v: %v", w, err)
		}
		for j := range w {
			if math.Float64bits(back.Weights[j]) != math.Float64bits(w[j]) {
				t.Fatalf("weight %d: wrote %v (%#x), read %v (%#x)", j, w[j], math.Float64bits(w[j]), back.Weights[j], math.Float64bits(back.Weights[j]))
			}
		}
		for j, c := range back.Checks {
			if math.Float64bits(c.Value) != math.Float64bits(wf.Checks[j].Value) {
				t.Fatalf("check %d: value %v read back as %v", j, wf.Checks[j].Value, c.Value)
			}
		}
	}
}

func TestCheckBoardsExerciseEveryFeature(t *testing.T) {
	boards := CheckBoards()
	if len(boards) < 6 {
		t.Fatalf("%d check boards, want at least 6", len(boards))
	}
	var empty, full, fullNoMove, cornerIn, cornerOut bool
	for _, b := range boards {
		switch {
		case b == 0:
			empty = true
		case b.CountEmpty() == 0 && !b.CanMove():
			fullNoMove = true
		case b.CountEmpty() == 0:
			full = true
		}
		if b != 0 {
			if refStandard(b.Grid())[stdCorner] != 0 {
				cornerIn = true
			} else {
				cornerOut = true
			}
		}
	}
	if !empty || !full || !fullNoMove || !cornerIn || !cornerOut {
		t.Errorf("check boards: empty %v, full with a move %v, full without %v, max in a corner %v, max out of the corners %v",
			empty, full, fullNoMove, cornerIn, cornerOut)
	}
	for _, s := range registry {
		for i, f := range s.Features {
			if f.Name == "offset" {
				continue // 1 per line by definition: never zero
			}
			zero, nonzero := false, false
			for _, b := range boards {
				if s.Vector(b, nil)[i] == 0 {
					zero = true
				} else {
					nonzero = true
				}
			}
			if !zero || !nonzero {
				t.Errorf("%s.%s: zero on some check board %v, non-zero on some %v; want both", s.Name, f.Name, zero, nonzero)
			}
		}
	}
}

const goodFile = `format: evotune.weights/v1
features: standard
weights: {monotonicity: 47, smoothness: 11, empty: 270, corner: 100, merge: 70}
checks:
  - board: "0x0"
    features: {monotonicity: 0, smoothness: 0, empty: 16, corner: 0, merge: 0}
    value: 4320
  - board: "2 2 0 0/0 0 0 0/0 0 0 0/4 0 2 4"
    features: {monotonicity: -3, smoothness: -1, empty: 11, corner: 2, merge: 1}
    value: 3088
`

func TestParseGood(t *testing.T) {
	wf, err := ParseWeights([]byte(goodFile), "good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(wf.Weights, standardSet.Defaults) || len(wf.Checks) != 2 || wf.Checks[1].Line != 8 {
		t.Errorf("parsed %+v", wf)
	}
	c, err := wf.Compile()
	if err != nil || c.Evaluate(wf.Checks[1].Board) != 3088 {
		t.Errorf("Compile: %v, value %v", err, c.Evaluate(wf.Checks[1].Board))
	}
}

func TestParseErrors(t *testing.T) {
	edit := func(old, new string) string {
		if !strings.Contains(goodFile, old) {
			t.Fatalf("%q not in goodFile", old)
		}
		return strings.Replace(goodFile, old, new, 1)
	}
	for _, tc := range []struct {
		name, data string
		line       int
		msg        string
	}{
		{"empty", "", 1, "empty file"},
		{"comments only", "# nothing\n", 1, "empty file"},
		{"not a mapping", "- 1\n- 2\n", 1, "weights file: want a mapping"},
		{"format", edit("evotune.weights/v1", "evotune.weights/v2"), 1, `format: unknown format "evotune.weights/v2" (want evotune.weights/v1)`},
		{"format type", edit("evotune.weights/v1", "[1]"), 1, "format: want a string"},
		{"missing format", edit("format: evotune.weights/v1\n", ""), 1, `weights file: missing key "format"`},
		{"unknown key", goodFile + "color: blue\n", 11, `weights file: unknown key "color" (allowed: format, features, weights, search, provenance, checks)`},
		{"duplicate key", goodFile + "features: standard\n", 11, `weights file: key "features" appears twice`},
		{"set", edit("features: standard", "features: fancy"), 2, `features: unknown feature set "fancy" (known: classic, standard, nneonneo)`},
		{"missing feature", edit("weights: {monotonicity: 47, ", "weights: {"), 3, `weights: missing feature "monotonicity" (standard needs monotonicity, smoothness, empty, corner, merge)`},
		{"unknown feature", edit("merge: 70}", "merge: 70, tiles: 3}"), 3, `weights: unknown feature "tiles" (features of standard: monotonicity`},
		{"duplicate feature", edit("merge: 70}", "merge: 70, empty: 3}"), 3, `weights: feature "empty" appears twice`},
		{"inf", edit("empty: 270", "empty: .inf"), 3, "weights.empty: .inf is not finite"},
		{"nan", edit("empty: 270", "empty: .NaN"), 3, "weights.empty: .NaN is not finite"},
		{"string weight", edit("empty: 270", `empty: "270"`), 3, `weights.empty: "270" is not a number`},
		{"word weight", edit("empty: 270", `empty: lots`), 3, `weights.empty: "lots" is not a number`},
		{"null weight", edit("empty: 270", `empty: ~`), 3, `weights.empty: "~" is not a number`},
		{"list weight", edit("empty: 270", `empty: [1]`), 3, `weights.empty: want a number`},
		{"weights list", edit("weights: {monotonicity: 47, smoothness: 11, empty: 270, corner: 100, merge: 70}", "weights: [47, 11, 270, 100, 70]"), 3, "weights: want a mapping of monotonicity, smoothness, empty, corner, merge to numbers"},
		{"bad check feature", edit("monotonicity: -3,", "monotonicity: -2,"), 9, "checks[1].features.monotonicity: the file says -2, this implementation computes -3 for board 0x2102000000000011"},
		{"bad check value", edit("value: 3088", "value: 3088.5"), 10, "checks[1].value: the file says 3088.5, this implementation computes 3088"},
		{"check board", edit(`board: "0x0"`, `board: "2 4"`), 5, `checks[0].board: "2 4": want 4 rows`},
		{"check missing value", edit("    value: 4320\n", ""), 5, `checks[0]: missing key "value"`},
		{"check unknown key", edit("    value: 4320\n", "    value: 4320\n    note: x\n"), 8, `checks[0]: unknown key "note" (allowed: board, features, value)`},
		{"checks not a list", strings.Split(goodFile, "checks:")[0] + "checks: 3\n", 4, "checks: want a list"},
		{"yaml syntax", edit("merge: 70}", "merge: 70"), 3, "invalid YAML: did not find expected ',' or '}'"},
		{"yaml first line", "\tformat: x\n", 1, "invalid YAML: found character that cannot start any token"},
		{"unterminated", goodFile + "x: 'abc\n", 11, "invalid YAML: found unexpected end of stream"},
		{"alias", edit("empty: 270", "empty: &e 270") + "x: *e\n", 11, `weights file: unknown key "x"`},
		{"alias value", edit("empty: 270, corner: 100", "empty: &e 270, corner: *e"), 3, "weights.corner: YAML aliases are not allowed"},
		{"unknown alias", goodFile + "x: *nope\n", 11, "invalid YAML: unknown anchor 'nope' referenced"},
		{"two documents", goodFile + "---\nformat: x\n", 11, "a second YAML document"},
		{"control character", goodFile + "x: \x01\n", 11, "control character U+0001"},
		{"invalid utf-8", "format: \xff\n", 1, "invalid UTF-8"},
		{"search algorithm", goodFile + "search: {algorithm: minimax, depth: 3}\n", 11, `search.algorithm: unknown algorithm "minimax" (want expectimax, beam or nneonneo)`},
		{"search depth", goodFile + "search: {algorithm: beam, depth: 0}\n", 11, "search.depth: 0 is out of range (want 1 to 20)"},
		{"search width", goodFile + "search: {algorithm: expectimax, depth: 2, width: 8}\n", 11, "search.width: only beam search has a width"},
		{"search missing depth", goodFile + "search: {algorithm: beam}\n", 11, `search: missing key "depth"`},
		{"move scores", goodFile + "search: {algorithm: beam, depth: 2, move_scores: maybe}\n", 11, `search.move_scores: "maybe" is not true or false`},
		{"provenance key", goodFile + "provenance:\n  run: x\n  when: now\n", 13, `provenance: unknown key "when"`},
		{"provenance generation", goodFile + "provenance: {generation: -1}\n", 11, "provenance.generation: -1 is out of range"},
		{"provenance seed", goodFile + "provenance: {seed: 1.5}\n", 11, `provenance.seed: "1.5" is not an integer`},
		{"fitness ci", goodFile + "provenance: {fitness: {metric: mean_score, mean: 1, ci95: -1}}\n", 11, "provenance.fitness.ci95: -1 is negative"},
		{"fitness metric", goodFile + "provenance: {fitness: {mean: 1}}\n", 11, `provenance.fitness: missing key "metric"`},
		{"fitness seeds", goodFile + "provenance: {fitness: {metric: m, mean: 1, seeds: {first: 1}}}\n", 11, `provenance.fitness.seeds: missing key "count"`},
		{"classic feature in standard", edit("merge: 70}", "mono: 70}"), 3, `weights: unknown feature "mono"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseWeights([]byte(tc.data), "w.yaml")
			var we *FileError
			if !errors.As(err, &we) || !errors.Is(err, ErrWeightsFile) {
				t.Fatalf("err = %v, want a *FileError", err)
			}
			if we.File != "w.yaml" || we.Line != tc.line || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err = %q\nwant   w.yaml:%d: ...%s...", err, tc.line, tc.msg)
			}
		})
	}
}

func TestReadMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.yaml")
	_, err := ReadWeightsFile(path)
	if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrWeightsFile) || err.Error() != path+": no such file or directory" {
		t.Errorf("err = %v", err)
	}
}

func TestMarshalRejects(t *testing.T) {
	for _, wf := range []*WeightsFile{
		{Format: "v0", Features: "standard", Weights: standardSet.Defaults},
		{Features: "fancy", Weights: standardSet.Defaults},
		{Features: "standard", Weights: standardSet.Defaults[:3]},
		{Features: "standard", Weights: []float64{1, 2, math.Inf(1), 4, 5}},
		{Features: "standard", Weights: standardSet.Defaults, Search: &engine.SearchConfig{Algorithm: "dfs", Depth: 2}},
		{Features: "standard", Weights: standardSet.Defaults, Provenance: &Provenance{Fitness: &Fitness{Metric: "m", Mean: math.NaN()}}},
	} {
		if _, err := wf.Marshal(); err == nil {
			t.Errorf("Marshal(%+v) succeeded", wf)
		}
	}
}

func TestMarshalRecomputesChecks(t *testing.T) {
	wf := NewWeightsFile(standardSet, standardSet.Defaults)
	wf.Weights = []float64{1, 2, 3, 4, 5} // stale checks
	wf.Checks = wf.Checks[:2]
	data, err := wf.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseWeights(data, "w.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Checks) != 2 || back.Checks[1].Value != Value(wf.Weights, standardSet.Vector(back.Checks[1].Board, nil)) {
		t.Errorf("checks written: %+v", back.Checks)
	}
	_ = engine.Board(0)
}

func FuzzParseWeights(f *testing.F) {
	f.Add([]byte(goodFile))
	if data, err := tunedFile().Marshal(); err == nil {
		f.Add(data)
	}
	if data, err := NewWeightsFile(classicSet, classicSet.Defaults).Marshal(); err == nil {
		f.Add(data)
	}
	f.Add([]byte("format: evotune.weights/v1\nfeatures: classic\nweights: {empty: 0x1b, mono: 1_0, smooth: -0}\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Add([]byte("{\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		wf, err := ParseWeights(data, "f.yaml")
		if err != nil {
			var we *FileError
			if !errors.As(err, &we) || we.Line < 1 || we.File != "f.yaml" || !errors.Is(err, ErrWeightsFile) {
				t.Fatalf("error without a file and line: %v", err)
			}
			// An upper bound on the lines YAML sees (CR LF counts twice here).
			lines := 1
			for _, r := range string(data) {
				if r == '\n' || r == '\r' || r == 0x85 || r == 0x2028 || r == 0x2029 {
					lines++
				}
			}
			if we.Line > lines {
				t.Fatalf("error at line %d of a %d-line file: %v", we.Line, lines, err)
			}
			return
		}
		// Whatever reads also writes (unless weights so large that a check
		// value overflows), and reads back the same.
		out, err := wf.Marshal()
		if errors.Is(err, ErrWeights) {
			return
		}
		if err != nil {
			t.Fatalf("read %+v but cannot write it: %v", wf, err)
		}
		back, err := ParseWeights(out, "g.yaml")
		if err != nil {
			t.Fatalf("cannot read what was written: %v\n%s", err, out)
		}
		for i := range wf.Weights {
			if math.Float64bits(back.Weights[i]) != math.Float64bits(wf.Weights[i]) {
				t.Fatalf("weight %d: %v became %v", i, wf.Weights[i], back.Weights[i])
			}
		}
	})
}
