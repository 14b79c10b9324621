package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files instead of comparing with them")

// Update reports whether the test binary runs with -update, for a test that
// must do more than Check to keep its files in step.
func Update() bool { return *update }

// Check compares got with the golden file at path and reports whether they
// are equal; on a difference it fails t with a diff. With -update it first
// writes got to path (creating its directory), so it always passes then.
//
// The caller adds what a difference means (a format change that needs a new
// version, say) when Check returns false.
func Check(t testing.TB, path string, got []byte) bool {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("golden: %v", err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("golden: %v", err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden: %v (%s creates it)", err, rerun(t))
		return false
	}
	if bytes.Equal(got, want) {
		return true
	}
	t.Errorf("output differs from %s; if the change is intended, %s rewrites it:\n%s", path, rerun(t), Diff(want, got))
	return false
}

// rerun is the command that runs t again with -update, from its package's
// directory.
func rerun(t testing.TB) string {
	parts := strings.Split(t.Name(), "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return "go test -run '" + strings.Join(parts, "/") + "' -update"
}
