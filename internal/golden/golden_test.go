package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDiffText(t *testing.T) {
	want := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n"
	got := "a\nb\nc\nd\nE\nf\ng\nh\ni\nj\nk\nl\nm\n"
	const diff = `--- golden
+++ got
@@ golden line 2, got line 2 @@
 b
 c
 d
-e
+E
 f
 g
 h
@@ golden line 10, got line 10 @@
 j
 k
 l
+m
`
	if d := Diff([]byte(want), []byte(got)); d != diff {
		t.Errorf("Diff:\n%s\nwant\n%s", d, diff)
	}
	if d := Diff([]byte(want), []byte(want)); d != "" {
		t.Errorf("Diff of equal files: %q", d)
	}
}

// TestDiffLCS checks that a line moved within the middle shows as one
// removal and one addition, not as everything in between rewritten.
func TestDiffLCS(t *testing.T) {
	d := Diff([]byte("x\n1\n2\n3\n4\ny\n"), []byte("x\n2\n3\n4\n1\ny\n"))
	if n := strings.Count(d, "\n-1\n") + strings.Count(d, "\n+1\n"); n != 2 || strings.Count(d, "\n ") != 5 {
		t.Errorf("%d changed lines, want 2:\n%s", n, d)
	}
}

func TestDiffFinalNewline(t *testing.T) {
	d := Diff([]byte("a\nb\n"), []byte("a\nb"))
	if !strings.Contains(d, "+b\n\\ no newline at end of file\n") || !strings.Contains(d, "-b\n") {
		t.Errorf("Diff:\n%s", d)
	}
}

func TestDiffBinary(t *testing.T) {
	want := make([]byte, 40)
	got := make([]byte, 41)
	got[37] = 9
	d := Diff(want, got)
	if !strings.Contains(d, "golden 40 bytes, got 41; first difference at byte 37\n") ||
		!strings.Contains(d, "\n00000020  00 00 00 00 00 09 00 00 00\n") {
		t.Errorf("Diff:\n%s", d)
	}
}

// recorder is a testing.TB that keeps failures instead of failing.
type recorder struct {
	testing.TB
	failures []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }

func TestCheck(t *testing.T) {
	if Update() {
		t.Skip("-update makes Check pass whatever it is given")
	}
	path := filepath.Join(t.TempDir(), "out.golden")
	if err := os.WriteFile(path, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	if !Check(r, path, []byte("one\ntwo\n")) || len(r.failures) != 0 {
		t.Errorf("equal output: %q", r.failures)
	}
	if Check(r, path, []byte("one\n2\n")) || len(r.failures) != 1 ||
		!strings.Contains(r.failures[0], "-two\n+2\n") || !strings.Contains(r.failures[0], "go test -run '^TestCheck$' -update") {
		t.Errorf("different output: %q", r.failures)
	}
	r.failures = nil
	if Check(r, path+".missing", nil) || len(r.failures) != 1 || !strings.Contains(r.failures[0], "creates it") {
		t.Errorf("missing file: %q", r.failures)
	}
}
