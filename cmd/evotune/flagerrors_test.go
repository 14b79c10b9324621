package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFlagParseErrors: a value a flag cannot take gets one line naming the
// flag, the value and what the flag takes, and exit status 2.
func TestFlagParseErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"tune", "--seed", "-1"}, `evotune tune: flag --seed: "-1": want a whole number from 0 to 18446744073709551615 (see evotune tune -h)`},
		{[]string{"tune", "--games", "abc"}, `evotune tune: flag --games: "abc": want a whole number (see evotune tune -h)`},
		{[]string{"tune", "--duration", "5"}, `evotune tune: flag --duration: "5": want a duration: a number and a unit, such as 90s, 10m or 8h (units ns, us, ms, s, m, h) (see evotune tune -h)`},
		{[]string{"tune", "--player-timeouts", "x"}, `evotune tune: flag --player-timeouts: "x": want a number, such as 2 or 0.5 (see evotune tune -h)`},
		{[]string{"play", "--json=maybe"}, `evotune play: flag --json: "maybe": want true or false (the flag alone means true) (see evotune play -h)`},
		{[]string{"search", "--board", "0x1", "--cutoff", "x"}, `evotune search: flag --cutoff: "x": want a number, such as 2 or 0.5 (see evotune search -h)`},
		{[]string{"search", "--board", "0x1", "--table", "x"}, `evotune search: flag --table: "x": want a whole number (see evotune search -h)`},
		{[]string{"play", "--seed"}, `evotune play: flag --seed needs a value: a whole number from 0 to 18446744073709551615 (see evotune play -h)`},
		{[]string{"report", "--colour", "red"}, `evotune report: unknown flag --colour (flags: --o) (see evotune report -h)`},
		{[]string{"compare", "--seed", "1e3"}, `evotune compare: flag --seed: "1e3": want a whole number from 0 to 18446744073709551615 (see evotune compare -h)`},
	} {
		code, out, errs := runCLI(t, tt.args...)
		if code != 2 || out != "" || errs != tt.want+"\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q, want %q", tt.args, code, out, errs, tt.want)
		}
	}
}

// TestGamesFlagBoundsNoise: --games N is what the first generation plays,
// with noise handling too, where the config's own bounds (12 to 48) would
// have made --games 8 play 12; the config line says what is played.
func TestGamesFlagBoundsNoise(t *testing.T) {
	cfg := writeConfig(t, `name: g
seed: 2
generations: 1
optimizer: {population: 4}
search: {depth: 1}
fitness: {games: 48}
validation: {games: 4}
noise: {games: [12, 48]}
`)
	for _, tt := range []struct {
		games, played string
		line          string
	}{
		{"8", "8", "4 candidates × 8 games (noise handling: 4 to 32 as ranks need, racing)"},
		{"6", "8", "4 candidates × 8 games (6 in whole blocks of 4; noise handling: 4 to 24 as ranks need, racing)"},
	} {
		dir := filepath.Join(t.TempDir(), "run")
		code, out, errs := runCLI(t, "tune", "--config", cfg, "--out", dir, "--games", tt.games)
		if code != 0 {
			t.Fatalf("--games %s: exit %d: %s", tt.games, code, errs)
		}
		if !strings.Contains(out, tt.line) {
			t.Errorf("--games %s: stdout lacks %q:\n%s", tt.games, tt.line, out)
		}
		data, err := os.ReadFile(filepath.Join(dir, "history.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		var rec struct {
			Noise struct {
				Games json.Number `json:"games"`
			} `json:"noise"`
		}
		if err := json.Unmarshal([]byte(strings.SplitN(string(data), "\n", 2)[0]), &rec); err != nil {
			t.Fatal(err)
		}
		if string(rec.Noise.Games) != tt.played {
			t.Errorf("--games %s: the first generation played %s games a candidate, want %s", tt.games, rec.Noise.Games, tt.played)
		}
	}
}
