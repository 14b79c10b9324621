package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/tuner"
	"github.com/evotune/evotune/tuner/playerpool"
)

// evotunePlayer returns the command that runs this test binary as
// "evotune player" with args: TestMain makes a child with EVOTUNE_CHILD=1
// the evotune binary, and children inherit the variable from the test.
func evotunePlayer(t *testing.T, args ...string) []string {
	t.Setenv("EVOTUNE_CHILD", "1")
	t.Setenv("EVOTUNE_TRACE", "")
	return append([]string{os.Args[0], "player"}, args...)
}

// TestPlayerSameGames: evotune player --eval standard --depth 3 through the
// protocol plays, seed for seed, the games of evotune play --eval standard
// --depth 3 (scores and move counts), with 1 and 2 slots.
func TestPlayerSameGames(t *testing.T) {
	games := 6
	if testing.Short() {
		games = 3
	}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"play", "--eval", "standard", "--depth", "3", "--games", strconv.Itoa(games), "--seed", "1", "--json"}, &out, &errOut); code != 0 {
		t.Fatalf("play: %d %s", code, errOut.String())
	}
	var want struct {
		PerGame []gameJSON `json:"per_game"`
	}
	if err := json.Unmarshal(out.Bytes(), &want); err != nil {
		t.Fatal(err)
	}
	cmd := evotunePlayer(t, "--eval", "standard", "--depth", "3")
	opts := playerpool.Options{LogDir: t.TempDir(), MoveTimeout: 30 * time.Second}
	fam, err := playerpool.Probe(context.Background(), cmd, "", opts)
	if err != nil {
		t.Fatal(err)
	}
	seeds := make([]uint64, games)
	for i := range seeds {
		seeds[i] = engine.GameSeed(1, uint64(i))
	}
	for _, slots := range []int{1, 2} {
		p := playerpool.New(slots, opts)
		results := [][]engine.Result{make([]engine.Result, games)}
		err := p.Play(context.Background(), &tuner.Batch{Players: fam, Vectors: [][]float64{fam.Defaults()}, Seeds: seeds}, results, nil)
		p.Close()
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range results[0] {
			w := want.PerGame[i]
			if r.Seed != w.Seed || r.Score != w.Score || r.Moves != w.Moves || r.MaxTile != w.MaxTile {
				t.Errorf("%d slots, game %d: protocol seed %d score %d moves %d, play seed %d score %d moves %d", slots, i, r.Seed, r.Score, r.Moves, w.Seed, w.Score, w.Moves)
			}
		}
	}
}

// TestPlayerBadUsage: a bad flag of evotune player is a usage error before
// any protocol is spoken.
func TestPlayerBadUsage(t *testing.T) {
	for _, args := range [][]string{{"player", "--eval", "nothing"}, {"player", "--depth", "0"}, {"player", "extra"}} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), args, &out, &errOut); code != exitUsage || out.Len() != 0 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out.String(), errOut.String())
		}
	}
}
