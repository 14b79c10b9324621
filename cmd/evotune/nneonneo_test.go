package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

// TestPlayNneonneo checks that play --search nneonneo plays the program's
// search: the games equal those of engine.Nneonneo at the matching cap.
func TestPlayNneonneo(t *testing.T) {
	code, out, errs := runCLI(t, "play", "--eval", "nneonneo", "--search", "nneonneo", "--depth", "3", "--games", "4", "--seed", "9", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		PerGame []struct {
			Seed  uint64
			Score int
			Moves int
		} `json:"per_game"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	set, _ := eval.Set("nneonneo")
	for i, g := range got.PerGame {
		s, err := engine.NewNneonneo(set.Default(), engine.NneonneoOptions{Cap: 1})
		if err != nil {
			t.Fatal(err)
		}
		r, err := engine.PlayContext(context.Background(), engine.GameSeed(9, uint64(i)), s, 0)
		if err != nil {
			t.Fatal(err)
		}
		if g.Seed != r.Seed || g.Score != r.Score || g.Moves != r.Moves {
			t.Errorf("game %d: play gave %+v, Nneonneo cap 1 %+v", i, g, r)
		}
	}
	if len(got.PerGame) != 4 {
		t.Fatalf("%d games, want 4", len(got.PerGame))
	}
	code, _, errs = runCLI(t, "play", "--eval", "nneonneo", "--search", "nneonneo", "--depth", "4")
	if code != exitUsage || !strings.Contains(errs, "flag --depth: 4: the nneonneo search wants an odd depth") {
		t.Errorf("even depth: exit %d, %q", code, errs)
	}
}

// TestSearchNneonneo checks search --search nneonneo: its move values are
// the program's search's (engine.Nneonneo at the matching cap).
func TestSearchNneonneo(t *testing.T) {
	const board = "0x1234123412341234"
	code, out, errs := runCLI(t, "search", "--board", board, "--eval", "nneonneo", "--search", "nneonneo", "--depth", "3", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		Moves []struct {
			Dir   string
			Value float64
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	set, _ := eval.Set("nneonneo")
	s, err := engine.NewNneonneo(set.Default(), engine.NneonneoOptions{Cap: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := engine.ParseBoard(board)
	want := s.Search(b)
	if len(got.Moves) != len(want.Moves) || len(want.Moves) == 0 {
		t.Fatalf("moves %+v, want %+v", got.Moves, want.Moves)
	}
	for i, m := range want.Moves {
		if got.Moves[i].Dir != m.Dir.String() || got.Moves[i].Value != m.Value {
			t.Errorf("move %d: %+v, want %v %v", i, got.Moves[i], m.Dir, m.Value)
		}
	}
	for _, bad := range [][]string{
		{"--search", "nneonneo", "--depth", "4"},
		{"--search", "nneonneo", "--depth", "3", "--tt"},
		{"--search", "beam"},
	} {
		args := append([]string{"search", "--board", board}, bad...)
		if code, _, errs := runCLI(t, args...); code != exitUsage || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line", bad, code, errs)
		}
	}
}
