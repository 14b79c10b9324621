package eval

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/internal/golden"
)

func samplePlayerFile(t *testing.T) *PlayerFile {
	t.Helper()
	b := CheckBoards()
	return &PlayerFile{
		Player: PlayerInfo{ID: "myplayer", Version: "1.2 (build 7)", Command: []string{"python3", "player.py", "--depth", "2"}, Dir: "/home/me/my player"},
		Params: []NamedValue{{"empty", 270.5}, {"depth_bonus", 3}, {"merge", -0.125}},
		Provenance: &Provenance{Run: "r", Generation: 4, Optimizer: "cmaes", Seed: 9, Evaluations: 48,
			Fitness:  &Fitness{Metric: "mean_score", Mean: 2500, CI95: 100, Games: 20, Seeds: &SeedRange{First: 1 << 63, Count: 20}},
			Baseline: &Fitness{Metric: "mean_score", Mean: 2000, Games: 20}},
		Checks: []MoveCheck{{Board: b[2], Move: engine.Down}, {Board: b[3], Move: engine.Left}},
	}
}

// TestPlayerFileGolden: a params file as written, and read back to what
// was written.
func TestPlayerFileGolden(t *testing.T) {
	pf := samplePlayerFile(t)
	data, err := pf.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "params.golden"), data)
	if !IsPlayerFile(data) {
		t.Error("IsPlayerFile: false for a params file")
	}
	got, err := ParsePlayerFile(data, "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got.Player.ID != pf.Player.ID || got.Player.Version != pf.Player.Version || strings.Join(got.Player.Command, " ") != strings.Join(pf.Player.Command, " ") || got.Player.Dir != pf.Player.Dir {
		t.Errorf("player %+v, want %+v", got.Player, pf.Player)
	}
	if len(got.Params) != len(pf.Params) {
		t.Fatalf("params %v", got.Params)
	}
	for i := range pf.Params {
		if got.Params[i] != pf.Params[i] {
			t.Errorf("param %d: %v, want %v", i, got.Params[i], pf.Params[i])
		}
	}
	if len(got.Checks) != 2 || got.Checks[1].Board != pf.Checks[1].Board || got.Checks[0].Move != engine.Down || got.Checks[1].Move != engine.Left || got.Checks[0].Line == 0 {
		t.Errorf("checks %+v", got.Checks)
	}
	if got.Provenance == nil || got.Provenance.Fitness.Mean != 2500 {
		t.Errorf("provenance %+v", got.Provenance)
	}
	// A weights file reader refuses it with a line that says what it is.
	if _, err := ParseWeights(data, "p.yaml"); err == nil || !strings.Contains(err.Error(), "params file of an external player") {
		t.Errorf("ParseWeights of a params file: %v", err)
	}
	if IsPlayerFile([]byte("format: evotune.weights/v1\nfeatures: standard\n")) {
		t.Error("IsPlayerFile: true for a weights file")
	}
}

// TestPlayerFileWithoutDir: a params file written before the command's
// directory was recorded still loads, with no directory.
func TestPlayerFileWithoutDir(t *testing.T) {
	data := "format: evotune.weights/v2\nplayer: {id: p, version: \"1\", command: [./player]}\nparams: {a: 1}\n"
	pf, err := ParsePlayerFile([]byte(data), "old.yaml")
	if err != nil || pf.Player.Dir != "" || pf.Player.Command[0] != "./player" {
		t.Fatalf("%+v, %v", pf, err)
	}
	if _, err := ParsePlayerFile([]byte(strings.Replace(data, "[./player]", "[./player], dir: \"a\\nb\"", 1)), "bad.yaml"); err == nil || !strings.Contains(err.Error(), "player.dir") {
		t.Errorf("a directory of two lines: %v", err)
	}
}

// TestPlayerFileErrors: every rule of a params file, one line each with
// its file and line.
func TestPlayerFileErrors(t *testing.T) {
	head := "format: evotune.weights/v2\nplayer: {id: p, version: \"1\", command: [p]}\n"
	for _, tc := range []struct{ name, text, want string }{
		{"empty", "", "p.yaml:1: empty file"},
		{"format", "format: evotune.weights/v1\nplayer: {id: p, version: \"1\", command: [p]}\nparams: {x: 1}\n", "p.yaml:1: format: \"evotune.weights/v1\": a params file is format evotune.weights/v2"},
		{"no params", head, "params file: missing key \"params\""},
		{"params empty", head + "params: {}\n", "p.yaml:3: params: want a mapping"},
		{"param text", head + "params: {x: lots}\n", "p.yaml:3: params.x:"},
		{"param twice", head + "params: {x: 1, x: 2}\n", "p.yaml:3: params.x: key given twice"},
		{"bad id", "format: evotune.weights/v2\nplayer: {id: \"a b\", version: \"1\", command: [p]}\nparams: {x: 1}\n", "p.yaml:2: player.id"},
		{"no command", "format: evotune.weights/v2\nplayer: {id: p, version: \"1\", command: []}\nparams: {x: 1}\n", "p.yaml:2: player.command"},
		{"unknown key", head + "params: {x: 1}\nfeatures: standard\n", "p.yaml:4: features: unknown key"},
		{"bad move", head + "params: {x: 1}\nchecks:\n  - {board: \"0x0000000000000012\", move: sideways}\n", "p.yaml:5: checks[0].move"},
		{"illegal move", head + "params: {x: 1}\nchecks:\n  - {board: \"0x0000000000000012\", move: left}\n", "p.yaml:5: checks[0].move: left is not a legal move"},
		{"no move", head + "params: {x: 1}\nchecks:\n  - {board: \"0x1212212112122121\", move: left}\n", "p.yaml:5: checks[0].board"},
	} {
		_, err := ParsePlayerFile([]byte(tc.text), "p.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrWeightsFile) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func FuzzParsePlayerFile(f *testing.F) {
	data, err := samplePlayerFile(&testing.T{}).Marshal()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Fuzz(func(t *testing.T, data []byte) {
		pf, err := ParsePlayerFile(data, "f")
		if err != nil {
			return
		}
		again, err := pf.Marshal()
		if err != nil {
			t.Fatalf("a file that reads does not write: %v", err)
		}
		if _, err := ParsePlayerFile(again, "f"); err != nil {
			t.Fatal(err)
		}
	})
}
