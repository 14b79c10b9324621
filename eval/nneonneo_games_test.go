package eval

import (
	"flag"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/engine/stats"
	"github.com/evotune/evotune/internal/cputime"
)

var (
	nnGames = flag.Int("nngames", 10, "BenchmarkNneonneoGames: games per run")
	nnCap   = flag.Int("nncap", 2, "BenchmarkNneonneoGames: depth cap")
)

// BenchmarkNneonneoGames plays whole seeded games with the program's player
// (the nneonneo set at its defaults, the compatible search), for comparing
// score and CPU per move with the program itself at the same cap and count
// of games (the spawn procedures differ, so compare distributions):
//
//	go test ./eval -run '^$' -bench NneonneoGames -benchtime 1x -nngames 100 -nncap 2
//
// CPU time is the process's (a single goroutine plays), as the program
// measures its own.
func BenchmarkNneonneoGames(b *testing.B) {
	s, err := engine.NewNneonneo(nneonneoSet.Default(), engine.NneonneoOptions{Cap: *nnCap})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		results := make([]engine.Result, *nnGames)
		cpu0, err := cputime.Process()
		if err != nil {
			b.Fatal(err)
		}
		for i := range results {
			results[i] = engine.Play(engine.GameSeed(2048, uint64(i)), s)
		}
		cpu1, err := cputime.Process()
		if err != nil {
			b.Fatal(err)
		}
		cpu := cpu1 - cpu0
		sum := stats.Summarize(results)
		b.ReportMetric(sum.Mean, "mean-score")
		b.ReportMetric(sum.CI95, "ci95")
		b.ReportMetric(sum.Median, "median-score")
		b.ReportMetric(sum.Reach[0], "reach-2048")
		b.ReportMetric(sum.Reach[1], "reach-4096")
		b.ReportMetric(sum.Reach[2], "reach-8192")
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(sum.Moves), "cpu-ms/move")
		b.ReportMetric(float64(sum.Moves)/float64(sum.Games), "moves/game")
	}
}
