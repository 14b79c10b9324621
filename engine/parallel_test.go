package engine

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

// TestPlayGamesWorkers checks that results do not depend on the worker count
// (run it under -race too: the pool shares the results slice).
func TestPlayGamesWorkers(t *testing.T) {
	seeds := func(i int) uint64 { return GameSeed(5, uint64(i)) }
	newPlayer := func() (Player, error) { return &randomPlayer{}, nil }
	var want []Result
	for _, w := range []int{1, 2, 4, 0} {
		var calls atomic.Int64
		got, err := PlayGames(context.Background(), 24, w, seeds, newPlayer, 0, func(int, Result) { calls.Add(1) })
		if err != nil {
			t.Fatal(err)
		}
		if w == 1 {
			want = got
			if calls.Load() != 24 {
				t.Errorf("done called %d times, want 24", calls.Load())
			}
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("workers %d: game %d = %+v, want %+v", w, i, got[i], want[i])
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := PlayGames(ctx, 24, 2, seeds, newPlayer, 0, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled PlayGames: err = %v", err)
	}
}
