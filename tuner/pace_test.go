package tuner

import (
	"context"
	"testing"
	"time"

	"github.com/evotune/evotune/checkpoints"
	"github.com/evotune/evotune/engine"
)

// clockedPool plays each game in per of a fake clock, and cpu of a fake
// CPU clock, one at a time; during its first game it calls also, if not
// nil (another batch in flight).
type clockedPool struct {
	now   *time.Time
	per   time.Duration
	clock *time.Duration // CPU
	cpu   time.Duration
	also  func()
}

func (c *clockedPool) Play(_ context.Context, b *Batch, _ [][]engine.Result, done GameDone) error {
	for i, j := range b.jobs() {
		*c.now = c.now.Add(c.per)
		if c.clock != nil {
			*c.clock += c.cpu
		}
		if i == 0 && c.also != nil {
			also := c.also
			c.also = nil
			also()
		}
		done(j, engine.Result{}, false)
	}
	return nil
}

// TestPacedPool: where there is no CPU clock, the pace of each search is
// its batches' time over their games, the latest weighted most; games
// taken from the journal above it never reach it; time two searches share
// the pool counts for neither.
func TestPacedPool(t *testing.T) {
	now := time.Unix(0, 0)
	inner := &clockedPool{now: &now, per: time.Second}
	pp := newPacedPool(inner)
	pp.now, pp.cpu = func() time.Time { return now }, nil
	shallow, deep := engine.SearchConfig{Depth: 3}, engine.SearchConfig{Depth: 5}
	batch := func(search engine.SearchConfig, games int) *Batch {
		return &Batch{Players: FeaturePlayers{Search: search}, Vectors: make([][]float64, 2), Seeds: make([]uint64, games)}
	}
	if _, ok := pp.perGame(shallow); ok {
		t.Fatal("a pace before any game")
	}
	pp.Play(context.Background(), batch(shallow, 4), nil, nil) // 8 games, 8 s
	if per, ok := pp.perGame(shallow); !ok || per != time.Second {
		t.Errorf("shallow: %v a game, want 1s", per)
	}
	// A deep batch during whose first game a shallow one plays: neither
	// counts the time they share.
	inner.per = 4 * time.Second
	inner.also = func() {
		inner.per = time.Second
		pp.Play(context.Background(), batch(shallow, 1), nil, nil) // 2 games, 2 s, beside
		inner.per = 4 * time.Second
	}
	pp.Play(context.Background(), batch(deep, 2), nil, nil) // 4 games, 16 s, 2 of them shared
	if per, ok := pp.perGame(deep); !ok || per != 4*time.Second {
		t.Errorf("deep: %v a game, want 4s", per)
	}
	if per, _ := pp.perGame(shallow); per != time.Second {
		t.Errorf("shallow after the shared time: %v a game, want 1s", per)
	}
	// (The deep game that ended as the shallow batch did counts: its
	// time before that did.)
	if games, busy := pp.played(); games != 8+4 || busy != 8*time.Second+16*time.Second {
		t.Errorf("played %d games in %v, want 12 in 24s", games, busy)
	}

	// The pace follows the latest games: 64 games of 1 s then 64 of 3 s
	// average 2 s a game; the latest minute's, at least the latest 32
	// games, 2.68 s.
	mid := engine.SearchConfig{Depth: 4}
	inner.per = time.Second
	pp.Play(context.Background(), batch(mid, 32), nil, nil)
	inner.per = 3 * time.Second
	pp.Play(context.Background(), batch(mid, 32), nil, nil)
	if per, _ := pp.perGame(mid); per < 2600*time.Millisecond || per > 2750*time.Millisecond {
		t.Errorf("after 64 games of 1 s and 64 of 3 s: %v a game, want about 2.68s", per)
	}

	// Behind the journal's cache, games it gives back never reach it.
	b := batch(shallow, 2)
	b.Vectors = [][]float64{{1}, {2}}
	var entries []checkpoints.Entry
	for _, w := range b.Vectors {
		for _, seed := range b.Seeds {
			entries = append(entries, checkpoints.Entry{Fingerprint: Fingerprint(w), Seed: seed})
		}
	}
	before, _ := pp.played()
	inner.per = time.Hour // a game played would show
	results := [][]engine.Result{make([]engine.Result, 2), make([]engine.Result, 2)}
	Cached(pp, newJournalCache(entries, 0)).Play(context.Background(), b, results, nil)
	if after, _ := pp.played(); after != before {
		t.Errorf("%d games counted of %d taken from the journal", after-before, len(entries))
	}
}

// TestPacedPoolCPU: with a CPU clock, a game's CPU time follows the latest
// games, which grow longer, and the wall-clock time per CPU second is the
// whole process's, so that a burst of load elsewhere is not taken for the
// rest of the run.
func TestPacedPoolCPU(t *testing.T) {
	now, cpu := time.Unix(0, 0), time.Duration(0)
	inner := &clockedPool{now: &now, per: time.Second, clock: &cpu, cpu: 2 * time.Second}
	pp := newPacedPool(inner)
	pp.now = func() time.Time { return now }
	pp.cpu = func() (time.Duration, error) { return cpu, nil }
	search := engine.SearchConfig{Depth: 5}
	batch := &Batch{Players: FeaturePlayers{Search: search}, Vectors: make([][]float64, 4), Seeds: make([]uint64, 16)}
	pp.Play(context.Background(), batch, nil, nil) // 64 games of 2 CPU s in 1 s: 2 cores
	if per, _ := pp.perGame(search); per != time.Second {
		t.Errorf("%v a game, want 1s", per)
	}
	// Load elsewhere: 16 games of the same CPU take 4 s each.
	inner.per = 4 * time.Second
	batch.Seeds = batch.Seeds[:4]
	pp.Play(context.Background(), batch, nil, nil)
	// The process's 128 s over 160 CPU s, times 2 CPU s a game.
	if per, _ := pp.perGame(search); per != 1600*time.Millisecond {
		t.Errorf("after a burst of load: %v a game, want 1.6s", per)
	}
	// Games twice as long, at the first pace: the latest games' CPU (4 s,
	// the games before weigh 2% now) at the process's 384 s over 672 CPU s.
	inner.per, inner.cpu = 2*time.Second, 4*time.Second
	batch.Seeds = make([]uint64, 32)
	pp.Play(context.Background(), batch, nil, nil)
	if per, _ := pp.perGame(search); per < 2230*time.Millisecond || per > 2290*time.Millisecond {
		t.Errorf("after 128 games twice as long: %v a game, want about 4 s × 384/672 = 2.26 s", per)
	}
}
