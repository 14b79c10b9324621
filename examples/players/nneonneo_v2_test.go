package players_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/evotune/evotune/engine"
)

// TestNneonneoProtocol2 runs the nneonneo adapter in version 2 of the
// protocol (its default): the handshake, moves that with set S are those of a
// version-1 session given the same values, errors for every malformed set
// number and every version-1 form, and its flags.
func TestNneonneoProtocol2(t *testing.T) {
	bin := buildNneonneo(t)
	t.Run("handshake", func(t *testing.T) { testNneonneoHandshake(t, bin) })
	t.Run("sets", func(t *testing.T) { testNneonneoSets(t, bin) })
	t.Run("errors", func(t *testing.T) { testNneonneoErrors(t, bin) })
	t.Run("flags", func(t *testing.T) { testNneonneoFlags(t, bin) })
}

// testNneonneoHandshake: "protocol 2 SETS" right after id, SETS 16 unless
// --sets says otherwise, and no such line with --protocol 1.
func testNneonneoHandshake(t *testing.T, bin string) {
	for _, c := range []struct {
		args []string
		sets int
	}{
		{nil, 16},
		{[]string{"--protocol", "2"}, 16},
		{[]string{"--sets=3"}, 3},
		{[]string{"--protocol=2", "--sets", "64"}, 64},
		{[]string{"--protocol", "1"}, 0},
	} {
		p := start(t, append([]string{bin, "--cap", "1"}, c.args...)...)
		if p.sets != c.sets {
			t.Errorf("%q: %d sets announced, want %d", c.args, p.sets, c.sets)
		}
		if len(p.params) != len(nnConstants) {
			t.Errorf("%q: %d parameters declared, want %d", c.args, len(p.params), len(nnConstants))
		}
		p.quit()
	}
}

// nnBoards returns boards from seeded games (testBoards) and n random ones:
// random ranks 0 to 15 in every cell, about half of them empty, each board
// with a legal move (two 32768 tiles among them at times, where the
// adapter's rules are evotune's).
func nnBoards(t *testing.T, games, n int) []engine.Board {
	boards := testBoards(t, games)
	rng := rand.New(rand.NewPCG(2048, 2))
	for len(boards) < games+4+n {
		var b engine.Board
		for i := range 16 {
			if rng.IntN(2) == 0 {
				b |= engine.Board(1+rng.IntN(engine.MaxRank)) << (4 * i)
			}
		}
		if b.CanMove() {
			boards = append(boards, b)
		}
	}
	return boards
}

// testNneonneoSets is the differential test of version 2 against version 1
// (checkV2Sets) with the defaults and the constants tuned at caps 2 and 1:
// at cap 1, and on a few boards at cap 2, where the search has a
// transposition table.
func testNneonneoSets(t *testing.T, bin string) {
	values := []map[string]string{nil, nnTunedCap2, nnTunedCap1} // nil: the defaults
	for _, c := range []struct {
		cap    string
		boards []engine.Board
	}{
		{"1", nnBoards(t, 300, 300)},
		{"2", nnBoards(t, 20, 20)},
	} {
		checkV2Sets(t, "cap "+c.cap+": ", c.boards, values, func(version string) *proc {
			return start(t, bin, "--cap", c.cap, "--protocol", version)
		})
	}
}

// testNneonneoErrors sends every kind of bad line to a version-2 session
// with 4 sets (checkV2Errors), and the adapter's own: values of its
// parameters out of range or not numbers, and one missing.
func testNneonneoErrors(t *testing.T, bin string) {
	p := start(t, bin, "--cap", "1", "--sets", "4")
	missing := "" // the defaults but SCORE_SUM_POWER
	for _, q := range p.params {
		if q.name != "SCORE_SUM_POWER" {
			missing += " " + q.name + "=" + q.defText
		}
	}
	checkV2Errors(t, p, 4, nnTunedCap2, []badLine{
		{"set 1 with a value out of range", "set 1" + p.assignments(map[string]string{"SCORE_SUM_POWER": "7"})},
		{"set 1 with nan", "set 1" + p.assignments(map[string]string{"SCORE_SUM_POWER": "nan"})},
		{"set 2 with a parameter missing", "set 2" + missing},
	})
}

// repeat returns n copies of s.
func repeat(s, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// testNneonneoFlags: bad values of --protocol and --sets end the program with
// status 2 and its usage, and --help shows both flags.
func testNneonneoFlags(t *testing.T, bin string) {
	for _, args := range [][]string{
		{"--protocol", "3"}, {"--protocol=0"}, {"--protocol", "v2"}, {"--protocol"},
		{"--sets", "0"}, {"--sets=65"}, {"--sets", "-1"}, {"--sets", "4x"},
		{"--protocol", "1", "--sets", "4"},
	} {
		var stderr bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 {
			t.Errorf("%q: %v, want exit status 2", args, err)
		}
		if !strings.Contains(stderr.String(), "usage: nneonneo-player") {
			t.Errorf("%q: standard error %q, want the usage", args, stderr.String())
		}
	}
	out, err := exec.Command(bin, "--help").CombinedOutput()
	if err != nil {
		t.Errorf("--help: %v", err)
	}
	for _, flag := range []string{"--cap N", "--protocol P", "--sets N", "protocol 2 SETS", "set S NAME=VALUE"} {
		if !strings.Contains(string(out), flag) {
			t.Errorf("--help does not mention %q:\n%s", flag, out)
		}
	}
}
