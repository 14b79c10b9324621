package main

import (
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/evotune/evotune/tuner/playerpool"
	"github.com/evotune/evotune/tuner/report"
)

// playerCommandLine returns evotune player with args as one --player
// value.
func playerCommandLine(t *testing.T, args ...string) string {
	return playerpool.CommandString(evotunePlayer(t, args...))
}

// TestPlayPlayerSameGames: play --player "evotune player --eval standard
// --depth 3" plays, seed for seed, the games of play --eval standard
// --depth 3, with 1 and 2 player processes, and says which player played.
func TestPlayPlayerSameGames(t *testing.T) {
	games := "6"
	if testing.Short() {
		games = "3"
	}
	type out struct {
		PerGame []gameJSON  `json:"per_game"`
		Player  *playerJSON `json:"player"`
	}
	decode := func(args ...string) out {
		t.Helper()
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		var o out
		if err := json.Unmarshal([]byte(stdout), &o); err != nil {
			t.Fatal(err)
		}
		return o
	}
	want := decode("play", "--eval", "standard", "--depth", "3", "--games", games, "--seed", "3", "--json")
	if want.Player != nil {
		t.Errorf("play of a built-in player names an external one")
	}
	cmd := playerCommandLine(t, "--eval", "standard", "--depth", "3")
	for _, workers := range []string{"1", "2"} {
		got := decode("play", "--player", cmd, "--games", games, "--seed", "3", "--workers", workers, "--json")
		if len(got.PerGame) != len(want.PerGame) {
			t.Fatalf("%s workers: %d games, want %d", workers, len(got.PerGame), len(want.PerGame))
		}
		for i, g := range got.PerGame {
			if g != want.PerGame[i] {
				t.Errorf("%s workers, game %d: through the protocol %+v, in process %+v", workers, i, g, want.PerGame[i])
			}
		}
		if got.Player == nil || got.Player.ID == "" || got.Player.Version == "" {
			t.Errorf("%s workers: JSON does not name the player: %+v", workers, got.Player)
		}
	}
	code, text, stderr := runCLI(t, "play", "--player", cmd, "--games", "2", "--params", "empty=300")
	if code != 0 || !strings.Contains(text, "params  ") || !strings.Contains(text, "empty=300") || !strings.Contains(text, "player ") {
		t.Errorf("text: exit %d\n%s%s", code, text, stderr)
	}
}

// TestPlayPlayerBadUsage: a bad --player or --params is one line, exit 2.
func TestPlayPlayerBadUsage(t *testing.T) {
	cmd := playerCommandLine(t, "--eval", "standard", "--depth", "2")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"play", "--params", "empty=1"}, "--params"},
		{[]string{"play", "--player", cmd, "--depth", "3"}, "--depth"},
		{[]string{"play", "--player", cmd, "--eval", "standard"}, "--eval"},
		{[]string{"play", "--player", "a | b"}, "--player"},
		{[]string{"play", "--player", cmd, "--params", "nothing=1"}, "nothing"},
		{[]string{"play", "--player", cmd, "--params", "empty=x"}, "empty"},
		{[]string{"play", "--player", cmd, "--params", "empty=1e9"}, "empty"},
		{[]string{"play", "--player", cmd, "--params", "empty=1,empty=2"}, "twice"},
		{[]string{"play", "--player", cmd, "--params", "empty"}, "NAME=VALUE"},
	} {
		code, out, errs := runCLI(t, tt.args...)
		if code != exitUsage || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tt.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q (want %q)", tt.args, code, out, errs, tt.want)
		}
	}
}

// TestComparePlayer: compare with an external player on either side plays
// the same paired games as in process: evotune player against its own set
// ties every seed, also under an SPRT, and --params-b changes B.
func TestComparePlayer(t *testing.T) {
	cmd := "player:" + playerCommandLine(t, "--eval", "standard", "--depth", "2")
	var c struct {
		Games, Ties int
	}
	code, out, errs := runCLI(t, "compare", cmd, "eval:standard", "--depth", "2", "--games", "4", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	if c.Ties != 4 || c.Games != 4 || !strings.Contains(out, `"player_a"`) || strings.Contains(out, `"player_b"`) {
		t.Errorf("player vs its own set in process:\n%s", out)
	}
	// Under an SPRT: the output of the same compare in process, but for
	// the line naming B.
	sprt := []string{"--depth", "2", "--games", "30", "--sprt", "1,1.05", "--workers", "2"}
	code, text, errs := runCLI(t, append([]string{"compare", "eval:standard", cmd}, sprt...)...)
	_, want, _ := runCLI(t, append([]string{"compare", "eval:standard", "eval:standard"}, sprt...)...)
	dropB := func(s string) string {
		lines := strings.Split(s, "\n")
		return strings.Join(append(lines[:1:1], lines[2:]...), "\n")
	}
	if code != 0 || dropB(text) != dropB(want) || !strings.Contains(text, "B        player evotune-standard") || !strings.Contains(text, "sprt     ") {
		t.Errorf("sprt: exit %d\n%s%s\nin process:\n%s", code, text, errs, want)
	}
	code, text, errs = runCLI(t, "compare", cmd, cmd, "--params-b", "empty=20", "--games", "4")
	if code != 0 || !strings.Contains(text, "empty=20") || strings.Contains(text, "W/L/T    0/0/4") {
		t.Errorf("--params-b: exit %d\n%s%s", code, text, errs)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", "eval:standard", "eval:standard", "--params-a", "x=1"}, "--params-a"},
		{[]string{"compare", cmd, "eval:standard", "--params-a", "x=1"}, "--params-a"},
		{[]string{"compare", cmd, cmd, "--depth", "3"}, "--depth"},
		{[]string{"compare", "player:", "eval:standard"}, "player A"},
	} {
		code, out, errs := runCLI(t, tt.args...)
		if code != exitUsage || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tt.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q (want %q)", tt.args, code, out, errs, tt.want)
		}
	}
}

// TestReportPlayerRun: the report of a small run of evotune player names
// the player (id, version, command) where a feature set's run names its
// search, shows the parameters by name with their start and tuned values,
// and offers play --player with the recommended values.
func TestReportPlayerRun(t *testing.T) {
	cmd := evotunePlayer(t, "--eval", "standard", "--depth", "1")
	cfg := strings.Replace(playerConfig(cmd), "generations: 3", "generations: 2", 1)
	dir := tuneRun(t, cfg)
	data, err := os.ReadFile(filepath.Join(dir, report.DefaultFile))
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	for _, want := range []string{
		"<th>player</th><td>evotune-standard ",
		"<th>player command</th><td>" + html.EscapeString(cmd[0]),
		"<h2 id=\"weights-recommended\">Recommended parameters</h2>",
		"<tr><th>parameter</th><th>start</th><th>recommended</th><th>(p − p₀)/range</th></tr>",
		"<tr><th>empty</th><td class=\"n\">270</td>",
		"evotune play --player ",
		"--params monotonicity=",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, unwanted := range []string{"<th>search</th>", "Recommended weights", "evotune play --weights"} {
		if strings.Contains(page, unwanted) {
			t.Errorf("report of a player run shows %q", unwanted)
		}
	}
}

// TestTunedValuesCarry: the values of a tuned player go from export to
// play and compare in any of the forms export writes: the set line pasted
// into --params, the params file given to play --params-file (its command
// and values) or as an operand of compare, a file holding the set line;
// all play the same games. play --weights of a params file points to
// --params-file.
func TestTunedValuesCarry(t *testing.T) {
	cmd := evotunePlayer(t, "--eval", "standard", "--depth", "2")
	dir := tuneRun(t, playerConfig(cmd))
	params := filepath.Join(dir, "weights.yaml")
	code, set, errs := runCLI(t, "export", "--format", "set", dir)
	if code != 0 || !strings.HasPrefix(set, "# status: ") || !strings.Contains(set, "\nset ") {
		t.Fatalf("export --format set: exit %d %q %s", code, set, errs)
	}
	setFile := filepath.Join(t.TempDir(), "set.txt")
	os.WriteFile(setFile, []byte(set), 0o644)
	line := playerpool.CommandString(cmd)
	games := func(args ...string) string {
		t.Helper()
		code, out, errs := runCLI(t, append([]string{"play", "--games", "2", "--max-moves", "40", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errs)
		}
		return perGame(t, out)
	}
	// The set line, after the comment lines that say what it is (which
	// every form below keeps, and the readers skip).
	setOnly := strings.TrimSpace(set)
	setOnly = setOnly[strings.LastIndex(setOnly, "\n")+1:]
	want := games("--player", line, "--params", strings.ReplaceAll(strings.TrimPrefix(setOnly, "set "), " ", ","))
	for _, args := range [][]string{
		{"--player", line, "--params", set},
		{"--params-file", params},
		{"--params-file", params, "--player", line},
		{"--player", line, "--params-file", setFile},
	} {
		if got := games(args...); got != want {
			t.Errorf("%q plays other games than the comma form of the set line:\n%s\n%s", args, got, want)
		}
	}
	code, out, errs := runCLI(t, "compare", params, "player:"+line, "--params-b", set, "--games", "4", "--json")
	if code != 0 || !strings.Contains(out, `"wins": 0`) || !strings.Contains(out, `"losses": 0`) {
		t.Errorf("compare of the params file with its set line: exit %d\n%s\n%s", code, out, errs)
	}
	if code, _, errs := runCLI(t, "play", "--weights", params); code != exitUsage || !strings.Contains(errs, "--params-file "+params) {
		t.Errorf("play --weights PARAMSFILE: exit %d %s", code, errs)
	}
	if code, _, errs := runCLI(t, "play", "--params-file", setFile); code != exitUsage || !strings.Contains(errs, "give --player too") {
		t.Errorf("play --params-file SETFILE without --player: exit %d %s", code, errs)
	}
}

// TestPlaySpeedWithoutQuitWait: play's moves per second count the games,
// not the wait for a player that ignores quit until it is killed (5 s).
func TestPlaySpeedWithoutQuitWait(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the player is a shell script")
	}
	cmd := evotunePlayer(t, "--eval", "standard", "--depth", "1")
	script := "#!/bin/sh\nwhile IFS= read -r line; do\n  if [ \"$line\" = quit ]; then sleep 20; fi\n  printf '%s\\n' \"$line\"\ndone | exec " + strings.Join(quoteAll(cmd), " ") + "\n"
	path := filepath.Join(t.TempDir(), "deaf.sh")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "play", "--player", path, "--games", "1", "--max-moves", "50", "--workers", "1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var v struct {
		MovesPerSec float64    `json:"moves_per_sec"`
		PerGame     []gameJSON `json:"per_game"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || len(v.PerGame) != 1 {
		t.Fatalf("%v: %s", err, out)
	}
	// The quit wait alone is 5 s; the 50 moves, far less.
	if elapsed := float64(v.PerGame[0].Moves) / v.MovesPerSec; elapsed >= 4.5 {
		t.Errorf("%d moves at %.0f moves/s: %.1f s counted, the wait for the player's exit among them", v.PerGame[0].Moves, v.MovesPerSec, elapsed)
	}
}
