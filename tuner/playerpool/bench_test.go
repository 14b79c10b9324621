package playerpool

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/tuner"
)

// benchGames and benchMoves size one benchmark operation: a batch of
// games cut at a move limit, so that a 5-ply operation takes seconds, not
// minutes; games/s then counts games of that many moves.
const (
	benchGames = 16
	benchMoves = 300
)

// benchBatch plays one batch per operation of the standard set's defaults
// and reports games and moves per second.
func benchBatch(b *testing.B, pool tuner.Pool, players tuner.Players, v []float64) {
	seeds := testSeeds(benchGames)
	results := [][]engine.Result{make([]engine.Result, benchGames)}
	batch := &tuner.Batch{Players: players, Vectors: [][]float64{v}, Seeds: seeds, MaxMoves: benchMoves}
	moves := 0
	start := time.Now()
	for b.Loop() {
		if err := pool.Play(context.Background(), batch, results, nil); err != nil {
			b.Fatal(err)
		}
		for _, r := range results[0] {
			moves += r.Moves
		}
	}
	el := time.Since(start).Seconds()
	b.ReportMetric(float64(b.N*benchGames)/el, "games/s")
	b.ReportMetric(float64(moves)/el, "moves/s")
}

// BenchmarkOverhead compares games through the protocol, with the built-in
// player in a child process (evotune player's code), with the same games
// in process on the local pool, one slot or worker each, at 3 and 5 plies.
// Run it interleaved (see CONTRIBUTING.md) and compare games/s.
func BenchmarkOverhead(b *testing.B) {
	set := must(eval.Set("standard"))
	for _, depth := range []int{3, 5} {
		b.Run(fmt.Sprintf("plies=%d/protocol", depth), func(b *testing.B) {
			fam, err := Probe(context.Background(), playerCommand("serve", fmt.Sprint(depth)), "", Options{})
			if err != nil {
				b.Fatal(err)
			}
			p := New(1, Options{LogDir: b.TempDir()})
			defer p.Close()
			benchBatch(b, p, fam, fam.Defaults())
		})
		b.Run(fmt.Sprintf("plies=%d/inprocess", depth), func(b *testing.B) {
			benchBatch(b, tuner.NewLocalPool(1), tuner.FeaturePlayers{Set: set, Search: standardSearch(depth)}, set.DefaultVector())
		})
	}
}

// BenchmarkBatch measures games/s through the protocol for k games at a
// time in lockstep, at 3 plies on one slot: what DefaultBatch was chosen
// by.
func BenchmarkBatch(b *testing.B) {
	fam, err := Probe(context.Background(), playerCommand("serve", "3"), "", Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, k := range []int{1, 2, 4, 8, 16} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			p := New(1, Options{Batch: k, LogDir: b.TempDir()})
			defer p.Close()
			benchBatch(b, p, fam, fam.Defaults())
		})
	}
}
