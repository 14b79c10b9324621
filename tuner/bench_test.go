package tuner

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/evotune/evotune/configs"
)

// BenchmarkQuickGeneration runs generations of the quick preset with 1 and
// 2 workers and reports games per second and the share of the wall-clock
// time spent outside the games: asking, telling, compiling weights,
// statistics and bookkeeping. Run it with -benchtime 5x: each generation
// plays 8 candidates × 32 games.
func BenchmarkQuickGeneration(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) { benchGeneration(b, workers) })
	}
}

func benchGeneration(b *testing.B, workers int) {
	data, file, err := configs.Get("quick")
	if err != nil {
		b.Fatal(err)
	}
	cfg, err := ReadConfig(data, file)
	if err != nil {
		b.Fatal(err)
	}
	cfg.Validation.Every = 1 << 20 // generations only; validations are games too
	cfg.Workers = workers
	t, err := New(cfg, Options{})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	now := func() time.Duration { return time.Since(start) }
	games := int64(0)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := t.Step(context.Background(), now); err != nil {
			b.Fatal(err)
		}
		games += int64(t.Lambda() * cfg.Fitness.Games)
	}
	total := b.Elapsed()
	b.ReportMetric(100*(1-t.gameTime.Seconds()/total.Seconds()), "%overhead")
	b.ReportMetric(float64(games)/total.Seconds(), "games/s")
}
