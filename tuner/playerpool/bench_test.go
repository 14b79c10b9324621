package playerpool

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/internal/cputime"
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

// BenchmarkCPU counts the CPU that a move costs evotune and the player
// together, against the same games in process (one slot or worker each), at
// 1 and 3 plies: what a tuning run on N cores pays, where wall time hides
// the player's process on another core. cpu-ms/move is this process's CPU
// plus the player's (Linux: read from /proc, so that its start-up is left
// out; elsewhere only this process's, and the metric says so);
// evotune-cpu-ms/move is this process's alone; k = 8, 32, 64 and 128
// boards a request.
//
//	go test ./tuner/playerpool -run '^$' -bench CPU -benchtime 3s
func BenchmarkCPU(b *testing.B) {
	set := must(eval.Set("standard"))
	for _, depth := range []int{1, 3} {
		fam, err := Probe(context.Background(), playerCommand("serve", fmt.Sprint(depth)), "", Options{})
		if err != nil {
			b.Fatal(err)
		}
		for _, k := range []int{8, 32, 64, 128} {
			b.Run(fmt.Sprintf("plies=%d/protocol/k=%d", depth, k), func(b *testing.B) {
				p := New(1, Options{Batch: k, LogDir: b.TempDir()})
				defer p.Close()
				benchCPU(b, p, fam, fam.Defaults(), func() (time.Duration, bool) { return childCPU(p) })
			})
		}
		b.Run(fmt.Sprintf("plies=%d/inprocess", depth), func(b *testing.B) {
			benchCPU(b, tuner.NewLocalPool(1), tuner.FeaturePlayers{Set: set, Search: standardSearch(depth)}, set.DefaultVector(), nil)
		})
	}
}

// BenchmarkCandidates is BenchmarkCPU for a tuning run's batch: 16
// candidates of 8 games each (a standard run's generation), and for
// comparison one candidate of 64 games, one slot, DefaultBatch, the player
// speaking version 1 (a request holds one candidate's games, 8 at most)
// or version 2 (the games of several candidates), at 1 ply;
// boards/request is what the requests held.
//
//	go test ./tuner/playerpool -run '^$' -bench Candidates -benchtime 3s
func BenchmarkCandidates(b *testing.B) {
	for _, shape := range []struct{ candidates, games int }{{16, 8}, {1, 64}} {
		for _, version := range []string{"1", "2"} {
			b.Run(fmt.Sprintf("candidates=%d/protocol=%s", shape.candidates, version), func(b *testing.B) {
				b.Setenv(testProtocolEnv, version)
				fam, err := Probe(context.Background(), playerCommand("serve", "1"), "", Options{})
				if err != nil {
					b.Fatal(err)
				}
				vs := make([][]float64, shape.candidates)
				for c := range vs {
					vs[c] = fam.Defaults()
					vs[c][0] += float64(c)
				}
				p := New(1, Options{LogDir: b.TempDir()})
				defer p.Close()
				benchCPUOf(b, p, fam, vs, shape.games, func() (time.Duration, bool) { return childCPU(p) })
			})
		}
	}
}

// benchCPU plays one batch of 128 games cut at benchMoves per operation,
// after one that starts the player, and reports CPU per move: this
// process's, and with child's (the player's CPU so far, if it can be read)
// evotune's and the player's together.
func benchCPU(b *testing.B, pool tuner.Pool, players tuner.Players, v []float64, child func() (time.Duration, bool)) {
	// 128 games, so that k up to 128 fills its requests.
	benchCPUOf(b, pool, players, [][]float64{v}, 128, child)
}

// benchCPUOf is benchCPU for the games of several vectors.
func benchCPUOf(b *testing.B, pool tuner.Pool, players tuner.Players, vs [][]float64, games int, child func() (time.Duration, bool)) {
	seeds := testSeeds(games)
	results := make([][]engine.Result, len(vs))
	for c := range results {
		results[c] = make([]engine.Result, games)
	}
	batch := &tuner.Batch{Players: players, Vectors: vs, Seeds: seeds, MaxMoves: benchMoves}
	if err := pool.Play(context.Background(), batch, results, nil); err != nil {
		b.Fatal(err)
	}
	var c0 time.Duration
	ok := child != nil
	if ok {
		c0, ok = child()
	}
	s0, err := cputime.Process()
	if err != nil {
		b.Skip("no CPU clock:", err)
	}
	var r0, n0 int64
	pp, _ := pool.(*Pool)
	if pp != nil {
		r0, n0 = pp.Requests()
	}
	moves := 0
	for b.Loop() {
		if err := pool.Play(context.Background(), batch, results, nil); err != nil {
			b.Fatal(err)
		}
		for _, rs := range results {
			for _, r := range rs {
				moves += r.Moves
			}
		}
	}
	s1, _ := cputime.Process()
	if pp != nil {
		r1, n1 := pp.Requests()
		b.ReportMetric(float64(n1-n0)/float64(r1-r0), "boards/request")
	}
	own := float64((s1 - s0).Nanoseconds()) / 1e6 / float64(moves)
	b.ReportMetric(own, "evotune-cpu-ms/move")
	switch {
	case child == nil:
		b.ReportMetric(own, "cpu-ms/move")
	case ok:
		if c1, ok := child(); ok {
			b.ReportMetric(own+float64((c1-c0).Nanoseconds())/1e6/float64(moves), "cpu-ms/move")
		}
	}
}

// childCPU reads the CPU time of the pool's first slot's player while it
// runs (Linux, Windows); ok is false elsewhere. Linux's clock counts in
// ticks of 10 ms: run the benchmark for seconds.
func childCPU(p *Pool) (time.Duration, bool) {
	s := p.slots[0]
	if s.proc == nil {
		return 0, false
	}
	return s.proc.tree.CPU()
}
