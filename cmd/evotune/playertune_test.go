package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/evotune/evotune/tuner"
)

// playerTuneBase is a short run of the standard set at 2 plies; the
// in-process and the player runs below add what they tune.
const playerTuneBase = `name: ptune
seed: 5
generations: 3
optimizer: {method: cmaes, population: 4}
fitness: {games: 4}
validation: {games: 6}
noise: {games: [2, 4], block: 2}
`

// sameScaleBounds gives each standard weight the bounds [d - |d|/2,
// d + |d|/2]: a range of |d|, so that the player's coordinates, normalised
// by the range, are the in-process run's, normalised by |d|.
const sameScaleBounds = `{monotonicity: [23.5, 70.5], smoothness: [5.5, 16.5], empty: [135, 405], corner: [50, 150], merge: [35, 105]}`

func inProcessConfig() string {
	return playerTuneBase + "features: standard\nsearch: {algorithm: expectimax, depth: 2}\nbounds: " + sameScaleBounds + "\n"
}

func playerConfig(command []string) string {
	q := make([]string, len(command))
	for i, w := range command {
		q[i] = strconv.Quote(w)
	}
	return playerTuneBase + "player:\n  command: [" + strings.Join(q, ", ") + "]\n  bounds: " + sameScaleBounds + "\n"
}

// TestTunePlayerEqualsInProcess: a tuning run through evotune player
// equals the in-process run of the same config, history and weights,
// with 1 and 2 player processes, speaking version 2 of the protocol
// (requests mixing candidates) or version 1. The bounds make the two
// runs' normalised coordinates the same: the in-process tuner scales a
// weight by its starting magnitude, a player's tuner by its range.
func TestTunePlayerEqualsInProcess(t *testing.T) {
	want := stripElapsed(t, historyLines(t, tuneRun(t, inProcessConfig())))
	for _, c := range []struct{ protocol, workers string }{{"2", "1"}, {"2", "2"}, {"1", "1"}, {"1", "2"}} {
		cmd := evotunePlayer(t, "--eval", "standard", "--depth", "2", "--protocol", c.protocol)
		workers := c.workers
		dir := tuneRun(t, playerConfig(cmd), "--workers", workers)
		if got := stripElapsed(t, historyLines(t, dir)); got != want {
			t.Errorf("protocol %s, %s workers: history through the protocol:\n%s\nin process:\n%s", c.protocol, workers, got, want)
		}
		logs, _ := filepath.Glob(filepath.Join(dir, "players", "slot-*.log"))
		if len(logs) != 1 && workers == "1" || len(logs) != 2 && workers == "2" {
			t.Errorf("%s workers: player logs %v", workers, logs)
		}
	}
}

// TestTunePlayerResume: a run of a player stopped after 2 generations and
// resumed to 3 restarts the player from its config and writes the history
// of a run of 3, but for what its stop added: generation 2's line says it
// stopped there, with its final race and validation, whose games the
// later lines count too.
func TestTunePlayerResume(t *testing.T) {
	cmd := evotunePlayer(t, "--eval", "standard", "--depth", "2")
	whole := tuneRun(t, playerConfig(cmd))
	part := tuneRun(t, playerConfig(cmd), "--generations", "2")
	if code, out, errs := runCLI(t, "resume", part, "--generations", "3"); code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", code, out, errs)
	}
	strip := func(lines []string, stopAt int) string {
		var out []string
		for i, l := range lines {
			var rec map[string]any
			if err := json.Unmarshal([]byte(l), &rec); err != nil {
				t.Fatal(err)
			}
			delete(rec, "games")
			delete(rec, "elapsed_s")
			delete(rec, "cpu_s")
			if i+1 == stopAt {
				if rec["stop"] != "generations: 2 done" || rec["validation"] == nil {
					t.Errorf("generation 2 of the stopped run: stop %v, validation %v; want its stop and its race", rec["stop"], rec["validation"])
				}
				delete(rec, "stop")
				delete(rec, "validation")
			}
			b, err := json.Marshal(rec)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, string(b))
		}
		return strings.Join(out, "\n")
	}
	if a, b := strip(historyLines(t, whole), 0), strip(historyLines(t, part), 2); a != b {
		t.Errorf("resumed history:\n%s\nuninterrupted:\n%s", b, a)
	}
}

// faultyPlayer writes a script that runs evotune player and, from its
// start number from on (counted in a file; the first start is the probe
// before the run), lets it read only its first 4 requests (the hello, a
// set and two moves), so that it exits while answering the next: once
// (only that start) or always.
func faultyPlayer(t *testing.T, from int, always bool) []string {
	if runtime.GOOS == "windows" {
		t.Skip("the faulty player is a shell script")
	}
	cmd := evotunePlayer(t, "--eval", "standard", "--depth", "2")
	dir := t.TempDir()
	count := filepath.Join(dir, "starts")
	cond := fmt.Sprintf(`[ "$n" -eq %d ]`, from)
	if always {
		cond = fmt.Sprintf(`[ "$n" -ge %d ]`, from)
	}
	script := fmt.Sprintf(`#!/bin/sh
n=$(( $(cat %[1]q 2>/dev/null || echo 0) + 1 ))
echo $n > %[1]q
if %[2]s; then
  echo "start $n: leaving early, on purpose" >&2
  i=0
  while [ $i -lt 4 ] && IFS= read -r line; do printf '%%s\n' "$line"; i=$((i+1)); done | %[3]s
  exit 3
fi
exec %[3]s
`, count, cond, strings.Join(quoteAll(cmd), " "))
	path := filepath.Join(dir, "player.sh")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{path, count}
}

func quoteAll(words []string) []string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return q
}

// TestTunePlayerCrashOnce: a player that exits once in mid-run is restarted,
// the games in flight are played again, and the run equals an undisturbed
// one.
func TestTunePlayerCrashOnce(t *testing.T) {
	faulty := faultyPlayer(t, 2, false)
	cmd := evotunePlayer(t, "--eval", "standard", "--depth", "2")
	want := stripElapsed(t, historyLines(t, tuneRun(t, playerConfig(cmd), "--workers", "1")))
	dir := tuneRun(t, playerConfig(faulty[:1]), "--workers", "1")
	if got := stripElapsed(t, historyLines(t, dir)); got != want {
		t.Errorf("history after a crash:\n%s\nundisturbed:\n%s", got, want)
	}
	starts, _ := os.ReadFile(faulty[1])
	if n, _ := strconv.Atoi(strings.TrimSpace(string(starts))); n != 4 {
		t.Errorf("the player was started %d times, want 4: the probe, the one that fails, the one after, the one that pins the params file's moves", n)
	}
}

// TestTunePlayerCrashAlways: a player that always dies stops the run with
// one line naming it, exit status 1, and the checkpoint it had saved
// intact.
func TestTunePlayerCrashAlways(t *testing.T) {
	faulty := faultyPlayer(t, 2, true)
	dir := filepath.Join(t.TempDir(), "run")
	code, _, errs := runCLI(t, "tune", "--config", writeConfig(t, playerConfig(faulty[:1])), "--out", dir, "--workers", "1")
	if code != exitFailure {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	last := lines[len(lines)-1]
	for _, s := range []string{"player \"" + faulty[0], "exited (exit status 3) while answering move", "failed 3 times", "leaving early, on purpose"} {
		if !strings.Contains(last, s) {
			t.Errorf("last line of stderr does not say %q:\n%s", s, last)
		}
	}
	tn, _, _, err := tuner.LoadCheckpoint(dir)
	if err != nil {
		t.Fatalf("the checkpoint does not load: %v", err)
	}
	if tn.Config().Player == nil || tn.State().Generation != 0 {
		t.Errorf("checkpoint: player %v, generation %d", tn.Config().Player, tn.State().Generation)
	}
}

// TestTunePlayerBadInput: bad player commands and configs are one line
// and exit status 2 (or 1 for a player that fails), before any run
// directory is made.
func TestTunePlayerBadInput(t *testing.T) {
	cmd := evotunePlayer(t, "--eval", "standard", "--depth", "2")
	cases := []struct {
		config string
		args   []string
		code   int
		says   string
	}{
		{playerTuneBase, []string{"--player", "evotune player | tee x"}, exitUsage, "shell syntax"},
		{playerTuneBase, []string{"--player", filepath.Join(t.TempDir(), "none")}, exitFailure, "cannot be started"},
		{playerTuneBase, []string{"--player", "x", "--player-timeouts", "0"}, exitUsage, "--player-timeouts"},
		{playerConfig(cmd) + "features: standard\n", nil, exitUsage, "a feature set or a player, not both"},
		{strings.Replace(playerConfig(cmd), "  bounds:", "  fixed: [nothing]\n  bounds:", 1), nil, exitUsage, `no parameter "nothing"`},
		{strings.Replace(playerConfig(cmd), "  bounds:", "  init: {empty: 1000}\n  bounds:", 1), nil, exitUsage, "player.init.empty"},
		{strings.Replace(playerConfig(cmd), "  bounds:", "  colour: red\n  bounds:", 1), nil, exitUsage, "colour"},
	}
	for _, c := range cases {
		dir := filepath.Join(t.TempDir(), "run")
		args := append([]string{"tune", "--config", writeConfig(t, c.config), "--out", dir}, c.args...)
		code, _, errs := runCLI(t, args...)
		if code != c.code || !strings.Contains(errs, c.says) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%q: exit %d, stderr %q; want exit %d saying %q", c.args, code, errs, c.code, c.says)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("%q: a run directory was made", c.args)
		}
	}
}

// TestTunePlayerNamedAfterIt: a run of a player whose config names no run
// is named after the player's id: its report's title and its params file's
// provenance say which player it tuned.
func TestTunePlayerNamedAfterIt(t *testing.T) {
	cmd := evotunePlayer(t, "--eval", "standard", "--depth", "2")
	dir := tuneRun(t, strings.Replace(playerConfig(cmd), "name: ptune\n", "", 1))
	data, err := os.ReadFile(filepath.Join(dir, "weights.yaml"))
	if err != nil || !strings.Contains(string(data), "run: evotune-standard") {
		t.Errorf("params file's provenance does not name the player's run: %v\n%s", err, data)
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil || !strings.Contains(string(page), "<title>evotune run evotune-standard</title>") {
		t.Errorf("the report's title does not name the player: %v", err)
	}
}

// TestTunePlayerIntShownAsInt: the summary of a run of the Python example
// shows its int parameter mono_power as the integer the player receives,
// not the optimizer's mean around it; so does play.
func TestTunePlayerIntShownAsInt(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found")
	}
	config := "name: pyint\nseed: 3\ngenerations: 2\noptimizer: {method: cmaes, population: 4}\nfitness: {games: 2, max_moves: 30}\nvalidation: {games: 2}\nsigma: 0.3\n" +
		"player:\n  command: [python3, ../../examples/players/python/player.py]\n"
	dir := filepath.Join(t.TempDir(), "run")
	code, out, errs := runCLI(t, "tune", "--config", writeConfig(t, config), "--out", dir, "--workers", "1")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	m := regexp.MustCompile(`(?m)^weights .*\bmono_power (\S+?)(,|$)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no mono_power in the summary:\n%s", out)
	}
	if _, err := strconv.Atoi(m[1]); err != nil {
		t.Errorf("mono_power shows as %s, not the integer the player receives:\n%s", m[1], out)
	}
	// play shows (and reports) what it sent.
	code, out, errs = runCLI(t, "play", "--player", "python3 ../../examples/players/python/player.py", "--params", "mono_power=2.6", "--games", "1", "--max-moves", "3")
	if code != 0 || !strings.Contains(out, "mono_power=3") {
		t.Errorf("play --params mono_power=2.6: exit %d, want mono_power=3 shown\n%s\n%s", code, out, errs)
	}
}

// TestTunePlayerEstimate: a run of a player estimates its end from the
// pace of the player's games, as an in-process run does from its
// search's, not "0s at least" for want of a pace.
func TestTunePlayerEstimate(t *testing.T) {
	cmd := evotunePlayer(t, "--eval", "standard", "--depth", "2")
	dir := filepath.Join(t.TempDir(), "run")
	code, _, errs := runCLI(t, "tune", "--config", writeConfig(t, playerConfig(cmd)), "--out", dir)
	if code != 0 {
		t.Fatalf("tune: exit %d\n%s", code, errs)
	}
	if !regexp.MustCompile(`(?m)^gen 2/3  .* end in ~\d+s \(by its generations\)`).MatchString(errs) {
		t.Errorf("generation 2's line does not estimate the run's end:\n%s", errs)
	}
}
