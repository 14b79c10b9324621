package eval

import (
	"errors"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/internal/golden"
)

// tunedFile is a weights file as the tuner would export it.
func tunedFile() *WeightsFile {
	wf := mustWeightsFile(standardSet, []float64{52.25, 9.5, 301.125, 87.0625, 64.5}, nil)
	wf.Search = &engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 3}
	wf.Provenance = &Provenance{
		Run: "quick", Generation: 20, Optimizer: "cmaes", Seed: 1, Evaluations: 160,
		Fitness:  &Fitness{Metric: "mean_score", Mean: 43712.5, CI95: 2401.25, Games: 100, Seeds: &SeedRange{First: 1 << 32, Count: 100}},
		Baseline: &Fitness{Metric: "mean_score", Mean: 26100, CI95: 1900.5, Games: 100, Seeds: &SeedRange{First: 1 << 32, Count: 100}},
	}
	return wf
}

func TestGoldenWeightsFile(t *testing.T) {
	checkGolden(t, "standard_tuned.yaml", tunedFile)
}

// checkGolden checks that Marshal of file() writes testdata/name byte for
// byte and that the golden file reads back to the same content, which it
// returns.
func checkGolden(t *testing.T, name string, file func() *WeightsFile) *WeightsFile {
	t.Helper()
	got, err := file().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", name)
	golden.Check(t, path, got)
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	wf, err := ParseWeights(want, path)
	if err != nil {
		t.Fatal(err)
	}
	if orig := file(); !reflect.DeepEqual(stripLines(wf), orig) {
		t.Errorf("golden file reads back as\n%+v\nwant\n%+v", wf, orig)
	}
	return wf
}

// nnTunedFile is a weights file of the nneonneo set with tuned parameters,
// as the tuner would export it.
func nnTunedFile() *WeightsFile {
	wf, err := NewWeightsFile(nneonneoSet, []float64{187500.25, 301.5, 655.125, 39.75, 13.0625}, []float64{3.25, 3.875})
	if err != nil {
		panic(err)
	}
	wf.Search = &engine.SearchConfig{Algorithm: engine.AlgorithmNneonneo, Depth: 5, HeuristicOnly: true, ProbCutoff: engine.NneonneoCutoff}
	wf.Provenance = &Provenance{
		Run: "nneonneo", Generation: 40, Optimizer: "cmaes", Seed: 7, Evaluations: 640,
		Fitness:  &Fitness{Metric: "mean_score", Mean: 61250.5, CI95: 3100.25, Games: 200, Seeds: &SeedRange{First: 1 << 32, Count: 200}},
		Baseline: &Fitness{Metric: "mean_score", Mean: 45800, CI95: 2950.5, Games: 200, Seeds: &SeedRange{First: 1 << 32, Count: 200}},
	}
	return wf
}

func TestGoldenWeightsFileV2(t *testing.T) {
	wf := checkGolden(t, "nneonneo_tuned.yaml", nnTunedFile)
	// The checks pin the features under the file's parameters, not the
	// defaults: some differ.
	differ := false
	for _, c := range wf.Checks {
		differ = differ || !reflect.DeepEqual(c.Features, nneonneoSet.FeatureVector(c.Board, nil, nil))
	}
	if !differ {
		t.Error("every check's features equal those under the default parameters")
	}
	c, err := wf.Compile()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := nneonneoSet.CompileParams(wf.Weights, []float64{3.25, 3.875})
	for _, b := range CheckBoards() {
		if c.Evaluate(b) != want.Evaluate(b) {
			t.Errorf("Compile: %s: %v, want %v (the file's parameters)", b, c.Evaluate(b), want.Evaluate(b))
		}
	}
}

// mustWeightsFile is NewWeightsFile for weights that compile.
func mustWeightsFile(s *FeatureSet, w, p []float64) *WeightsFile {
	wf, err := NewWeightsFile(s, w, p)
	if err != nil {
		panic(err)
	}
	return wf
}

// TestFormatChosen checks that Marshal writes version 2 exactly when the
// content needs it.
func TestFormatChosen(t *testing.T) {
	for _, tc := range []struct {
		name   string
		set    *FeatureSet
		search *engine.SearchConfig
		want   string
	}{
		{"standard", standardSet, nil, FormatV1},
		{"expectimax", standardSet, &engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 3}, FormatV1},
		{"beam", classicSet, &engine.SearchConfig{Algorithm: engine.AlgorithmBeam, Depth: 4, Width: 8, HeuristicOnly: true}, FormatV1},
		{"cutoff", standardSet, &engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 3, ProbCutoff: 1e-3}, FormatV2},
		{"nneonneo search", standardSet, &engine.SearchConfig{Algorithm: engine.AlgorithmNneonneo, Depth: 3}, FormatV2},
		{"parameters", nneonneoSet, nil, FormatV2},
		{"adaptive", standardSet, &engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 7, ProbCutoff: 1e-3, Adaptive: true}, FormatV2},
		{"validated at another depth", standardSet, nil, FormatV2},
		{"stage of a ladder", standardSet, nil, FormatV2},
	} {
		wf := mustWeightsFile(tc.set, tc.set.Defaults, nil)
		wf.Search = tc.search
		if tc.name == "validated at another depth" {
			wf.Search = &engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 3}
			wf.Provenance = &Provenance{Fitness: &Fitness{Metric: "mean_score", Mean: 1, Search: &engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 5, ProbCutoff: 0.02}}}
		}
		if tc.name == "stage of a ladder" {
			wf.Provenance = &Provenance{Run: "ladder", Stage: &Stage{Index: 2, Of: 3, Name: "deep"}}
		}
		data, err := wf.Marshal()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !strings.Contains(string(data), "\nformat: "+tc.want+"\n") {
			t.Errorf("%s: want %s, wrote\n%s", tc.name, tc.want, data)
		}
		back, err := ParseWeights(data, "w.yaml")
		if err != nil || back.Format != tc.want {
			t.Errorf("%s: read back: %v", tc.name, err)
			continue
		}
		if tc.search != nil && tc.search.Algorithm != engine.AlgorithmNneonneo && *back.Search != *tc.search { // nneonneo: written as the search it is (see TestParseV2)
			t.Errorf("%s: search %+v reads back as %+v", tc.name, *tc.search, *back.Search)
		}
		if p := wf.Provenance; p != nil && !reflect.DeepEqual(back.Provenance, p) {
			t.Errorf("%s: provenance %+v reads back as %+v", tc.name, p, back.Provenance)
		}
		if p := wf.Provenance; p != nil && p.Fitness != nil && !reflect.DeepEqual(back.Provenance.Fitness.Search, p.Fitness.Search) {
			t.Errorf("%s: validated with %+v, reads back as %+v", tc.name, p.Fitness.Search, back.Provenance.Fitness.Search)
		}
	}
}

// A version 1 file of a set with parameters keeps loading, with the
// default parameters.
func TestParseV1WithParameters(t *testing.T) {
	data := "format: evotune.weights/v1\nfeatures: nneonneo\nweights: {offset: 200000, empty: 270, merges: 700, monotonicity: 47, sum: 11}\n" +
		"search: {algorithm: expectimax, depth: 3}\n"
	wf, err := ParseWeights([]byte(data), "w.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := wf.Compile()
	if err != nil || wf.Params != nil {
		t.Fatalf("params %v, %v", wf.Params, err)
	}
	for _, b := range CheckBoards() {
		if c.Evaluate(b) != nneonneoSet.Default().Evaluate(b) {
			t.Errorf("%s: compiled %v, want %v (the default parameters)", b, c.Evaluate(b), nneonneoSet.Default().Evaluate(b))
		}
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
	for i := range 300 {
		s := registry[i%len(registry)]
		w := make([]float64, len(s.Features))
		for j := range w {
			w[j] = weirdFloat(rng)
			for s == nneonneoSet && math.Abs(w[j]) > math.MaxFloat32/1e6 { // its constants are float32
				w[j] = weirdFloat(rng)
			}
		}
		var p []float64
		if len(s.Params) > 0 {
			p = make([]float64, len(s.Params))
			for j, q := range s.Params {
				switch rng.IntN(4) {
				case 0:
					p[j] = []float64{q.Min, q.Max, q.Default, math.Nextafter(q.Max, 0)}[rng.IntN(4)]
				default:
					p[j] = q.Min + rng.Float64()*(q.Max-q.Min)
				}
			}
		}
		wf, err := NewWeightsFile(s, w, p)
		if err != nil {
			t.Fatalf("weights %v, params %v: %v", w, p, err)
		}
		if i%7 == 0 {
			wf.Search = &engine.SearchConfig{Algorithm: engine.AlgorithmNneonneo, Depth: 2*rng.IntN(4) + 3, ProbCutoff: []float64{0, 1e-4, rng.Float64()}[rng.IntN(3)]}
		}
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
			if back, err = ReadWeightsFile(path); err != nil {
				t.Fatalf("weights %v: %v", w, err)
			}
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
		if len(back.Params) != len(p) {
			t.Fatalf("params %v read back as %v", p, back.Params)
		}
		for j := range p {
			if math.Float64bits(back.Params[j]) != math.Float64bits(p[j]) {
				t.Fatalf("param %d: wrote %v, read %v", j, p[j], back.Params[j])
			}
		}
		if wf.Search != nil && (back.Search.Depth != wf.Search.Depth || back.Search.ProbCutoff != wf.Search.Cutoff()) {
			t.Fatalf("search %+v read back as %+v", wf.Search, back.Search)
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
				if s.FeatureVector(b, nil, nil)[i] == 0 {
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
		{"format", edit("evotune.weights/v1", "evotune.weights/v3"), 1, `format: unknown format "evotune.weights/v3" (want evotune.weights/v1 or evotune.weights/v2)`},
		{"format type", edit("evotune.weights/v1", "[1]"), 1, "format: want a string"},
		{"missing format", edit("format: evotune.weights/v1\n", ""), 1, `weights file: missing key "format"`},
		{"unknown key", goodFile + "color: blue\n", 11, `color: unknown key (allowed in weights file: format, features, weights, params, search, provenance, checks)`},
		{"duplicate key", goodFile + "features: standard\n", 11, `features: key given twice`},
		{"set", edit("features: standard", "features: fancy"), 2, `features: unknown feature set "fancy" (known: classic, standard, nneonneo)`},
		{"missing feature", edit("weights: {monotonicity: 47, ", "weights: {"), 3, `weights: missing feature "monotonicity" (standard needs monotonicity, smoothness, empty, corner, merge)`},
		{"unknown feature", edit("merge: 70}", "merge: 70, tiles: 3}"), 3, `weights: unknown feature "tiles" (features of standard: monotonicity`},
		{"duplicate feature", edit("merge: 70}", "merge: 70, empty: 3}"), 3, `weights.empty: key given twice`},
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
		{"check unknown key", edit("    value: 4320\n", "    value: 4320\n    note: x\n"), 8, `checks[0].note: unknown key (allowed in checks[0]: board, features, value)`},
		{"checks not a list", strings.Split(goodFile, "checks:")[0] + "checks: 3\n", 4, "checks: want a list"},
		{"yaml syntax", edit("merge: 70}", "merge: 70"), 3, "invalid YAML: did not find expected ',' or '}'"},
		{"yaml first line", "\tformat: x\n", 1, "invalid YAML: found character that cannot start any token"},
		{"unterminated", goodFile + "x: 'abc\n", 11, "invalid YAML: found unexpected end of stream"},
		{"alias", edit("empty: 270", "empty: &e 270") + "x: *e\n", 11, `x: unknown key (allowed in weights file:`},
		{"alias value", edit("empty: 270, corner: 100", "empty: &e 270, corner: *e"), 3, "weights.corner: YAML aliases are not allowed"},
		{"unknown alias", goodFile + "x: *nope\n", 11, "invalid YAML: unknown anchor 'nope' referenced"},
		{"two documents", goodFile + "---\nformat: x\n", 11, "a second YAML document"},
		{"control character", goodFile + "x: \x01\n", 11, "control character U+0001"},
		{"invalid utf-8", "format: \xff\n", 1, "invalid UTF-8"},
		{"search algorithm", goodFile + "search: {algorithm: minimax, depth: 3}\n", 11, `search.algorithm: unknown algorithm "minimax" (want expectimax, beam or nneonneo)`},
		{"search depth", goodFile + "search: {algorithm: beam, depth: 0}\n", 11, "search.depth: 0: want 1 to 20 plies"},
		{"search width", goodFile + "search: {algorithm: expectimax, depth: 2, width: 8}\n", 11, "search.width: only beam search has a width"},
		{"search missing depth", goodFile + "search: {algorithm: beam}\n", 11, `search: missing key "depth"`},
		{"move scores", goodFile + "search: {algorithm: beam, depth: 2, move_scores: maybe}\n", 11, `search.move_scores: "maybe" is not true or false`},
		{"provenance key", goodFile + "provenance:\n  run: x\n  when: now\n", 13, `provenance.when: unknown key (allowed in provenance:`},
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

const goodV2 = `format: evotune.weights/v2
features: nneonneo
weights: {offset: 200000, empty: 270, merges: 700, monotonicity: 47, sum: 11}
params: {monotonicity_power: 4, sum_power: 3.5}
search: {algorithm: nneonneo, depth: 5, move_scores: false, cutoff: 0.0001}
checks:
  - board: "2 2 0 0/0 0 0 0/0 0 0 0/4 0 2 4"
    features: {offset: 8, empty: 22, merges: 2, monotonicity: -17, sum: -51.254833995939045}
    value: 1.6059771968260447e+06
`

func TestParseV2Errors(t *testing.T) {
	wf, err := ParseWeights([]byte(goodV2), "w.yaml")
	if err != nil {
		t.Fatalf("the good file: %v", err)
	}
	if want := (engine.SearchConfig{Algorithm: engine.AlgorithmNneonneo, Depth: 5, HeuristicOnly: true, ProbCutoff: 1e-4}); *wf.Search != want || !reflect.DeepEqual(wf.Params, []float64{4, 3.5}) {
		t.Errorf("search %+v, params %v", *wf.Search, wf.Params)
	}
	edit := func(old, new string) string {
		if !strings.Contains(goodV2, old) {
			t.Fatalf("%q not in goodV2", old)
		}
		return strings.Replace(goodV2, old, new, 1)
	}
	v1 := func(s string) string { return strings.Replace(s, "/v2", "/v1", 1) }
	for _, tc := range []struct {
		name, data string
		line       int
		msg        string
	}{
		{"param out of bounds", edit("sum_power: 3.5", "sum_power: 7"), 4, "params.sum_power: 7 is out of bounds (want 1 to 6)"},
		{"param below bounds", edit("monotonicity_power: 4", "monotonicity_power: 0.5"), 4, "params.monotonicity_power: 0.5 is out of bounds (want 1 to 6)"},
		{"param missing", edit(", sum_power: 3.5}", "}"), 4, `params: missing parameter "sum_power" (nneonneo needs monotonicity_power, sum_power)`},
		{"param unknown", edit("sum_power: 3.5}", "sum_power: 3.5, merge_power: 2}"), 4, `params: unknown parameter "merge_power" (parameters of nneonneo: monotonicity_power, sum_power)`},
		{"param not a number", edit("sum_power: 3.5", "sum_power: high"), 4, `params.sum_power: "high" is not a number`},
		{"param not finite", edit("sum_power: 3.5", "sum_power: .nan"), 4, `params.sum_power: .nan is not finite`},
		{"params missing", edit("params: {monotonicity_power: 4, sum_power: 3.5}\n", ""), 1, `weights file: missing key "params" (nneonneo has parameters monotonicity_power, sum_power)`},
		{"params list", edit("{monotonicity_power: 4, sum_power: 3.5}", "[4, 3.5]"), 4, "params: want a mapping of monotonicity_power, sum_power to numbers"},
		{"params in v1", v1(goodV2), 4, "params: an evotune.weights/v2 key in an evotune.weights/v1 file (write format: evotune.weights/v2 to use it)"},
		{"cutoff in v1", v1(strings.Replace(edit("params: {monotonicity_power: 4, sum_power: 3.5}\n", ""), "nneonneo, depth: 5, move_scores: false", "expectimax, depth: 3", 1)), 4, "search.cutoff: an evotune.weights/v2 key in an evotune.weights/v1 file"},
		{"nneonneo search in v1", v1(strings.Replace(edit("params: {monotonicity_power: 4, sum_power: 3.5}\n", ""), ", cutoff: 0.0001", "", 1)), 4, "search.algorithm: the nneonneo search needs format evotune.weights/v2 (want expectimax or beam in an evotune.weights/v1 file)"},
		{"params of a set without", "format: evotune.weights/v2\nfeatures: classic\nweights: {empty: 27, mono: 10, smooth: 3}\nparams: {sum_power: 2}\n", 4, "params: classic has no parameters (remove the key)"},
		{"even depth", edit("depth: 5", "depth: 4"), 5, "search.depth: 4: the nneonneo search wants an odd depth of at least 3 plies (2c+1 for the program's cap c: 3, 5, 7, ...)"},
		{"depth 1", edit("depth: 5", "depth: 1"), 5, "search.depth: 1: the nneonneo search wants an odd depth"},
		{"cutoff 1", edit("cutoff: 0.0001", "cutoff: 1"), 5, "search.cutoff: 1: want 0 (the program's 1e-4) or a probability in (0, 1)"},
		{"cutoff negative", edit("cutoff: 0.0001", "cutoff: -0.5"), 5, "search.cutoff: -0.5: want 0"},
		{"cutoff word", edit("cutoff: 0.0001", "cutoff: low"), 5, `search.cutoff: "low" is not a number`},
		{"move scores", edit("move_scores: false", "move_scores: true"), 5, "search.move_scores: the nneonneo search adds no move scores (want false, or leave it out)"},
		{"weight beyond float32", edit("offset: 200000", "offset: 1e39"), 3, "weights: nneonneo: weight of offset is 1e+39, want a float32"},
		{"check feature", edit("merges: 2,", "merges: 3,"), 8, "checks[0].features.merges: the file says 3, this implementation computes 2"},
		{"check power feature", edit("sum: -51.254833995939045}", "sum: -51.25483399593904}"), 8, "checks[0].features.sum: the file says -51.25483399593904, this implementation computes -51.254833995939045"},
		{"check under the file's params", edit("sum_power: 3.5", "sum_power: 3.25"), 8, "checks[0].features.sum: the file says -51.254833995939045, this implementation computes -44.05462768008707"},
		{"check value", edit("value: 1.6059771968260447e+06", "value: 1.605978e+06"), 9, "checks[0].value: the file says 1.605978e+06, this implementation computes 1.6059771968260447e+06"},
		{"unknown key v2", goodV2 + "color: blue\n", 10, `color: unknown key (allowed in weights file: format, features, weights, params, search, provenance, checks)`},
		{"stage in v1", goodFile + "provenance: {stage: {index: 1, of: 2, name: a}}\n", 11, "provenance.stage: an evotune.weights/v2 key in an evotune.weights/v1 file"},
		{"stage unknown key", goodV2 + "provenance: {stage: {index: 1, of: 2, name: a, depth: 3}}\n", 10, `provenance.stage.depth: unknown key (allowed in provenance.stage: index, of, name)`},
		{"stage missing name", goodV2 + "provenance: {stage: {index: 1, of: 2}}\n", 10, `provenance.stage: missing key "name"`},
		{"stage empty name", goodV2 + "provenance: {stage: {index: 1, of: 2, name: \"\"}}\n", 10, "provenance.stage.name: empty"},
		{"stage index beyond", goodV2 + "provenance: {stage: {index: 3, of: 2, name: a}}\n", 10, "provenance.stage.index: 3 is out of range (want 1 to 2)"},
		{"stage index zero", goodV2 + "provenance: {stage: {index: 0, of: 2, name: a}}\n", 10, "provenance.stage.index: 0 is out of range"},
		{"stage of zero", goodV2 + "provenance: {stage: {index: 1, of: 0, name: a}}\n", 10, "provenance.stage.of: 0 is out of range"},
		{"stage not a mapping", goodV2 + "provenance: {stage: 2}\n", 10, "provenance.stage: want a mapping"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseWeights([]byte(tc.data), "w.yaml")
			var we *FileError
			if !errors.As(err, &we) || !errors.Is(err, ErrWeightsFile) {
				t.Fatalf("err = %v, want a *FileError", err)
			}
			if we.File != "w.yaml" || we.Line != tc.line || !strings.Contains(err.Error(), tc.msg) || strings.Contains(err.Error(), "\n") {
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
		{Format: "v0", SetName: "standard", Weights: standardSet.Defaults},
		{SetName: "fancy", Weights: standardSet.Defaults},
		{SetName: "standard", Weights: standardSet.Defaults[:3]},
		{SetName: "standard", Weights: []float64{1, 2, math.Inf(1), 4, 5}},
		{SetName: "standard", Weights: standardSet.Defaults, Search: &engine.SearchConfig{Algorithm: "dfs", Depth: 2}},
		{SetName: "standard", Weights: standardSet.Defaults, Params: []float64{2}},
		{SetName: "nneonneo", Weights: nneonneoSet.Defaults, Params: []float64{4, 9}},
		{SetName: "nneonneo", Weights: []float64{1e39, 1, 1, 1, 1}},
		{SetName: "standard", Weights: standardSet.Defaults, Search: &engine.SearchConfig{Algorithm: engine.AlgorithmNneonneo, Depth: 4}},
		{SetName: "standard", Weights: standardSet.Defaults, Search: &engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 3, ProbCutoff: 1}},
		{SetName: "standard", Weights: standardSet.Defaults, Provenance: &Provenance{Fitness: &Fitness{Metric: "m", Mean: math.NaN()}}},
	} {
		if _, err := wf.Marshal(); err == nil {
			t.Errorf("Marshal(%+v) succeeded", wf)
		}
	}
}

// An empty parameter vector is no parameters, as DefaultParams gives it
// for a set without any.
func TestMarshalEmptyParams(t *testing.T) {
	wf := mustWeightsFile(standardSet, standardSet.Defaults, nil)
	wf.Params = standardSet.DefaultParams()
	data, err := wf.Marshal()
	if err != nil || !strings.Contains(string(data), "format: "+FormatV1+"\n") || strings.Contains(string(data), "params") {
		t.Errorf("Marshal: %v\n%s", err, data)
	}
}

func TestMarshalRecomputesChecks(t *testing.T) {
	wf := mustWeightsFile(standardSet, standardSet.Defaults, nil)
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
	if len(back.Checks) != 2 || back.Checks[1].Value != Value(wf.Weights, standardSet.FeatureVector(back.Checks[1].Board, nil, nil)) {
		t.Errorf("checks written: %+v", back.Checks)
	}
	_ = engine.Board(0)
}

func FuzzParseWeights(f *testing.F) {
	f.Add([]byte(goodFile))
	if data, err := tunedFile().Marshal(); err == nil {
		f.Add(data)
	}
	if data, err := mustWeightsFile(classicSet, classicSet.Defaults, nil).Marshal(); err == nil {
		f.Add(data)
	}
	f.Add([]byte("format: evotune.weights/v1\nfeatures: classic\nweights: {empty: 0x1b, mono: 1_0, smooth: -0}\n"))
	f.Add([]byte(goodV2))
	if data, err := nnTunedFile().Marshal(); err == nil {
		f.Add(data)
	}
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
