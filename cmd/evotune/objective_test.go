package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
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
	off := params[0].(map[string]any)
	if off["min"] != -math.MaxFloat32 || off["max"] != math.MaxFloat32 || off["scale"] != 200000.0 || !equalJSON(off["box"], []float64{0, 600000}) {
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

	// Every bad line gets one error line, with the id where the line has
	// one, and the exchange goes on; the texts are the same in every run.
	for i, b := range badObjectiveLines {
		got := c.ask(b.req)
		want := fmt.Sprintf("line %d: %s", i+2, b.want)
		if got["error"] != want || len(got) != 1+btoi(b.id != nil) || !equalJSON(got["id"], b.id) {
			t.Errorf("%s: answer %v, want {\"id\":%v,\"error\":%q}", b.req, got, b.id, want)
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

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// withParam is objectiveParams with name's value written as raw.
func withParam(name, raw string) string {
	var b strings.Builder
	b.WriteString("{")
	for i, kv := range strings.Split(strings.Trim(objectiveParams, "{}"), ",") {
		k, v, _ := strings.Cut(kv, ":")
		if k == strconv.Quote(name) {
			v = raw
		}
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(k + ":" + v)
	}
	return b.String() + "}"
}

// badObjectiveLines are lines of an optimizer that evotune objective must
// refuse, each with the error it gets (after "line N: ") and the id its
// answer repeats (nil: none). The problem is objectiveConfig's: nneonneo,
// its weights float32, its shape parameters in [1, 6], empty held at 270.
var badObjectiveLines = []struct {
	req  string
	id   any
	want string
}{
	{`{"id":1,"params":` + withParam("offset", "1e300") + `,"games":1,"first":0}`, 1.0,
		"params.offset: 1e300: out of bounds, want [-3.4028234663852886e+38, 3.4028234663852886e+38] (the set's weights are float32)"},
	{`{"id":2,"recommend":` + withParam("offset", "-1e39") + `}`, 2.0,
		"recommend.offset: -1e39: out of bounds, want [-3.4028234663852886e+38, 3.4028234663852886e+38] (the set's weights are float32)"},
	{`{"id":3,"params":` + withParam("offset", `"200000"`) + `,"games":1,"first":0}`, 3.0,
		`params.offset: "200000": want a JSON number, not a string`},
	{`{"id":4,"params":` + objectiveParams + `,"games":"40","first":0}`, 4.0,
		`games: "40": want a whole number from 1 to 100000, as a JSON number, not a string`},
	{`{"id":5,"params":` + objectiveParams + `,"games":4,"first":"5"}`, 5.0,
		`first: "5": want a whole number from 0 to 4611686018427287904, as a JSON number, not a string`},
	{`{"id":6,"params":` + objectiveParams + `,"seeds":["1","2"]}`, 6.0,
		`seeds[0]: "1": want an unsigned 64-bit integer, as a JSON number, not a string`},
	{`{"id":7,"params":{"offset":200000,"offset":1,"merges":700,"monotonicity":47,"sum":11,"monotonicity_power":4,"sum_power":3.5},"games":1,"first":0}`, 7.0,
		"params.offset: given twice"},
	{`{"id":8,"params":` + withParam("offset", `"abc"`) + `,"games":1,"first":0}`, 8.0,
		`params.offset: "abc": want a JSON number, not a string`},
	// Several bad values: the first in the problem's order is named,
	// whatever the order of the line.
	{`{"id":9,"params":{"sum_power":9,"merges":700,"monotonicity":47,"sum":-1e40,"monotonicity_power":0,"offset":200000},"games":1,"first":0}`, 9.0,
		"params.sum: -1e40: out of bounds, want [-3.4028234663852886e+38, 3.4028234663852886e+38] (the set's weights are float32)"},
	{`{"id":10,"params":{"monotonicity_power":0,"offset":200000,"sum":-1e40,"monotonicity":47,"merges":700,"sum_power":9},"games":1,"first":0}`, 10.0,
		"params.sum: -1e40: out of bounds, want [-3.4028234663852886e+38, 3.4028234663852886e+38] (the set's weights are float32)"},
	{`{"id":11,"params":` + strings.Replace(objectiveParams, `"sum":11`, `"sum":11,"bogus":1`, 1) + `,"games":1,"first":0}`, 11.0,
		"params.bogus: unknown parameter (parameters: offset, merges, monotonicity, sum, monotonicity_power, sum_power)"},
	{`{"id":12,"params":{"empty":270},"games":1,"first":0}`, 12.0,
		"params.offset: missing (want every free parameter: offset, merges, monotonicity, sum, monotonicity_power, sum_power)"},
	{`{"id":13,"params":` + withParam("empty", "300") + `,"games":1,"first":0}`, 13.0,
		"params.empty: 300: held at 270 (leave it out)"},
	{`{"id":14,"params":` + withParam("sum_power", "7") + `,"games":1,"first":0}`, 14.0,
		"params.sum_power: 7: out of bounds, want [1, 6]"},
	{`{"id":15,"params":` + withParam("sum", "1e999") + `,"games":1,"first":0}`, 15.0,
		"params.sum: 1e999: want a finite number"},
	{`{"id":16,"params":` + withParam("sum", "null") + `,"games":1,"first":0}`, 16.0,
		"params.sum: null: want a JSON number, not null"},
	{`{"id":17,"params":` + objectiveParams + `,"games":0,"first":0}`, 17.0,
		"games: 0: out of range: want a whole number from 1 to 100000"},
	{`{"id":18,"params":` + objectiveParams + `,"games":2.5,"first":0}`, 18.0,
		"games: 2.5: not a whole number: want a whole number from 1 to 100000 (write 2 or 3)"},
	{`{"id":19,"params":` + objectiveParams + `,"games":100001,"first":0}`, 19.0,
		"games: 100001: out of range: want a whole number from 1 to 100000"},
	{`{"id":20,"params":` + objectiveParams + `,"first":0}`, 20.0,
		"first: wants games, the number of games from first on"},
	{`{"id":21,"params":` + objectiveParams + `,"games":1}`, 21.0,
		"want the games to play: first and games (games first..first+games-1 of the stream, or with held_out of the held-out block) or seeds (a list of game seeds)"},
	{`{"id":22,"params":` + objectiveParams + `,"seeds":[1,-2]}`, 22.0,
		"seeds[1]: -2: out of range: want an unsigned 64-bit integer, from 0 to 18446744073709551615"},
	{`{"id":23,"params":` + objectiveParams + `,"seeds":[1,2],"games":3}`, 23.0,
		"games: 3, but 2 seeds (leave games out or make them agree)"},
	{`{"id":24,"params":` + objectiveParams + `,"seeds":[1],"first":0}`, 24.0,
		"seeds and first: give one (seeds: the game seeds; first: the first game of the stream or, with held_out, of the held-out block)"},
	{`{"id":25,"params":` + objectiveParams + `,"seeds":[]}`, 25.0,
		"seeds: 0 seeds: want 1 to 100000"},
	{`{"id":26,"params":` + objectiveParams + `,"games":1,"first":0,"color":"red"}`, 26.0,
		"color: unknown key (keys: id, params, recommend, final, games, first, held_out, seeds)"},
	{`{"id":27,"params":` + objectiveParams + `,"games":1,"games":2,"first":0}`, 27.0,
		"games: given twice"},
	{`{"id":28,"params":` + objectiveParams + `,"games":1,"first":0} {}`, 28.0,
		"not a request: more than one JSON value on the line (want one JSON object per line, with keys among id, params, recommend, final, games, first, held_out, seeds)"},
	{`{"id":29,"params":` + objectiveParams, 29.0,
		"not a request: the line ends inside the JSON object (want one JSON object per line, with keys among id, params, recommend, final, games, first, held_out, seeds)"},
	{`not json`, nil,
		"not a request: invalid character 'o' in literal null (expecting 'u') (want one JSON object per line, with keys among id, params, recommend, final, games, first, held_out, seeds)"},
	{`[1,2]`, nil,
		"not a request: [1,2] is not a JSON object (want one JSON object per line, with keys among id, params, recommend, final, games, first, held_out, seeds)"},
	{``, nil, "empty line: want a JSON object"},
	{`{"id":33,"params":[200000,700],"games":1,"first":0}`, 33.0,
		"params: [200000,700]: want an object of parameter values by name"},
	{`{"id":34,"final":true}`, 34.0, "final: goes with recommend"},
	{`{"id":35,"recommend":` + objectiveParams + `,"final":"yes"}`, 35.0, `final: "yes": want true or false`},
	{`{"id":36,"recommend":` + objectiveParams + `,"games":4}`, 36.0, "games: goes with params, not with recommend"},
	{`{"id":37,"recommend":` + objectiveParams + `,"params":` + objectiveParams + `}`, 37.0,
		"recommend: a line either recommends or asks for games (params), not both"},
	{`{"id":38,"params":` + objectiveParams + `,"seeds":[1],"held_out":true}`, 38.0,
		"held_out: goes with first and games (seeds name their games themselves)"},
	{`{"id":39,"params":` + objectiveParams + `,"games":1,"first":0,"held_out":1}`, 39.0, "held_out: 1: want true or false"},
	{`{"id":40,"params":` + objectiveParams + `,"games":1,"first":4611686018427387904}`, 40.0,
		"first: 4611686018427387904: out of range: want a whole number from 0 to 4611686018427287904"},
	{`{"id":{"trial":41},"params":` + withParam("monotonicity_power", "0.5") + `,"games":1,"first":0}`, map[string]any{"trial": 41.0},
		"params.monotonicity_power: 0.5: out of bounds, want [1, 6]"},
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

// TestObjectiveFloatsAndNonFinite is what a Python optimizer sends without
// care, to a real evotune objective: counts written as floats (json.dumps
// after float arithmetic) play as the whole numbers they are; NaN,
// Infinity and -Infinity (json.dumps's default for a float nan or inf)
// get an error that names them, where they are and the fix, with the id
// wherever the line has a readable one, the id after the word included.
func TestObjectiveFloatsAndNonFinite(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "small.yaml")
	if err := os.WriteFile(cfg, []byte(objectiveConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _ := startObjective(t, "--config", cfg, "--seed", "7", "--workers", "1")
	for _, p := range []struct{ float, whole string }{
		{`"games":8.0,"first":0`, `"games":8,"first":0`},
		{`"games":2e0,"first":24.0`, `"games":2,"first":24`},
		{`"games":4.0,"first":2.4e1,"held_out":true`, `"games":4,"first":24,"held_out":true`},
		{`"seeds":[5.0,6e0,7.00]`, `"seeds":[5,6,7]`},
	} {
		want := c.ask(`{"id":"whole","params":` + objectiveParams + `,` + p.whole + `}`)
		got := c.ask(`{"id":"float","params":` + objectiveParams + `,` + p.float + `}`)
		if got["id"] != "float" || got["error"] != nil || !equalJSON(got["scores"], want["scores"]) || got["games"] != want["games"] || want["games"] == nil {
			t.Errorf("%s: answer %v; %s: %v", p.float, got, p.whole, want)
		}
	}
	const fix = ": not JSON (JSON has no NaN or Infinity): send finite numbers as strict JSON; " +
		"Python's json.dumps writes NaN and Infinity unless given allow_nan=False, which makes it raise where one arises"
	for i, b := range []struct {
		req  string
		id   any
		want string
	}{
		{`{"id":1,"params":` + withParam("sum", "NaN") + `,"games":1,"first":0}`, 1.0, "params.sum: NaN" + fix},
		{`{"id":2,"params":` + withParam("monotonicity_power", "Infinity") + `,"games":1,"first":0}`, 2.0, "params.monotonicity_power: Infinity" + fix},
		{`{"id":3,"params":` + withParam("offset", "-Infinity") + `,"games":1,"first":0}`, 3.0, "params.offset: -Infinity" + fix},
		{`{"id":4,"recommend":` + withParam("merges", "NaN") + `}`, 4.0, "recommend.merges: NaN" + fix},
		{`{"id":5,"params":` + objectiveParams + `,"games":NaN,"first":0}`, 5.0, "games: NaN" + fix},
		// The id after the word, where Go's decoder never reads it.
		{`{"params":` + withParam("sum", "NaN") + `,"games":1,"first":0,"id":{"trial":6}}`, map[string]any{"trial": 6.0}, "params.sum: NaN" + fix},
		{`{"id": 7, "x": [NaN]}`, 7.0, "x[0]: NaN" + fix},
		// An id that is itself NaN cannot be repeated.
		{`{"id":NaN,"params":` + objectiveParams + `,"games":1,"first":0}`, nil, "id: NaN" + fix},
		// A fraction where a count is asked for: the whole numbers that do.
		{`{"id":9,"params":` + objectiveParams + `,"games":8.5,"first":0}`, 9.0, "games: 8.5: not a whole number: want a whole number from 1 to 100000 (write 8 or 9)"},
		{`{"id":10,"params":` + objectiveParams + `,"games":8,"first":23.5}`, 10.0, "first: 23.5: not a whole number: want a whole number from 0 to 4611686018427287904 (write 23 or 24)"},
	} {
		got := c.ask(b.req)
		want := fmt.Sprintf("line %d: %s", 9+i, b.want) // after the 8 lines above
		if got["error"] != want || len(got) != 1+btoi(b.id != nil) || !equalJSON(got["id"], b.id) {
			t.Errorf("%s:\nanswer %v\nwant {\"id\":%v,\"error\":%q}", b.req, got, b.id, want)
		}
	}
	// The exchange goes on.
	if a := c.ask(`{"id":11,"params":` + objectiveParams + `,"games":1.0,"first":0}`); a["games"] != 1.0 {
		t.Errorf("after the errors: %v", a)
	}
	c.end()
}
