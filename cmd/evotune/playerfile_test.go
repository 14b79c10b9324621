package main

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/internal/golden"
)

// maskCommand replaces the test binary's path and the directory the tests
// run in, which differ from machine to machine, in a params file or check
// output.
func maskCommand(s string) string {
	s = strings.ReplaceAll(s, os.Args[0], "$EVOTUNE")
	if wd, err := os.Getwd(); err == nil {
		s = strings.ReplaceAll(s, wd, "$CWD")
	}
	return s
}

// TestPlayerParamsFile: a tune run of a player writes its params file as
// weights.yaml; export writes the same file again; export --format set
// prints its set line; check starts the player and reproduces every pinned
// move, and fails (exit 1) on a move the player does not make and (exit 2)
// on a bad file.
func TestPlayerParamsFile(t *testing.T) {
	cmd := evotunePlayer(t, "--eval", "standard", "--depth", "2")
	dir := tuneRun(t, playerConfig(cmd))
	path := filepath.Join(dir, "weights.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the run wrote no params file: %v", err)
	}
	golden.Check(t, "testdata/params.golden", []byte(maskCommand(string(data))))
	pf, err := eval.ParsePlayerFile(data, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(pf.Checks) != 8 {
		t.Errorf("%d checks, want 8", len(pf.Checks))
	}

	again := filepath.Join(t.TempDir(), "again.yaml")
	if code, out, errs := runCLI(t, "export", dir, "-o", again); code != 0 {
		t.Fatalf("export: exit %d\n%s\n%s", code, out, errs)
	}
	if b, _ := os.ReadFile(again); string(b) != string(data) {
		t.Errorf("export wrote another file than the run:\n%s\nthe run:\n%s", b, data)
	}
	for _, src := range []string{dir, path} {
		code, out, errs := runCLI(t, "export", "--format", "set", src)
		if code != 0 || !regexp.MustCompile(`^(# .*\n)+set monotonicity=\S+ smoothness=\S+ empty=\S+ corner=\S+ merge=\S+\n$`).MatchString(out) {
			t.Errorf("export --format set %s: exit %d %q %s", src, code, out, errs)
		}
	}

	code, out, errs := runCLI(t, "check", path)
	if code != 0 {
		t.Fatalf("check: exit %d\n%s\n%s", code, out, errs)
	}
	golden.Check(t, "testdata/check_params.golden", []byte(strings.ReplaceAll(maskCommand(out), dir, "$DIR")))

	// A pinned move the player does not make.
	c := pf.Checks[0]
	wrong := strings.Replace(string(data), `move: `+c.Move.String()+"}", `move: WRONG}`, 1)
	for _, d := range engine.Dirs {
		if _, _, ok := c.Board.Move(d); ok && d != c.Move {
			wrong = strings.Replace(wrong, "WRONG", d.String(), 1)
			break
		}
	}
	bad := filepath.Join(t.TempDir(), "wrong.yaml")
	os.WriteFile(bad, []byte(wrong), 0o644)
	if code, out, _ := runCLI(t, "check", bad); code != 1 || !strings.Contains(out, "MISMATCH") {
		t.Errorf("check of a wrong move: exit %d\n%s", code, out)
	}
	os.WriteFile(bad, []byte(strings.Replace(string(data), "params:", "params: 3\nx:", 1)), 0o644)
	if code, _, errs := runCLI(t, "check", bad); code != 2 || !strings.Contains(errs, "wrong.yaml:") {
		t.Errorf("check of a bad file: exit %d %s", code, errs)
	}
}

// TestCheckParamsCommand: check FILE says which command it runs, and
// where, before it runs it; a relative command runs in the directory the
// file records; one that cannot be started there, or a directory that is
// not there, says so and names --player, which runs another command in
// place of the file's.
func TestCheckParamsCommand(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the player is a shell script")
	}
	cmd := evotunePlayer(t, "--eval", "standard", "--depth", "2")
	dir := tuneRun(t, playerConfig(cmd))
	data, err := os.ReadFile(filepath.Join(dir, "weights.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if !strings.Contains(string(data), "  dir: "+wd+"\n") {
		t.Errorf("the params file does not record the directory the player ran from, %s:\n%s", wd, data)
	}
	playerDir := t.TempDir()
	script := "#!/bin/sh\nexec " + strings.Join(quoteAll(cmd), " ") + "\n"
	if err := os.WriteFile(filepath.Join(playerDir, "p.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	withCommand := func(dirLine string) string {
		s := regexp.MustCompile(`(?m)^  command: .*\n  dir: .*\n`).ReplaceAllString(string(data), "  command: [./p.sh]\n"+dirLine)
		path := filepath.Join(t.TempDir(), "params.yaml")
		os.WriteFile(path, []byte(s), 0o644)
		return path
	}
	// The relative command runs where the file says, from anywhere.
	code, out, errs := runCLI(t, "check", withCommand("  dir: "+playerDir+"\n"))
	if code != 0 || !strings.Contains(out, "command:     ./p.sh   (run in "+playerDir+", where it was tuned") {
		t.Errorf("a relative command in its directory: exit %d\n%s\n%s", code, out, errs)
	}
	elsewhere := t.TempDir()
	for _, c := range []struct{ dirLine, says string }{
		{"  dir: " + elsewhere + "\n", "runs in " + elsewhere + ": if the player is elsewhere on this machine, give it with --player CMD"},
		{"  dir: " + filepath.Join(elsewhere, "gone") + "\n", "is not a directory here: give the player with --player CMD"},
		{"", "runs in the current directory: if the player is elsewhere"},
	} {
		path := withCommand(c.dirLine)
		code, out, errs := runCLI(t, "check", path)
		if code != exitFailure || !strings.Contains(errs, c.says) || !strings.HasPrefix(strings.SplitN(out, "command:", 2)[1], "     ./p.sh") {
			t.Errorf("%q: exit %d, want 1, the command shown and an error saying %q\n%s\n%s", c.dirLine, code, c.says, out, errs)
		}
		// --player replaces the file's command.
		code, out, errs = runCLI(t, "check", path, "--player", filepath.Join(playerDir, "p.sh"))
		if code != 0 || !strings.Contains(out, "(--player, in place of the file's ./p.sh)") {
			t.Errorf("%q with --player: exit %d\n%s\n%s", c.dirLine, code, out, errs)
		}
	}
}
