package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingRunSuggests: resume, export and report of a run directory
// that does not exist say so in one line, exit 2, and name the nearest
// run directory beside it or under runs/ when one is a slip away; a name
// far from any gets no guess, and a folder without checkpoints is no run.
func TestMissingRunSuggests(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	for _, d := range []string{"runs/nneonneo-deep/checkpoints", "runs/nneonneo-cap1/checkpoints", "runs/quick/checkpoints", "runs/nneonneo-dee", "elsewhere/night/checkpoints"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ arg, want string }{
		{"runs/nneonneo-dep", "no run directory runs/nneonneo-dep; did you mean runs/nneonneo-deep?"},
		{"nneonneo-deep", "no run directory nneonneo-deep; did you mean runs/nneonneo-deep?"},
		{"runs/quik", "no run directory runs/quik; did you mean runs/quick?"},
		{"elsewhere/nigth", "no run directory elsewhere/nigth; did you mean elsewhere/night?"},
		{"runs/overnight", "no run directory runs/overnight\n"},
	} {
		for _, cmd := range []string{"resume", "export", "report"} {
			code, out, errs := runCLI(t, cmd, tc.arg)
			if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tc.want) {
				t.Errorf("%s %s: exit %d, stdout %q, stderr %q; want exit 2 and one line %q", cmd, tc.arg, code, out, errs, tc.want)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(root, "runs", "nneonneo-dep")); err == nil {
		t.Errorf("a command made the mistyped directory")
	}
}

// TestEditDistance: the distance the guess is made by.
func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"abc", "", 3}, {"nneonneo-dep", "nneonneo-deep", 1}, {"kitten", "sitting", 3}, {"quik", "quick", 1}, {"ré", "re", 1}, {"nigth", "night", 1}, {"ca", "abc", 3}} {
		if got := editDistance(tc.a, tc.b); got != tc.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
	}
}
