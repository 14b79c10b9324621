package players_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// pythonPlayer returns the command that runs python/player.py with args,
// or skips the test where python3 is missing.
func pythonPlayer(t testing.TB, args ...string) []string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found: the Python example player is not tested")
	}
	return append([]string{py, filepath.Join("python", "player.py")}, args...)
}

// TestPython runs python/player.py in version 1 of the protocol (--protocol
// 1) as a child process: the checks every player must pass, then set
// rebuilding its table.
func TestPython(t *testing.T) {
	p := start(t, pythonPlayer(t, "--protocol", "1")...)
	if len(p.params) == 0 {
		t.Fatal("the Python player declares no parameter")
	}
	if p.sets != 0 {
		t.Fatalf("--protocol 1: the handshake announced %d parameter sets, want no protocol line", p.sets)
	}
	boards := testBoards(t, 200)
	checkProtocol(t, p, boards)

	// Another parameter vector changes some moves, and setting the
	// defaults back restores the first answers: set rebuilds the table.
	first := p.moves(boards, 50)
	values := map[string]string{}
	for _, q := range p.params {
		if q.kind == "float" {
			values[q.name] = "0"
		}
	}
	values[p.params[0].name] = p.params[0].defText
	if r := p.set(values); r != "ok" {
		t.Fatalf("set %v: %q", values, r)
	}
	changed := 0
	for i, d := range p.moves(boards, 50) {
		if d != first[i] {
			changed++
		}
	}
	if changed == 0 {
		t.Errorf("setting every weight but %s to 0 changed no move on %d boards", p.params[0].name, len(boards))
	}
	if r := p.set(nil); r != "ok" {
		t.Fatalf("set with the defaults: %q", r)
	}
	for i, d := range p.moves(boards, 50) {
		if d != first[i] {
			t.Fatalf("board %s: %v with the defaults, then %v after another set and the defaults again", boards[i].Hex(), first[i], d)
		}
	}
	p.quit()
}

// pyValues are three parameter sets of the Python player: its defaults,
// merges alone, and ten minutes' tuned values with another mono_power.
var pyValues = []map[string]string{
	nil,
	{"empty": "0", "monotonicity": "0"},
	{"empty": "450.23287829530244", "merges": "723.7231282141827", "monotonicity": "27.99859181837368", "mono_power": "3"},
}

// TestPythonProtocol2 runs python/player.py in version 2 of the protocol,
// its default: the handshake, moves that with set S are those of a
// version-1 session given the same values, errors for every malformed set
// number and every version-1 form, and its flags.
func TestPythonProtocol2(t *testing.T) {
	t.Run("handshake", testPythonHandshake)
	t.Run("sets", testPythonSets)
	t.Run("errors", testPythonErrors)
	t.Run("flags", testPythonFlags)
}

// testPythonHandshake: "protocol 2 16" right after id unless --protocol 1.
func testPythonHandshake(t *testing.T) {
	for _, c := range []struct {
		args []string
		sets int
	}{
		{nil, 16},
		{[]string{"--protocol", "2"}, 16},
		{[]string{"--protocol=1"}, 0},
	} {
		p := start(t, pythonPlayer(t, c.args...)...)
		if p.sets != c.sets {
			t.Errorf("%q: %d sets announced, want %d", c.args, p.sets, c.sets)
		}
		if len(p.params) != 4 {
			t.Errorf("%q: %d parameters declared, want 4", c.args, len(p.params))
		}
		p.quit()
	}
}

// testPythonSets is the differential test of version 2 against version 1
// (checkV2Sets) with the three sets of pyValues.
func testPythonSets(t *testing.T) {
	checkV2Sets(t, "", nnBoards(t, 500, 500), pyValues, func(version string) *proc {
		return start(t, pythonPlayer(t, "--protocol", version)...)
	})
}

// testPythonErrors sends every kind of bad line to a version-2 session
// with 16 sets (checkV2Errors), and the player's own: numbers Python's
// int() would take, values out of range or not numbers, a fractional int,
// and a parameter missing.
func testPythonErrors(t *testing.T) {
	p := start(t, pythonPlayer(t)...)
	defs := p.assignments(nil)
	checkV2Errors(t, p, 16, pyValues[2], []badLine{
		{"set with a number of 5000 digits", "set " + strings.Repeat("9", 5000) + defs},
		{"set with an underscore in the number", "set 1_0" + defs},
		{"set 1 with a value out of range", "set 1" + p.assignments(map[string]string{"empty": "1001"})},
		{"set 1 with nan", "set 1" + p.assignments(map[string]string{"merges": "nan"})},
		{"set 1 with a fractional int", "set 1" + p.assignments(map[string]string{"mono_power": "2.5"})},
		{"set 2 with a parameter missing", "set 2 empty=120 merges=60 monotonicity=4"},
	})
}

// testPythonFlags: a bad --protocol ends the program with status 2 and its
// usage, and --help shows the flag.
func testPythonFlags(t *testing.T) {
	cmd := pythonPlayer(t)
	for _, args := range [][]string{{"--protocol", "3"}, {"--protocol=0"}, {"--protocol", "v2"}, {"--protocol"}} {
		var stderr bytes.Buffer
		c := exec.Command(cmd[0], append(cmd[1:], args...)...)
		c.Stderr = &stderr
		err := c.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 {
			t.Errorf("%q: %v, want exit status 2", args, err)
		}
		if !strings.Contains(stderr.String(), "usage: player.py") {
			t.Errorf("%q: standard error %q, want the usage", args, stderr.String())
		}
	}
	out, err := exec.Command(cmd[0], append(cmd[1:], "--help")...).CombinedOutput()
	if err != nil {
		t.Errorf("--help: %v", err)
	}
	for _, s := range []string{"--protocol", "set S NAME=VALUE"} {
		if !strings.Contains(string(out), s) {
			t.Errorf("--help does not mention %q:\n%s", s, out)
		}
	}
}

// pyTuneConfig is a tuning run of seconds: 2 generations of 4 candidates
// of 4 games, a validation of 6.
const pyTuneConfig = `name: python
seed: 5
generations: 2
optimizer: {method: cmaes, population: 4}
fitness: {games: 4}
validation: {games: 6}
`

// requestsRE reads the summary's line on the requests to the player.
var requestsRE = regexp.MustCompile(`(?m)^requests +(\d+) moves in (\d+) requests`)

// TestPythonTune tunes the Python player with evotune tune --player, built
// from this module, in version 2 and in version 1: the histories must be
// the same but for their clock fields (a request shares candidates' games,
// never changes one), and version 2 must have asked fewer requests for the
// same moves.
func TestPythonTune(t *testing.T) {
	player := pythonPlayer(t)
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build evotune with: the Python player is not tuned")
	}
	dir := t.TempDir()
	evotune := filepath.Join(dir, "evotune")
	if out, err := exec.Command(goCmd, "build", "-o", evotune, "github.com/evotune/evotune/cmd/evotune").CombinedOutput(); err != nil {
		t.Fatalf("building evotune: %v\n%s", err, out)
	}
	config := filepath.Join(dir, "python.yaml")
	if err := os.WriteFile(config, []byte(pyTuneConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	type result struct {
		history         string
		moves, requests int
	}
	tune := func(protocol string) result {
		t.Helper()
		out := filepath.Join(dir, "run"+protocol)
		words := []string{strconv.Quote(player[0]), strconv.Quote(player[1]), "--protocol", protocol}
		cmd := exec.Command(evotune, "tune", "--config", config, "--player", strings.Join(words, " "), "--workers", "1", "--out", out)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("protocol %s: evotune tune: %v\n%s\n%s", protocol, err, stdout.String(), stderr.String())
		}
		var r result
		m := requestsRE.FindStringSubmatch(stdout.String())
		if m == nil {
			t.Fatalf("protocol %s: no requests line in the summary:\n%s", protocol, stdout.String())
		}
		r.moves, _ = strconv.Atoi(m[1])
		r.requests, _ = strconv.Atoi(m[2])
		history, err := os.ReadFile(filepath.Join(out, "history.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.SplitAfter(string(history), "\n") {
			if i := strings.LastIndex(l, `,"elapsed_s":`); i >= 0 { // the clock fields end each line
				l = l[:i] + "\n"
			}
			r.history += l
		}
		return r
	}
	v2, v1 := tune("2"), tune("1")
	if v2.history != v1.history {
		t.Errorf("history in version 2:\n%s\nin version 1:\n%s", v2.history, v1.history)
	}
	if v2.history == "" {
		t.Error("empty history")
	}
	if v2.moves != v1.moves || v2.requests >= v1.requests {
		t.Errorf("version 2: %d moves in %d requests; version 1: %d moves in %d requests: want the same moves in fewer requests", v2.moves, v2.requests, v1.moves, v1.requests)
	}
}
