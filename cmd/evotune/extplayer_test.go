package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// playerCommandLine returns evotune player with args as one --player
// value.
func playerCommandLine(t *testing.T, args ...string) string {
	return commandText(evotunePlayer(t, args...))
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
