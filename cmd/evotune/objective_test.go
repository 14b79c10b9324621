package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/evotune/evotune/tuner"
)

// objectiveConfig is a problem of milliseconds: games cut at 60 moves, of
// the nneonneo set for its bounded shape parameters and its held weight
// (empty: the search adds no move scores).
const objectiveConfig = `features: nneonneo
search: {algorithm: nneonneo, depth: 3}
fitness: {games: 3, max_moves: 60}
`

// objectiveChild is evotune objective running as a child process (the test
// binary standing in for evotune), with its stdin and stdout.
type objectiveChild struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startObjective(t *testing.T, args ...string) (*objectiveChild, map[string]any) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"objective"}, args...)...)
	cmd.Env = append(os.Environ(), "EVOTUNE_CHILD=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &objectiveChild{t: t, cmd: cmd, in: in, out: bufio.NewReader(out)}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	var hello map[string]any
	if err := json.Unmarshal(c.line(), &hello); err != nil {
		t.Fatalf("first line: %v (stderr %q)", err, stderr.String())
	}
	return c, hello
}

func (c *objectiveChild) line() []byte {
	c.t.Helper()
	line, err := c.out.ReadBytes('\n')
	if err != nil {
		c.t.Fatalf("reading an answer: %v", err)
	}
	return line
}

// ask sends a line and returns the answer, decoded.
func (c *objectiveChild) ask(req string) map[string]any {
	c.t.Helper()
	if _, err := io.WriteString(c.in, req+"\n"); err != nil {
		c.t.Fatal(err)
	}
	var a map[string]any
	if err := json.Unmarshal(c.line(), &a); err != nil {
		c.t.Fatalf("answer to %s: %v", req, err)
	}
	return a
}

// end closes stdin and checks that the child exits 0.
func (c *objectiveChild) end() {
	c.t.Helper()
	c.in.Close()
	if rest, _ := io.ReadAll(c.out); len(rest) > 0 {
		c.t.Errorf("output after the last answer: %q", rest)
	}
	if err := c.cmd.Wait(); err != nil {
		c.t.Errorf("objective at the end of its input: %v, want exit 0", err)
	}
}

const objectiveParams = `{"offset":200000,"empty":270,"merges":700,"monotonicity":47,"sum":11,"monotonicity_power":4,"sum_power":3.5}`

func TestObjectiveExchange(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "small.yaml")
	if err := os.WriteFile(cfg, []byte(objectiveConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	c, hello := startObjective(t, "--config", cfg, "--seed", "7", "--workers", "2")
	params := hello["params"].([]any)
	if hello["objective"] != "small" || hello["seed"] != 7.0 || hello["games"] != 3.0 || len(params) != 6 {
		t.Fatalf("first line %v", hello)
	}
	sp := params[5].(map[string]any)
	if sp["name"] != "sum_power" || sp["min"] != 1.0 || sp["max"] != 6.0 || sp["start"] != 3.5 || sp["type"] != "float" {
		t.Errorf("sum_power described as %v", sp)
	}
	if fixed := hello["fixed"].(map[string]any); len(fixed) != 1 || fixed["empty"] != 270.0 {
		t.Errorf("fixed %v, want empty held at 270", fixed)
	}
	if off := params[0].(map[string]any); off["min"] != nil || off["scale"] != 200000.0 {
		t.Errorf("offset described as %v", off)
	}

	req := `{"id":"a","params":` + objectiveParams + `,"games":4,"first":10}`
	a := c.ask(req)
	if a["id"] != "a" || a["games"] != 4.0 || len(a["scores"].([]any)) != 4 || a["error"] != nil {
		t.Fatalf("answer %v", a)
	}
	sum := 0.0
	for _, s := range a["scores"].([]any) {
		sum += s.(float64)
	}
	if a["mean"] != sum/4 {
		t.Errorf("mean %v of scores %v", a["mean"], a["scores"])
	}
	if _, ok := a["cpu_s"].(float64); !ok {
		t.Errorf("no cpu_s in %v", a)
	}

	bads := []struct{ req, want string }{
		{`{"id":1,"params":` + objectiveParams, "not a request"},
		{`not json`, "not a request"},
		{``, "empty line"},
		{`{"id":2,"params":{"empty":270},"games":1,"first":0}`, "missing"},
		{`{"id":3,"params":` + strings.Replace(objectiveParams, `"sum":11`, `"sum":11,"bogus":1`, 1) + `,"games":1,"first":0}`, `unknown parameter "bogus"`},
		{`{"id":4,"params":` + strings.Replace(objectiveParams, `"sum_power":3.5`, `"sum_power":7`, 1) + `,"games":1,"first":0}`, "out of bounds, want [1, 6]"},
		{`{"id":5,"params":` + strings.Replace(objectiveParams, `"sum":11`, `"sum":1e999`, 1) + `,"games":1,"first":0}`, "not a finite number"},
		{`{"id":6,"params":` + strings.Replace(objectiveParams, `"sum":11`, `"sum":"eleven"`, 1) + `,"games":1,"first":0}`, "want a number"},
		{`{"id":7,"params":` + objectiveParams + `,"games":0,"first":0}`, "games: 0: want a whole number from 1 to"},
		{`{"id":8,"params":` + objectiveParams + `,"games":2.5,"first":0}`, "games: 2.5"},
		{`{"id":9,"params":` + objectiveParams + `,"first":0}`, "first: wants games"},
		{`{"id":10,"params":` + objectiveParams + `,"games":1}`, "want the games to play"},
		{`{"id":11,"params":` + objectiveParams + `,"seeds":[1,-2]}`, "seeds[1]: -2: want an unsigned 64-bit integer"},
		{`{"id":12,"params":` + objectiveParams + `,"seeds":[1,2],"games":3}`, "games: 3, but 2 seeds"},
		{`{"id":13,"params":` + objectiveParams + `,"seeds":[1],"first":0}`, "give one"},
		{`{"id":14,"params":` + objectiveParams + `,"games":1,"first":0,"color":"red"}`, `unknown field "color"`},
		{`{"id":15,"params":` + objectiveParams + `,"games":1,"first":0} {}`, "more than one JSON value"},
		{`{"id":16,"final":true}`, "final: goes with recommend"},
		{`{"id":17,"params":` + strings.Replace(objectiveParams, `"empty":270`, `"empty":300`, 1) + `,"games":1,"first":0}`, "empty: 300: held at 270"},
	}
	for i, b := range bads {
		got := c.ask(b.req)
		msg, _ := got["error"].(string)
		if !strings.Contains(msg, b.want) || len(got) > 2 {
			t.Errorf("%s: answer %v, want one error naming %q", b.req, got, b.want)
		}
		if !strings.HasPrefix(msg, "line ") || !strings.Contains(msg, "line "+strconv.Itoa(i+2)+":") {
			t.Errorf("%s: error %q does not name its line %d", b.req, msg, i+2)
		}
	}
	// The exchange goes on, and the same request gets the same scores.
	again := c.ask(req)
	if !equalJSON(again["scores"], a["scores"]) || again["mean"] != a["mean"] {
		t.Errorf("the same request again: %v, first %v", again["scores"], a["scores"])
	}
	// The same games named by seed: the stream's games 10..13.
	var seeds []string
	for k := range uint64(4) {
		seeds = append(seeds, strconv.FormatUint(tuner.TuningSeedAt(7, 10+k), 10))
	}
	bySeed := c.ask(`{"id":"b","params":` + objectiveParams + `,"seeds":[` + strings.Join(seeds, ",") + `]}`)
	if !equalJSON(bySeed["scores"], a["scores"]) {
		t.Errorf("by seed: %v, by range: %v", bySeed["scores"], a["scores"])
	}
	if ok := c.ask(`{"recommend":` + objectiveParams + `}`); ok["ok"] != true {
		t.Errorf("recommend answered %v", ok)
	}
	c.end()

	// One worker plays the same games.
	one, _ := startObjective(t, "--config", cfg, "--seed", "7", "--workers", "1")
	if b := one.ask(req); !equalJSON(b["scores"], a["scores"]) {
		t.Errorf("1 worker: %v, 2 workers: %v", b["scores"], a["scores"])
	}
	one.end()
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestObjectiveBadFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"objective", "--problem", "nope"}, "--problem"},
		{[]string{"objective", "--problem", "standard-3", "--config", "quick"}, "--problem"},
		{[]string{"objective", "extra"}, "extra"},
	} {
		code, out, errs := runCLI(t, tt.args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tt.args, code, out, errs)
		}
	}
}

// TestObjectivePlayer serves an external player's parameters: evotune
// player, a child of the objective, which is a child of the test.
func TestObjectivePlayer(t *testing.T) {
	player := strings.Join(evotunePlayer(t, "--depth", "1"), " ")
	c, hello := startObjective(t, "--player", player, "--workers", "2")
	params := hello["params"].([]any)
	if len(params) != 3 || hello["search"] != "the player's own" {
		t.Fatalf("first line %v", hello)
	}
	if e := params[0].(map[string]any); e["name"] != "empty" || e["min"] != -270.0 || e["max"] != 270.0 || e["scale"] != 540.0 {
		t.Errorf("empty described as %v", e)
	}
	req := `{"id":1,"params":{"empty":27,"mono":10,"smooth":3},"games":3,"first":0}`
	a := c.ask(req)
	if len(a["scores"].([]any)) != 3 {
		t.Fatalf("answer %v", a)
	}
	if b := c.ask(`{"id":2,"params":{"empty":300,"mono":10,"smooth":3},"games":3,"first":0}`); !strings.Contains(b["error"].(string), "empty: 300: out of bounds, want [-270, 270]") {
		t.Errorf("out of the declared bounds: %v", b)
	}
	if again := c.ask(req); !equalJSON(again["scores"], a["scores"]) {
		t.Errorf("the same request again: %v, first %v", again["scores"], a["scores"])
	}
	c.end()
}
