package engine

import (
	"context"
	"errors"
	"math"
	"sync/atomic"
	"testing"
)

func TestMeanCI95(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	mean, hw := MeanCI95(xs)
	// sd = sqrt(110/12) = 3.0276503541, t(0.975, 9) = 2.2621571628 (tables).
	if mean != 5.5 || math.Abs(hw-2.2621571628*3.0276503541/math.Sqrt(10)) > 1e-8 {
		t.Errorf("MeanCI95(1..10) = %v ± %v", mean, hw)
	}
	// t(0.975, 1) = 12.7062047362: two values 0 and 2 have sd sqrt(2).
	if mean, hw := MeanCI95([]float64{0, 2}); mean != 1 || math.Abs(hw-12.7062047362*math.Sqrt(2)/math.Sqrt(2)) > 1e-8 {
		t.Errorf("MeanCI95(0, 2) = %v ± %v", mean, hw)
	}
	if mean, hw := MeanCI95([]float64{7}); mean != 7 || hw != 0 {
		t.Errorf("MeanCI95(7) = %v ± %v, want 7 ± 0", mean, hw)
	}
}

func TestMedian(t *testing.T) {
	for _, tt := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		in := append([]float64(nil), tt.in...)
		if got := Median(in); got != tt.want {
			t.Errorf("Median(%v) = %v, want %v", tt.in, got, tt.want)
		}
		for i := range in {
			if in[i] != tt.in[i] {
				t.Errorf("Median changed its input")
			}
		}
	}
}

func TestSummarize(t *testing.T) {
	rs := []Result{{Score: 100, MaxTile: 2048, Moves: 10}, {Score: 300, MaxTile: 4096, Moves: 20}, {Score: 200, MaxTile: 512, Moves: 30}, {Score: 50, MaxTile: 32768, Moves: 1}}
	s := Summarize(rs)
	if s.Games != 4 || s.Mean != 162.5 || s.Median != 150 || s.Min != 50 || s.Max != 300 || s.Moves != 61 {
		t.Errorf("Summarize = %+v", s)
	}
	if s.Reach != [5]float64{0.75, 0.5, 0.25, 0.25, 0.25} {
		t.Errorf("Reach = %v", s.Reach)
	}
}

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
