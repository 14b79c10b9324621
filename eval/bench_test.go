package eval

import (
	"sync"
	"testing"

	"github.com/evotune/evotune/engine"
)

// benchBoards are realistic positions from greedy games, built once.
var benchBoards = sync.OnceValue(func() []engine.Board { return gameBoards(8) })

func benchmarkEvaluate(b *testing.B, e engine.Evaluator) {
	boards := benchBoards()
	var sink float64
	n := 0
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, x := range boards {
			sink += e.Evaluate(x)
		}
		n += len(boards)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "boards/s")
	b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(n), "ns/board")
	_ = sink
}

// BenchmarkEvaluate calls the concrete method, as a specialised searcher
// would; BenchmarkEvaluateInterface goes through engine.Evaluator, as the
// engine's searchers do.
func BenchmarkEvaluate(b *testing.B) {
	for _, s := range registry {
		c := s.Default().(*compiled)
		b.Run(s.Name, func(b *testing.B) {
			boards := benchBoards()
			var sink float64
			n := 0
			b.ReportAllocs()
			for b.Loop() {
				for _, x := range boards {
					sink += c.Evaluate(x)
				}
				n += len(boards)
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "boards/s")
			b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(n), "ns/board")
			_ = sink
		})
	}
}

func BenchmarkEvaluateInterface(b *testing.B) {
	for _, s := range registry {
		b.Run(s.Name, func(b *testing.B) { benchmarkEvaluate(b, s.Default()) })
	}
}

func BenchmarkFeatures(b *testing.B) {
	s, _ := Set("standard")
	boards := benchBoards()
	f := make([]float64, len(s.Features))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for _, x := range boards {
			f = s.FeatureVector(x, nil, f)
		}
		n += len(boards)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "boards/s")
}

func BenchmarkCompile(b *testing.B) {
	for _, s := range registry {
		b.Run(s.Name, func(b *testing.B) {
			s.Compile(s.Defaults) // build the shared line tables outside the timing
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Compile(s.Defaults); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
