package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// slowPlayer writes a script that runs evotune player and, from its start
// number from on (counted in a file; a tune's probe is start 1, its slot
// start 2), holds the first move request of each start for delay before
// passing it on: a player whose first answer is slow, as one that builds
// its tables on the first board would be.
func slowPlayer(t *testing.T, from int, delay time.Duration) string {
	if runtime.GOOS == "windows" {
		t.Skip("the slow player is a shell script")
	}
	cmd := evotunePlayer(t, "--eval", "standard", "--depth", "2")
	dir := t.TempDir()
	script := fmt.Sprintf(`#!/bin/sh
n=$(( $(cat %[1]q 2>/dev/null || echo 0) + 1 ))
echo $n > %[1]q
if [ "$n" -lt %[2]d ]; then exec %[4]s; fi
first=1
while IFS= read -r line; do
  case "$line" in move*) if [ $first = 1 ]; then sleep %[3]s; first=0; fi;; esac
  printf '%%s\n' "$line"
  if [ "$line" = quit ]; then break; fi
done | exec %[4]s
`, filepath.Join(dir, "starts"), from, fmt.Sprintf("%.3f", delay.Seconds()), strings.Join(quoteAll(cmd), " "))
	path := filepath.Join(dir, "slow.sh")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPlayerTimeoutsEverywhere: --player-timeouts applies wherever a
// player runs: the pinning of the params file at the end of a tune, export,
// check FILE and check --player. The limits it multiplies are lowered to
// 100 ms a board here, so that a player whose first answer takes 2.5 s
// (more than the limit, less than 100 times it: room for a loaded machine,
// since a process's first request holds one board) fails without the flag
// and passes with it.
func TestPlayerTimeoutsEverywhere(t *testing.T) {
	saved := playerLimits
	playerLimits.move = 100 * time.Millisecond
	t.Cleanup(func() { playerLimits = saved })
	const delay = 2500 * time.Millisecond
	config := func() string {
		c := playerTuneBase + "player:\n  command: [" + fmt.Sprintf("%q", slowPlayer(t, 3, delay)) + "]\n"
		c = strings.Replace(c, "fitness: {games: 4}", "fitness: {games: 4, max_moves: 4}", 1)
		return strings.Replace(c, "generations: 3", "generations: 1", 1)
	}

	// Tuned with the flag, the slot (start 2) answers at once, and the
	// player that pins the params file's moves (start 3) slowly.
	dir := tuneRun(t, config(), "--workers", "1", "--player-timeouts", "100")
	params := filepath.Join(dir, "weights.yaml")
	if _, err := os.Stat(params); err != nil {
		t.Fatalf("the run wrote no params file: %v", err)
	}
	player := slowPlayer(t, 1, delay)
	cases := [][]string{
		{"export", dir, "-o", filepath.Join(t.TempDir(), "again.yaml")},
		{"check", params},
		{"check", "--player", player},
	}
	for _, args := range cases {
		if code, out, errs := runCLI(t, append(args, "--player-timeouts", "100")...); code != 0 {
			t.Errorf("%q with --player-timeouts 100: exit %d\n%s\n%s", args, code, out, errs)
		}
		code, out, errs := runCLI(t, args...)
		if code != exitFailure || !strings.Contains(out+errs, "did not answer") {
			t.Errorf("%q without --player-timeouts: exit %d, want 1 and a timeout\n%s\n%s", args, code, out, errs)
		}
	}
	// Without the flag, the run itself plays (start 2 of a new script is
	// quick) and the pinning times out.
	code, out, errs := runCLI(t, "tune", "--config", writeConfig(t, config()), "--out", filepath.Join(t.TempDir(), "run"), "--workers", "1")
	if code != exitFailure || !strings.Contains(errs, "pinning the moves") || !strings.Contains(errs, "did not answer") {
		t.Errorf("tune without --player-timeouts: exit %d, want 1 and a timeout while pinning\n%s\n%s", code, out, errs)
	}
}
