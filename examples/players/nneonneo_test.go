package players_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

// nneonneoSource returns the directory of a checkout of nneonneo/2048-ai:
// $NNEONNEO_SRC, or the pinned copy that may sit beside the repository at
// ../shared/tools/nneonneo-harness/upstream (beside the main work tree too,
// when the tests run in a linked git worktree); or "" and where it looked.
func nneonneoSource(t testing.TB) (string, string) {
	t.Helper()
	if dir := os.Getenv("NNEONNEO_SRC"); dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "2048.cpp")); err != nil {
			t.Fatalf("NNEONNEO_SRC=%s: %v", dir, err)
		}
		return dir, ""
	}
	roots := []string{}
	if root, err := repoRoot(); err == nil {
		roots = append(roots, root)
	}
	// The main work tree: the parent of the repository's common git directory.
	if out, err := exec.Command("git", "rev-parse", "--path-format=absolute", "--git-common-dir").Output(); err == nil {
		roots = append(roots, filepath.Dir(strings.TrimSpace(string(out))))
	}
	var looked []string
	for _, root := range roots {
		dir := filepath.Join(root, "..", "shared", "tools", "nneonneo-harness", "upstream")
		if _, err := os.Stat(filepath.Join(dir, "2048.cpp")); err == nil {
			return dir, ""
		}
		looked = append(looked, dir)
	}
	return "", "no nneonneo/2048-ai source: set NNEONNEO_SRC to a checkout of github.com/nneonneo/2048-ai (looked in " + strings.Join(looked, ", ") + ")"
}

// repoRoot is the nearest directory upward from the working directory (the
// package's) that holds go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// buildNneonneo builds the adapter with its build.sh into a temporary
// directory, or skips the test saying what is missing.
func buildNneonneo(t testing.TB) string {
	t.Helper()
	src, why := nneonneoSource(t)
	if src == "" {
		t.Skip(why)
	}
	cxx := os.Getenv("CXX")
	if cxx == "" {
		cxx = "g++"
	}
	if _, err := exec.LookPath(cxx); err != nil {
		t.Skipf("no C++ compiler (%s): the nneonneo adapter is not built", cxx)
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh: the nneonneo adapter's build.sh cannot run")
	}
	bin := filepath.Join(t.TempDir(), "nneonneo-player")
	out, err := exec.Command("sh", filepath.Join("nneonneo", "build.sh"), src, bin).CombinedOutput()
	if err != nil {
		t.Fatalf("nneonneo/build.sh %s: %v\n%s", src, err, out)
	}
	return bin
}

// The program's constants in the order of the adapter's declarations, and
// where each goes in the eval set nneonneo: weights offset, empty, merges,
// monotonicity, sum; parameters monotonicity_power, sum_power.
var nnConstants = []struct {
	name   string
	weight int // index in the weight vector, or -1
	param  int // index in the parameter vector, or -1
}{
	{"SCORE_LOST_PENALTY", 0, -1},
	{"SCORE_MONOTONICITY_POWER", -1, 0},
	{"SCORE_MONOTONICITY_WEIGHT", 3, -1},
	{"SCORE_SUM_POWER", -1, 1},
	{"SCORE_SUM_WEIGHT", 4, -1},
	{"SCORE_MERGES_WEIGHT", 2, -1},
	{"SCORE_EMPTY_WEIGHT", 1, -1},
}

// nnOracle is evotune's reimplementation of the program with the given
// constants (decimal texts by name) at the given cap.
func nnOracle(t *testing.T, values map[string]string, cap int) *engine.Nneonneo {
	t.Helper()
	set, err := eval.Set("nneonneo")
	if err != nil {
		t.Fatal(err)
	}
	w, p := make([]float64, 5), make([]float64, 2)
	for _, c := range nnConstants {
		v, err := strconv.ParseFloat(values[c.name], 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", c.name, values[c.name], err)
		}
		if c.weight >= 0 {
			w[c.weight] = v
		} else {
			p[c.param] = v
		}
	}
	e, err := set.CompileParams(w, p)
	if err != nil {
		t.Fatal(err)
	}
	s, err := engine.NewNneonneo(e, engine.NneonneoOptions{Cap: cap})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Constants tuned at cap 2 (configs/nneonneo-cap2.weights.yaml, as the
// program writes them).
var nnTunedCap2 = map[string]string{
	"SCORE_LOST_PENALTY": "53352.316", "SCORE_MONOTONICITY_POWER": "2.7002509",
	"SCORE_MONOTONICITY_WEIGHT": "41.52568", "SCORE_SUM_POWER": "2.3739283",
	"SCORE_SUM_WEIGHT": "20.857494", "SCORE_MERGES_WEIGHT": "400.15305", "SCORE_EMPTY_WEIGHT": "270",
}

// Constants tuned through the adapter at cap 1 (nneonneo/README.md), as
// evotune exports them: float64 decimals that the adapter rounds to float.
var nnTunedCap1 = map[string]string{
	"SCORE_LOST_PENALTY": "46999.85208390356", "SCORE_MONOTONICITY_POWER": "2.4845051042088304",
	"SCORE_MONOTONICITY_WEIGHT": "33.69477491365023", "SCORE_SUM_POWER": "2.9851278410643958",
	"SCORE_SUM_WEIGHT": "10.09093201968646", "SCORE_MERGES_WEIGHT": "348.61979561625066", "SCORE_EMPTY_WEIGHT": "270",
}

// sameRules drops the boards where two 32768 tiles exist: there the
// program's rules (they merge into one 32768) and evotune's differ.
func sameRules(boards []engine.Board) []engine.Board {
	var out []engine.Board
	for _, b := range boards {
		n := 0
		for r := range 4 {
			for c := range 4 {
				if b.Cell(r, c) == engine.MaxRank {
					n++
				}
			}
		}
		if n < 2 {
			out = append(out, b)
		}
	}
	return out
}

// TestNneonneo builds the nneonneo/2048-ai adapter from the program's source,
// runs the protocol checks in version 1 (--protocol 1), and requires its
// moves to be the program's: those of evotune's reimplementation, whose
// values equal the program's bit for bit, with the program's constants and
// with others, at caps 1 and 2. TestNneonneoProtocol2 holds version 2's
// moves to these.
func TestNneonneo(t *testing.T) {
	bin := buildNneonneo(t)
	boards := testBoards(t, 200)
	p := start(t, bin, "--cap", "1", "--protocol", "1")
	if !strings.HasPrefix(p.id, "nneonneo-2048-ai ") || !strings.HasSuffix(p.id, " cap=1") {
		t.Errorf("id %q, want nneonneo-2048-ai VERSION cap=1", p.id)
	}
	if p.sets != 0 {
		t.Errorf("--protocol 1 sent 'protocol 2 %d'", p.sets)
	}
	defaults := map[string]string{}
	if len(p.params) != len(nnConstants) {
		t.Fatalf("%d parameters declared, want the program's %d constants", len(p.params), len(nnConstants))
	}
	for i, q := range p.params {
		if q.name != nnConstants[i].name || q.kind != "float" {
			t.Errorf("parameter %d: %s %s, want %s float", i, q.name, q.kind, nnConstants[i].name)
		}
		defaults[q.name] = q.defText
	}
	checkProtocol(t, p, boards)
	same := sameRules(boards)
	if r := p.set(nil); r != "ok" {
		t.Fatalf("set with the defaults: %q", r)
	}
	got := p.moves(same, 25)
	compare := func(what string, got []engine.Dir, oracle *engine.Nneonneo, boards []engine.Board) {
		t.Helper()
		for i, b := range boards {
			if want := oracle.Move(b); got[i] != want {
				t.Errorf("%s: board %s: the adapter plays %v, the program %v", what, b.Hex(), got[i], want)
			}
		}
	}
	compare("cap 1, the program's constants", got, nnOracle(t, defaults, 1), same)

	// Constants tuned at cap 2: a set must rebuild the program's table.
	tuned := nnTunedCap2
	if r := p.set(tuned); r != "ok" {
		t.Fatalf("set the tuned constants: %q", r)
	}
	tunedMoves := p.moves(same, 25)
	compare("cap 1, tuned constants", tunedMoves, nnOracle(t, tuned, 1), same)
	changed := 0
	for i := range same {
		if tunedMoves[i] != got[i] {
			changed++
		}
	}
	if changed == 0 {
		t.Errorf("the tuned constants changed no move on %d boards", len(same))
	}
	p.quit()

	p2 := start(t, bin, "--cap=2", "--protocol=1")
	if r := p2.set(tuned); r != "ok" {
		t.Fatalf("set the tuned constants: %q", r)
	}
	few := same[:40]
	compare("cap 2, tuned constants", p2.moves(few, 10), nnOracle(t, tuned, 2), few)
	p2.quit()
}
