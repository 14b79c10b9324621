package ports_test

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/evotune/evotune/eval"
)

// TestPortTolerant gives the port an exported file with what a newer
// evotune may add: comments everywhere, provenance keys it does not know (a
// status, a literal block, flow collections, a quoted key), a top-level key
// it does not know, and a check's board in the grid form. It must pass
// every check and show the additions.
func TestPortTolerant(t *testing.T) {
	portCmd(t)
	_, nneonneo, _ := exported(t)
	text := readFile(t, nneonneo)
	for _, e := range []struct{ old, new string }{
		{"\nformat:", "\n# a comment line\n\nformat:"},
		{"provenance:\n", `provenance:
  # the run's status
  status: run in progress, generation 1 of 3 # a line comment
  note: |-
    two lines
    of text: with # and colons

  clock: {wall_s: 600.5, cpu_s: 1180.25, phases: [validating, 'tuning, gen 1', "a \"q\""]}
  'quoted key': "a \"quoted\" value"
  start:
    weights: {offset: 200000, empty: 270}
    held: [empty]
`},
		{"\nsearch:", "\nstatus: {validated: false}\nsearch:"},
		{"\nchecks:\n", "\nchecks: # nine boards\n  # the first\n"},
		{`  - board: "0x1212234114322121" # 2 4 2 4/4 8 16 2/2 16 8 4/4 2 4 2`, "  - board: 2 4 2 4/4 8 16 2/2 16 8 4/4 2 4 2"},
	} {
		if !strings.Contains(text, e.old) {
			t.Fatalf("the exported file has no %q", e.old)
		}
		text = strings.Replace(text, e.old, e.new, 1)
	}
	text = regexp.MustCompile(`(?m)^(  offset: .*)$`).ReplaceAllString(text, "$1 # SCORE_LOST_PENALTY")
	path := writeFile(t, "tolerant.yaml", text+"# a foot comment\n")
	r := runPort(t, path)
	if r.code != 0 || !strings.Contains(r.stdout, "checks      9 of 9 passed") {
		t.Errorf("exit %d, want 0 and 9 checks passed\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, s := range []string{
		"provenance  status run in progress, generation 1 of 3, note two lines of text: with # and colons, clock {wall_s 600.5, cpu_s 1180.25, phases [validating, tuning, gen 1, a \"q\"]}, quoted key a \"quoted\" value, start {weights {offset 200000, empty 270}, held [empty]}, run port-nneonneo,",
		"other       status {validated false} (keys this port does not know; not used)",
	} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("the output has no %q:\n%s", s, r.stdout)
		}
	}
}

// TestPortUnreadable: a file the port cannot read gets exit status 2 and
// one line, "evotune_weights.py: FILE:LINE: ..."; evotune's reader refuses
// it too, at the same line where it names one. A file without checks gets
// exit status 1: nothing verified the port.
func TestPortUnreadable(t *testing.T) {
	portCmd(t)
	standard, nneonneo, _ := exported(t)
	std, nn := readFile(t, standard), readFile(t, nneonneo)
	sub := func(text, re, repl string) string {
		return regexp.MustCompile("(?m)"+re).ReplaceAllString(text, repl)
	}
	// The lines below count from a file without notes (format: on line 3);
	// an exported file's head notes come before: s and n move them down.
	head := func(text string) int { return strings.Count(text[:strings.Index(text, "\nformat:")], "\n") - 1 }
	s, n := head(std), head(nn)
	for _, c := range []struct {
		what, text string
		line       int // 0: the port's line may differ from evotune's
		want       string
	}{
		{"an unknown format", strings.Replace(std, "weights/v1", "weights/v3", 1), 3 + s, `format: unknown format "evotune.weights/v3"`},
		{"an unknown feature set", strings.Replace(std, "features: standard", "features: snake", 1), 4 + s, `features: feature set "snake": this port implements standard and nneonneo`},
		{"a feature missing", sub(std, `^  merge: .*\n`, ""), 6 + s, `weights: missing feature "merge"`},
		{"a feature unknown", strings.Replace(std, "  merge:", "  merges:", 1), 10 + s, `weights: unknown feature "merges"`},
		{"a weight not a number", sub(std, `^  corner: .*$`, "  corner: lots"), 9 + s, `weights.corner: "lots" is not a number`},
		{"a weight quoted", sub(std, `^  corner: (.*)$`, `  corner: "$1"`), 9 + s, `weights.corner: "`},
		{"a weight not finite", sub(std, `^  corner: .*$`, "  corner: .inf"), 9 + s, `weights.corner: .inf is not finite`},
		{"a weight repeated", strings.Replace(std, "  merge:", "  empty: 1\n  merge:", 1), 10 + s, fmt.Sprintf(`key "empty" repeated (first on line %d)`, 8+s)},
		{"a nneonneo weight beyond float32", sub(nn, `^  offset: .*$`, "  offset: 1e39"), 0, `nneonneo: weight of offset is 1e+39, want a float32`},
		{"params in a version 1 file", strings.Replace(std, "\nsearch:", "\nparams: {sum_power: 2}\nsearch:", 1), 11 + s, `params: an evotune.weights/v2 key in an evotune.weights/v1 file`},
		{"params missing in a version 2 file", sub(nn, `^params: .*\n`, ""), 0, `missing key "params" (nneonneo has parameters monotonicity_power, sum_power)`},
		{"a parameter out of bounds", sub(nn, `sum_power: [0-9.]+`, "sum_power: 6.5"), 11 + n, `params.sum_power: 6.5 is out of bounds (want 1 to 6)`},
		{"a check's value missing", sub(std, `^    value: .*\n`, ""), 0, `checks[0]: missing key "value"`},
		{"a check's board too long", strings.Replace(std, `"0x1212234114322121"`, `"0x12122341143221211"`, 1), 24 + s, `checks[1].board: "0x12122341143221211": the hex form needs 1 to 16 hex digits`},
		{"a YAML alias", strings.Replace(strings.Replace(std, "  smoothness: ", "  smoothness: &s ", 1), "  merge: ", "  merge: *s #", 1), 0, `a YAML anchor, alias or tag (&)`},
		{"a tab in indentation", strings.Replace(std, "  empty:", "\tempty:", 1), 0, `a tab in indentation`},
		{"a second document", std + "---\nformat: x\n", 0, `a document marker: a weights file is one YAML document`},
		{"an empty file", "# nothing\n", 1, `empty file`},
		{"a params file of a player", "format: evotune.weights/v2\nplayer: {id: x, version: 1, command: x}\n", 1, `a params file of an external player`},
	} {
		path := writeFile(t, "bad.yaml", c.text)
		_, err := eval.ReadWeightsFile(path)
		var fe *eval.FileError
		if !errors.As(err, &fe) {
			t.Fatalf("%s: evotune reads the file (%v)", c.what, err)
		}
		r := runPort(t, path)
		msg := strings.TrimSuffix(r.stderr, "\n")
		prefix := "evotune_weights.py: " + path + ":"
		if r.code != 2 || r.stdout != "" || strings.Contains(msg, "\n") || !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line %s...%s", c.what, r.code, r.stderr, prefix, c.want)
			continue
		}
		if c.line != 0 && (fe.Line != c.line || !strings.HasPrefix(msg, prefix+strconv.Itoa(c.line)+": ")) {
			t.Errorf("%s: the port says %q, evotune %q: want both at line %d", c.what, msg, err, c.line)
		}
	}

	r := runPort(t, "no such file.yaml")
	if r.code != 2 || r.stderr != "evotune_weights.py: no such file.yaml: No such file or directory\n" {
		t.Errorf("a missing file: exit %d, stderr %q", r.code, r.stderr)
	}
	r = runPort(t, writeFile(t, "nochecks.yaml", strings.Split(std, "\nchecks:")[0]+"\n"))
	if r.code != 1 || !strings.Contains(r.stdout, "checks      none in the file: nothing verifies this port") {
		t.Errorf("a file without checks: exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runPort(t, standard, "--board", "0x12345678901234567")
	if r.code != 2 || !strings.Contains(r.stderr, "usage: evotune_weights.py") {
		t.Errorf("a bad --board: exit %d, want 2 and the usage\n%s", r.code, r.stderr)
	}
}
