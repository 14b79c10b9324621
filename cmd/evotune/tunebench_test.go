package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTunebenchShort runs the benchmark end to end in its short mode, as CI
// does: it checks that it works and prints what it documents, not how fast.
func TestTunebenchShort(t *testing.T) {
	code, out, errs := runCLI(t, "tunebench", "--short", "--problems", "standard-3,standard-5", "--seeds", "1,2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &top); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	if got := keys(top); !slices.Equal(got, []string{"full", "problems", "short"}) {
		t.Fatalf("keys %v", got)
	}
	var ps []map[string]json.RawMessage
	if err := json.Unmarshal(top["problems"], &ps); err != nil || len(ps) != 2 {
		t.Fatalf("problems: %v, %s", err, top["problems"])
	}
	want := []string{"budget_cpu_s", "held_out_games", "median_cpu_s", "median_final_ratio", "median_games", "problem", "reached", "runs", "start_mean", "target"}
	if got := keys(ps[0]); !slices.Equal(got, want) {
		t.Fatalf("problem keys %v, want %v", got, want)
	}
	var runs []map[string]json.RawMessage
	if err := json.Unmarshal(ps[0]["runs"], &runs); err != nil || len(runs) != 2 {
		t.Fatalf("runs: %v, %s", err, ps[0]["runs"])
	}
	if got := keys(runs[0]); !slices.Equal(got, []string{"final", "points", "reached", "seed", "stop"}) {
		t.Fatalf("run keys %v", got)
	}
	if _, ok := ps[0]["config"]; ok {
		t.Errorf("a problem run with its own settings names a config: %s", ps[0]["config"])
	}
	if !strings.Contains(errs, "standard-3  seed 1  gen 1") {
		t.Errorf("no progress line on stderr: %q", errs)
	}

	code, out, errs = runCLI(t, "tunebench", "--short", "--seeds", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, s := range []string{"standard-3: ", "nneonneo-cap1: ", "to target:", "median", "reached "} {
		if !strings.Contains(out, s) {
			t.Errorf("text output lacks %q:\n%s", s, out)
		}
	}

	// Tuner settings of one's own on a problem: its start and target stay.
	own := filepath.Join(t.TempDir(), "own.yaml")
	if err := os.WriteFile(own, []byte("name: own\nfeatures: standard\nsigma: 0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCLI(t, "tunebench", "--short", "--seeds", "1", "--problems", "standard-3", "--config", own)
	if code != 0 || !strings.Contains(out, "tuner settings from "+own+" instead of the problem's own") {
		t.Errorf("--config: exit %d, stderr %q:\n%s", code, errs, out)
	}
}

func TestTunebenchBadFlags(t *testing.T) {
	dir := t.TempDir()
	withGenerations := filepath.Join(dir, "gens.yaml")
	if err := os.WriteFile(withGenerations, []byte("features: standard\ngenerations: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--config", withGenerations, "--problems", "standard-3,nneonneo-cap1"},
		{"--config", withGenerations, "--problems", "standard-3"},
		{"--config", filepath.Join(dir, "missing.yaml"), "--problems", "standard-3"},
		{"--problems", "nope"},
		{"--problems", "standard-3,standard-3"},
		{"--seeds", "1,x"},
		{"--seeds", "1,1"},
		{"--seeds", ""},
		{"--budget", "-1"},
		{"--budget", "NaN"},
		{"--workers", "-1"},
		{"extra"},
		{"--nope"},
	} {
		code, out, errs := runCLI(t, append([]string{"tunebench"}, args...)...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and one line", args, code, out, errs)
		}
	}
	code, out, _ := runCLI(t, "tunebench", "-h")
	if code != 0 || !strings.Contains(out, `(default "1,2,3")`) || !strings.Contains(out, "CPU seconds") {
		t.Errorf("tunebench -h: exit %d:\n%s", code, out)
	}
}
