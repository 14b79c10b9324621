package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

func TestHelp(t *testing.T) {
	code, out, _ := runCLI(t, "help")
	if code != 0 || !strings.Contains(out, "search") || !strings.Contains(out, "tune") {
		t.Fatalf("help: exit %d, output %q", code, out)
	}
	for _, c := range commands {
		for _, args := range [][]string{{c.name, "-h"}, {"help", c.name}} {
			code, out, _ := runCLI(t, args...)
			if code != 0 || !strings.HasPrefix(out, "Usage: evotune "+c.name) || strings.Count(out, "Usage:") != 1 {
				t.Errorf("%v: exit %d, output %q", args, code, out)
			}
		}
	}
	if code, _, _ := runCLI(t); code != 2 {
		t.Errorf("no arguments: exit %d, want 2", code)
	}
	if code, _, errs := runCLI(t, "frobnicate"); code != 2 || !strings.Contains(errs, "unknown command") {
		t.Errorf("unknown command: exit %d, %q", code, errs)
	}
}

// TestBadInput checks that every bad input gets one line naming the flag,
// exit status 2.
func TestBadInput(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"search"}, "--board"},
		{[]string{"search", "--board", "0x12345678901234567"}, "--board"},
		{[]string{"search", "--board", "3 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0"}, "--board"},
		{[]string{"search", "--board", "65536 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0"}, "--board"},
		{[]string{"search", "--board", "0x1", "--depth", "0"}, "--depth"},
		{[]string{"search", "--board", "0x1", "--eval", "nope"}, "--eval"},
		{[]string{"search", "--board", "0x1", "--nope"}, "-nope"},
		{[]string{"search", "--board", "0x1", "--depth", "x"}, "-depth"},
		{[]string{"play", "--depth", "0"}, "--depth"},
		{[]string{"play", "--search", "mcts"}, "--search"},
		{[]string{"play", "--eval", "nope"}, "--eval"},
		{[]string{"play", "--games", "0"}, "--games"},
		{[]string{"play", "--workers", "-1"}, "--workers"},
		{[]string{"play", "--width", "0", "--search", "beam"}, "--width"},
		{[]string{"play", "extra"}, "extra"},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(t, tt.args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line naming %s", tt.args, code, out, errs, tt.want)
		}
	}
}

func TestSearchJSON(t *testing.T) {
	code, out, errs := runCLI(t, "search", "--board", "2 4 8 16/32 64 0 0/0 0 0 0/0 0 0 0", "--depth", "3", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"board", "depth", "value", "nodes", "tt_hits", "best", "moves"} {
		if _, ok := got[k]; !ok {
			t.Errorf("search --json lacks %q: %s", k, out)
		}
	}
	if len(got) != 7 {
		t.Errorf("search --json has %d keys, want 7: %s", len(got), out)
	}
	if got["board"] != "0x0000000000654321" || got["depth"] != 3.0 || got["tt_hits"] != 0.0 {
		t.Errorf("search --json = %s", out)
	}
	moves := got["moves"].([]any)
	// Up and left change nothing on this board: only down and right are legal.
	if len(moves) != 2 || moves[0].(map[string]any)["dir"] != "down" || moves[1].(map[string]any)["dir"] != "right" {
		t.Errorf("moves = %v, want down and right only", moves)
	}
	nodes := 1.0
	for _, m := range moves {
		nodes += m.(map[string]any)["nodes"].(float64)
	}
	if nodes != got["nodes"] {
		t.Errorf("root + move nodes = %v, total %v", nodes, got["nodes"])
	}
	// The table changes node counts, never values.
	_, out2, _ := runCLI(t, "search", "--board", "0x654321", "--depth", "3", "--json", "--tt")
	var withTT map[string]any
	if err := json.Unmarshal([]byte(out2), &withTT); err != nil {
		t.Fatal(err)
	}
	if withTT["value"] != got["value"] || withTT["best"] != got["best"] {
		t.Errorf("--tt changed the result: %s vs %s", out2, out)
	}
}

func TestSearchGameOver(t *testing.T) {
	code, out, _ := runCLI(t, "search", "--board", "2 4 2 4/4 2 4 2/2 4 2 4/4 2 4 2", "--json")
	if code != 0 || !strings.Contains(out, `"best": null`) || !strings.Contains(out, `"moves": []`) || !strings.Contains(out, `"nodes": 1,`) {
		t.Errorf("exit %d, output %s", code, out)
	}
}

func TestPlayWorkersAgree(t *testing.T) {
	var outs []string
	for _, w := range []string{"1", "2", "3"} {
		code, out, errs := runCLI(t, "play", "--games", "6", "--depth", "2", "--seed", "9", "--workers", w, "--json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"games", "mean", "ci95", "median", "reach", "moves_per_sec", "cpu_ms_per_move", "per_game"} {
			if _, ok := got[k]; !ok {
				t.Errorf("play --json lacks %q", k)
			}
		}
		reach := got["reach"].(map[string]any)
		if len(reach) != 5 || reach["2048"] == nil || reach["32768"] == nil || !strings.Contains(out, `"2048": `) ||
			strings.Index(out, `"2048"`) > strings.Index(out, `"16384"`) {
			t.Errorf("reach = %v: want the 5 tiles 2048..32768 in tile order", reach)
		}
		delete(got, "moves_per_sec") // timings differ from run to run
		delete(got, "cpu_ms_per_move")
		b, _ := json.Marshal(got)
		outs = append(outs, string(b))
	}
	if outs[0] != outs[1] || outs[0] != outs[2] {
		t.Errorf("results depend on --workers:\n%s\n%s\n%s", outs[0], outs[1], outs[2])
	}
}

func TestPlayText(t *testing.T) {
	code, out, errs := runCLI(t, "play", "--games", "3", "--depth", "2", "--search", "beam", "--width", "2")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{"games   3, beam, 2 plies, width 2", "score   mean", "95% CI", "reach   2048", "moves/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestWeightsFlag(t *testing.T) {
	set, _ := eval.Set("standard")
	path := filepath.Join(t.TempDir(), "w.yaml")
	wf := &eval.WeightsFile{SetName: set.Name, Weights: set.Defaults}
	wf.Search = &engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 2}
	if data, err := wf.Marshal(); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// The default weights from a file play exactly like --eval standard,
	// and the file's depth is used when --depth is not given.
	_, fromFile, _ := runCLI(t, "play", "--weights", path, "--games", "3", "--json")
	_, named, _ := runCLI(t, "play", "--eval", "standard", "--depth", "2", "--games", "3", "--json")
	if perGame(t, fromFile) != perGame(t, named) {
		t.Errorf("--weights with default weights plays differently from --eval standard")
	}
	code, out, errs := runCLI(t, "search", "--weights", path, "--board", "0x654321", "--symmetry")
	if code != 0 || !strings.Contains(out, "all equal") {
		t.Errorf("search --weights --symmetry: exit %d, %s%s", code, out, errs)
	}

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("format: evotune.weights/v1\nfeatures: standard\nweights: {monotonicity: 1, smoothness: 1, empty: x, corner: 1, merge: 1}\n"), 0o644)
	for _, args := range [][]string{
		{"play", "--weights", bad},
		{"search", "--board", "0x1", "--weights", bad},
		{"play", "--weights", filepath.Join(t.TempDir(), "missing.yaml")},
		{"play", "--weights", path, "--eval", "classic"},
	} {
		code, _, errs := runCLI(t, args...)
		if code != 2 || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line", args, code, errs)
		}
	}
	if _, _, errs := runCLI(t, "play", "--weights", bad); !strings.Contains(errs, "bad.yaml:3") {
		t.Errorf("bad weight: %q does not name bad.yaml:3", errs)
	}
}

func perGame(t *testing.T, out string) string {
	t.Helper()
	var v struct {
		PerGame []map[string]any `json:"per_game"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || len(v.PerGame) == 0 {
		t.Fatalf("play --json output %q: %v", out, err)
	}
	b, _ := json.Marshal(v.PerGame)
	return string(b)
}
