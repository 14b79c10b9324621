package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/internal/golden"
)

// writeFile writes data to name in a fresh directory and returns its path.
func writeFile(t *testing.T, name, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCheckGolden(t *testing.T) {
	set, err := eval.Set("standard")
	if err != nil {
		t.Fatal(err)
	}
	wf := &eval.WeightsFile{SetName: set.Name, Weights: []float64{52.25, 9.5, 301.125, 87.0625, 64.5}}
	wf.Search = &engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 3}
	wf.Provenance = &eval.Provenance{
		Run: "quick", Generation: 20, Optimizer: "cmaes", Seed: 1, Evaluations: 160,
		Fitness:  &eval.Fitness{Metric: "mean_score", Mean: 43712.5, CI95: 2401.25, Games: 100, Seeds: &eval.SeedRange{First: 1000, Count: 100}},
		Baseline: &eval.Fitness{Metric: "mean_score", Mean: 26100, CI95: 1900.5, Games: 100},
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "tuned.yaml")
	if data, err := wf.Marshal(); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "check", path)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	out = strings.ReplaceAll(out, dir, "$DIR")
	golden.Check(t, "testdata/check_ok.golden", []byte(out))
}

func TestCheckWithoutChecks(t *testing.T) {
	path := writeFile(t, "w.yaml", "format: evotune.weights/v1\nfeatures: classic\nweights: {empty: 27, mono: 10, smooth: 3}\n")
	code, out, errs := runCLI(t, "check", path)
	if code != 0 || errs != "" || !strings.Contains(out, "features:    classic (empty, mono, smooth)") || !strings.Contains(out, "checks:      none in the file") {
		t.Errorf("exit %d, stdout:\n%s\nstderr: %q", code, out, errs)
	}
}

const checkGood = `format: evotune.weights/v1
features: standard
weights: {monotonicity: 47, smoothness: 11, empty: 270, corner: 100, merge: 70}
checks:
  - board: "2 2 0 0/0 0 0 0/0 0 0 0/4 0 2 4"
    features: {monotonicity: -3, smoothness: -1, empty: 11, corner: 2, merge: 1}
    value: 3088
`

// TestCheckBadFiles checks that every bad file gets one line naming the file
// and line and saying what is wrong, exit status 2.
func TestCheckBadFiles(t *testing.T) {
	if code, out, errs := runCLI(t, "check", writeFile(t, "good.yaml", checkGood)); code != 0 || !strings.Contains(out, "1 of 1 reproduced") {
		t.Fatalf("the good file: exit %d\n%s%s", code, out, errs)
	}
	edit := func(old, new string) string {
		if !strings.Contains(checkGood, old) {
			t.Fatalf("%q not in checkGood", old)
		}
		return strings.Replace(checkGood, old, new, 1)
	}
	for _, tc := range []struct{ name, data, want string }{
		{"format", edit("/v1", "/v9"), `:1: format: unknown format "evotune.weights/v9" (want evotune.weights/v1 or evotune.weights/v2)`},
		{"set", edit("features: standard", "features: nosuchset"), `:2: features: unknown feature set "nosuchset" (known: classic, standard, nneonneo`}, // the list goes on with any set a linked package registers (tunebench: snake16)
		{"missing feature", edit(", merge: 70}", "}"), `:3: weights: missing feature "merge" (standard needs monotonicity, smoothness, empty, corner, merge)`},
		{"unknown feature", edit("merge: 70}", "merge: 70, snake: 1}"), `:3: weights: unknown feature "snake" (features of standard: monotonicity, smoothness, empty, corner, merge)`},
		{"non-finite", edit("corner: 100", "corner: -.inf"), `:3: weights.corner: -.inf is not finite (want a finite number)`},
		{"non-numeric", edit("corner: 100", "corner: high"), `:3: weights.corner: "high" is not a number`},
		{"check feature", edit("merge: 1}", "merge: 2}"), `:6: checks[0].features.merge: the file says 2, this implementation computes 1 for board 0x2102000000000011 (2 2 0 0/0 0 0 0/0 0 0 0/4 0 2 4)`},
		{"check value", edit("value: 3088", "value: 3089"), `:7: checks[0].value: the file says 3089, this implementation computes 3088`},
		{"yaml", edit("checks:", "checks"), `:4: invalid YAML: could not find expected ':'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, "w.yaml", tc.data)
			code, out, errs := runCLI(t, "check", path)
			prefix := "evotune check: " + path
			if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, prefix+tc.want) {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2 and one line starting\n%s%s", code, out, errs, prefix, tc.want)
			}
		})
	}
}

func TestCheckUsage(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.yaml")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "evotune check: want one weights file, got 0 arguments"},
		{[]string{"a.yaml", "b.yaml"}, "evotune check: want one weights file, got 2 arguments"},
		{[]string{missing}, "evotune check: " + missing + ": no such file or directory"},
		{[]string{"--bogus", "a.yaml"}, "evotune check: unknown flag --bogus (flags: --format, --player, --player-timeouts)"},
	} {
		code, out, errs := runCLI(t, append([]string{"check"}, tc.args...)...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, tc.want) {
			t.Errorf("check %q: exit %d, stdout %q, stderr %q; want exit 2, one line starting %q", tc.args, code, out, errs, tc.want)
		}
	}
}
