package natspool

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// BenchmarkJobOverhead measures what a job costs beyond its games: batches
// of 64 one-game jobs whose games stop after one move (microseconds of
// play), through an embedded server on loopback and one in-process worker
// of 1 or 4 slots. The ms/job metric is wall time per job: publishing,
// fetching, acking, the result's publication and its collection.
func BenchmarkJobOverhead(b *testing.B) {
	for _, slots := range []int{1, 4} {
		b.Run(fmt.Sprintf("slots=%d", slots), func(b *testing.B) {
			s := startServer(b, Credentials{})
			startWorker(b, newWorker(b, connect(b, s, "w"), "w", slots))
			p := newPool(b, connect(b, s, "c"), Options{GamesPerJob: 1})
			batch := testBatch(rand.New(rand.NewPCG(1, 1)), 0, 1, 64, false)
			batch.MaxMoves = 1
			results := newResults(batch)
			b.ReportAllocs()
			start := time.Now()
			for b.Loop() {
				if err := p.Play(context.Background(), batch, results, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N*len(batch.Seeds)), "ms/job")
		})
	}
}
