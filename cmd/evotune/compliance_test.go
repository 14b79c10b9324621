package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/evotune/evotune/internal/golden"
)

// maskTimings replaces the speed line's figures and the quit's time,
// which vary from run to run.
func maskTimings(s string) string {
	s = regexp.MustCompile(`(?m)^(ok    speed\s+).*$`).ReplaceAllString(s, "${1}$$TIMINGS")
	return regexp.MustCompile(`in [0-9.]+[mµn]?s\n`).ReplaceAllString(s, "in $$TIME\n")
}

// TestCheckPlayer: evotune player passes the compliance check (its output
// is golden but for timings); a player that does not start fails it with
// exit 1; a bad command line is bad usage.
func TestCheckPlayer(t *testing.T) {
	cmd := evotunePlayer(t, "--eval", "standard", "--depth", "2")
	line := strings.Join(quoteAll(cmd), " ")
	code, out, errs := runCLI(t, "check", "--player", line)
	if code != 0 {
		t.Fatalf("check --player: exit %d\n%s\n%s", code, out, errs)
	}
	golden.Check(t, "testdata/check_player.golden", []byte(maskTimings(strings.ReplaceAll(out, line, "$PLAYER"))))

	code, out, errs = runCLI(t, "check", "--player", "/nonexistent/player")
	if code != 1 || !strings.Contains(out, "FAIL  handshake") || !strings.Contains(errs, "compliance points failed") {
		t.Errorf("a player that does not exist: exit %d\n%s\n%s", code, out, errs)
	}
	if code, _, errs := runCLI(t, "check", "--player", "a | b"); code != 2 {
		t.Errorf("a shell pipe: exit %d %s", code, errs)
	}
	if code, _, errs := runCLI(t, "check", "--player", "x", "file.yaml"); code != 2 {
		t.Errorf("a player and a file: exit %d %s", code, errs)
	}
}

// TestCheckPlayerIllegal: a player that answers up whatever the board
// fails the legal-moves point with the first board it was wrong on and
// what to fix (golden but for timings); the other points still run.
func TestCheckPlayerIllegal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the player is a shell script")
	}
	cmd := evotunePlayer(t, "--eval", "standard", "--depth", "1")
	path := filepath.Join(t.TempDir(), "always-up.sh")
	script := "#!/bin/sh\n" + strings.Join(quoteAll(cmd), " ") + ` | while IFS= read -r line; do
  case "$line" in
  best*) set -- $line; shift; out=best; for w; do out="$out up"; done; printf '%s\n' "$out";;
  *) printf '%s\n' "$line";;
  esac
done
`
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "check", "--player", path)
	if code != exitFailure {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errs)
	}
	golden.Check(t, "testdata/check_player_illegal.golden", []byte(maskTimings(strings.ReplaceAll(out, path, "$PLAYER"))))
}

// TestCheckPlayerPython: the Python example passes the compliance check.
func TestCheckPlayerPython(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found: the Python example's compliance check is skipped")
	}
	code, out, errs := runCLI(t, "check", "--player", "python3 ../../examples/players/python/player.py")
	if code != 0 {
		t.Fatalf("check --player of the Python example: exit %d\n%s\n%s", code, out, errs)
	}
}
