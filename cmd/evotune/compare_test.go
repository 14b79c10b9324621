package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/internal/golden"
)

// TestCompareJSON pins the JSON of a small deterministic compare: depth 1,
// 24 games, with an SPRT that has looked but not decided.
func TestCompareJSON(t *testing.T) {
	code, out, errs := runCLI(t, "compare", "eval:standard", "eval:classic", "--depth", "1", "--games", "24", "--seed", "5", "--sprt", "1.00,1.05", "--workers", "2", "--json")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	golden.Check(t, "testdata/compare.golden", []byte(out))
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	// DESIGN.md's keys, no more.
	keys := []string{"a", "b", "games", "depth", "mean_a", "mean_b", "diff", "diff_ci95", "ratio", "ratio_ci95", "wins", "losses", "ties", "reach", "sprt", "verdict"}
	for _, k := range keys {
		if _, ok := got[k]; !ok {
			t.Errorf("compare --json lacks %q", k)
		}
	}
	if len(got) != len(keys) {
		t.Errorf("compare --json has %d keys, want %d", len(got), len(keys))
	}
	sprt := got["sprt"].(map[string]any)
	if len(sprt) != 5 || sprt["h0"] != 1.0 || sprt["h1"] != 1.05 {
		t.Errorf("sprt = %v", sprt)
	}
	for tile, r := range got["reach"].(map[string]any) {
		if len(r.(map[string]any)) != 4 {
			t.Errorf("reach %s = %v, want a, b, a_ci95, b_ci95", tile, r)
		}
	}
}

// TestCompareWorkers checks that the output is the same bytes with 1 worker
// or 3, with and without a sequential test.
func TestCompareWorkers(t *testing.T) {
	for _, extra := range [][]string{nil, {"--sprt", "1.00,1.05", "--games", "60"}} {
		var outs []string
		for _, w := range []string{"1", "3"} {
			args := append([]string{"compare", "eval:classic", "eval:standard", "--depth", "1", "--games", "10", "--workers", w}, extra...)
			code, out, errs := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("%v: exit %d, %s", args, code, errs)
			}
			outs = append(outs, out)
		}
		if outs[0] != outs[1] {
			t.Errorf("%v: 1 worker and 3 differ:\n%s\n%s", extra, outs[0], outs[1])
		}
	}
}

func TestCompareAVersusA(t *testing.T) {
	// The same weights from a file and by name: identical players on
	// identical games.
	set, _ := eval.Set("standard")
	path := filepath.Join(t.TempDir(), "w.yaml")
	wf := &eval.WeightsFile{SetName: set.Name, Weights: set.Defaults}
	wf.Search = &engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 1}
	data, err := wf.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "compare", path, "eval:standard", "--depth", "1", "--games", "12", "--json")
	if code != 0 {
		t.Fatalf("exit %d, %s", code, errs)
	}
	var got struct {
		Games   int
		Depth   int
		MeanA   float64 `json:"mean_a"`
		MeanB   float64 `json:"mean_b"`
		Diff    float64
		DiffCI  [2]float64 `json:"diff_ci95"`
		Ratio   float64
		RatioCI [2]float64 `json:"ratio_ci95"`
		Ties    int
		Sprt    any
		Verdict string
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Games != 12 || got.Diff != 0 || got.DiffCI != [2]float64{} || got.Ratio != 1 || got.RatioCI != [2]float64{1, 1} ||
		got.Ties != 12 || got.Verdict != "no difference shown" || got.MeanA != got.MeanB || got.Depth != 1 || got.Sprt != nil {
		t.Errorf("A vs A: %s", out)
	}
	// With the test, the file's depth (1) is used without --depth, and
	// "ratio 1.00" is accepted at the first look.
	code, out, errs = runCLI(t, "compare", path, "eval:standard", "--games", "40", "--sprt", "1,1.05", "--depth", "1")
	if code != 0 {
		t.Fatalf("exit %d, %s", code, errs)
	}
	for _, want := range []string{"games    16 each", "(20 played; the test decided at 16)", "LLR -Inf", "accept H0 after 16 games: no difference shown", "verdict  no difference shown", "W/L/T    0/0/16"} {
		if !strings.Contains(out, want) {
			t.Errorf("A vs A with --sprt: output lacks %q:\n%s", want, out)
		}
	}
}

func TestCompareText(t *testing.T) {
	code, out, errs := runCLI(t, "compare", "eval:standard", "eval:classic", "--depth", "1", "--games", "30", "--sprt", "1.00,1.05", "--workers", "2")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{
		"A        eval:standard (standard default weights), expectimax, 1 ply\n",
		"B        eval:classic (classic default weights), expectimax, 1 ply\n",
		"games    30 each, on the same seeds (base seed 1)\n",
		"mean A   ", "± ", "(95% CI)", "A - B    ", "A / B    ", "W/L/T    ",
		"reach    2048  A ", "sprt     H0 1.00, H1 1.05 (ratios A/B), α = β = 0.05: LLR ", "bounds [-2.94, 2.94]",
		"verdict  A better\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestCompareSearchFromFile(t *testing.T) {
	// Each side plays its own file's search unless a flag says otherwise.
	set, _ := eval.Set("standard")
	dir := t.TempDir()
	for name, depth := range map[string]int{"d1.yaml": 1, "d2.yaml": 2} {
		wf := &eval.WeightsFile{SetName: set.Name, Weights: set.Defaults}
		wf.Search = &engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: depth}
		data, err := wf.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d1, d2 := filepath.Join(dir, "d1.yaml"), filepath.Join(dir, "d2.yaml")
	_, out, _ := runCLI(t, "compare", d1, d2, "--games", "4", "--json")
	if !strings.Contains(out, `"depth": [`) {
		t.Errorf("sides at depths 1 and 2: want depth [1, 2]:\n%s", out)
	}
	_, out, _ = runCLI(t, "compare", d1, d2, "--games", "4")
	if !strings.Contains(out, "expectimax, 1 ply\n") || !strings.Contains(out, "expectimax, 2 plies\n") {
		t.Errorf("sides at depths 1 and 2:\n%s", out)
	}
	_, out, _ = runCLI(t, "compare", d1, d2, "--games", "4", "--depth", "1", "--json")
	if !strings.Contains(out, `"depth": 1,`) || !strings.Contains(out, `"verdict": "no difference shown"`) || !strings.Contains(out, `"ties": 4`) {
		t.Errorf("--depth 1 for both: want identical games:\n%s", out)
	}
}

func TestCompareBadInput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("format: evotune.weights/v1\nfeatures: standard\nweights: {monotonicity: 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "missing.yaml")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"compare"}, "two players"},
		{[]string{"compare", "eval:standard"}, "two players"},
		{[]string{"compare", "eval:standard", "eval:classic", "eval:classic"}, "two players"},
		{[]string{"compare", "eval:standard", "eval:nope"}, `player B: unknown evaluator "nope"`},
		{[]string{"compare", "eval:", "eval:classic"}, "player A: unknown evaluator"},
		{[]string{"compare", missing, "eval:classic"}, "missing.yaml"},
		{[]string{"compare", "eval:classic", bad}, "bad.yaml"},
		{[]string{"compare", "eval:standard", "eval:classic", "--sprt", "1.05,1.00"}, "--sprt"},
		{[]string{"compare", "eval:standard", "eval:classic", "--sprt", "x"}, "--sprt"},
		{[]string{"compare", "eval:standard", "eval:classic", "--sprt", "1.05"}, "--sprt"},
		{[]string{"compare", "eval:standard", "eval:classic", "--sprt", "0,1"}, "--sprt"},
		{[]string{"compare", "eval:standard", "eval:classic", "--sprt", "1,inf"}, "--sprt"},
		{[]string{"compare", "eval:standard", "eval:classic", "--sprt", ""}, "--sprt"},
		{[]string{"compare", "eval:standard", "eval:classic", "--games", "1"}, "--games"},
		{[]string{"compare", "eval:standard", "eval:classic", "--games", "-3"}, "--games"},
		{[]string{"compare", "eval:standard", "eval:classic", "--depth", "0"}, "--depth"},
		{[]string{"compare", "eval:standard", "eval:classic", "--workers", "-1"}, "--workers"},
		{[]string{"compare", "eval:standard", "eval:classic", "--search", "mcts"}, "--search"},
		{[]string{"compare", "eval:standard", "eval:classic", "--width", "0"}, "--width"},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(t, tt.args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line naming %s", tt.args, code, out, errs, tt.want)
		}
	}
}
