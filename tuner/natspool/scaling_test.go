package natspool

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/tuner"
	"github.com/evotune/evotune/tuner/playerpool"
)

// scalingPerBoard is what the scaling benchmark's player spends on a board:
// wall time, no CPU, as a deep search would on a core of its own.
const scalingPerBoard = 10 * time.Millisecond

// scalingConfig is the run the scaling benchmark tunes: 32 candidates x 8
// games of at most 50 moves, 4 generations, validation at the defaults
// (100 games at the start and at the end).
func scalingConfig(b *testing.B, cmd []string, d *tuner.PlayerDeclaration) *tuner.Config {
	b.Helper()
	cfg, err := tuner.ParseConfig([]byte(fmt.Sprintf(`
name: scaling
seed: 11
generations: 4
optimizer: {population: 32}
fitness: {games: 8, max_moves: 50}
noise: {handling: false, racing: false}
player:
  command: [%s, %s, %s, %s, %s]
`, strconv.Quote(cmd[0]), strconv.Quote(cmd[1]), strconv.Quote(cmd[2]), strconv.Quote(cmd[3]), strconv.Quote(cmd[4]))), "scaling.yaml")
	if err != nil {
		b.Fatal(err)
	}
	cfg.Player.Declared = d
	cfg.Resolve()
	if err := cfg.Validate(); err != nil {
		b.Fatal(err)
	}
	return cfg
}

// batchTimer records, for each batch the tuner hands to its pool, its
// games, its wall time and how much of it the workers' slots spent
// playing (any batch's games: a validation shares the slots with the next
// generation's, marked ahead); and the time when no batch was in play and
// every slot waited for the coordinator. It is shared, as its pool is.
type batchTimer struct {
	p       *Pool
	workers []*Worker
	slots   int
	mu      sync.Mutex
	lines   []string
	between time.Duration
	last    time.Time
	playing int
}

func (bt *batchTimer) Shared() bool { return bt.p.Shared() }

func (bt *batchTimer) busy() time.Duration {
	var d time.Duration
	for _, w := range bt.workers {
		d += time.Duration(w.busy.Load())
	}
	return d
}

func (bt *batchTimer) Play(ctx context.Context, b *tuner.Batch, results [][]engine.Result, done tuner.GameDone) error {
	bt.mu.Lock()
	start, busy := time.Now(), bt.busy()
	if bt.playing == 0 && !bt.last.IsZero() {
		bt.between += start.Sub(bt.last)
	}
	bt.playing++
	bt.mu.Unlock()
	err := bt.p.Play(ctx, b, results, done)
	bt.mu.Lock()
	defer bt.mu.Unlock()
	wall, played := time.Since(start), bt.busy()-busy
	bt.playing--
	if bt.playing == 0 {
		bt.last = time.Now()
	}
	games := len(b.Vectors) * len(b.Seeds)
	if b.Jobs != nil {
		games = len(b.Jobs)
	}
	what := ""
	if b.Ahead {
		what = ", ahead"
	}
	bt.lines = append(bt.lines, fmt.Sprintf("generation %d: %d candidates x %d games%s: %.2f s, slots idle %.0f%%",
		b.Generation, len(b.Vectors), games/len(b.Vectors), what, wall.Seconds(), 100*(1-played.Seconds()/(wall.Seconds()*float64(bt.slots)))))
	return err
}

// BenchmarkScaling tunes scalingConfig's run through an embedded server
// on loopback and in-process workers of 2 slots each, whose player (the
// test binary, one process per slot) sleeps scalingPerBoard a board: the
// games cost wall time and little CPU, so a 2-core machine measures how
// the pool scales to 4, 16 and 64 slots, with its jobs cut as they are
// (guided: shrinking towards a batch's end) and as they were (fixed: 4
// games each). games/s is the run's games over its
// wall time; linear is games/s per slot over what a slot can play, one
// game of 50 moves per 50 x scalingPerBoard; idle is the fraction of slot
// time not spent playing; boards/request is what the workers' players
// were asked per move request (the sleep is per board, so it changes no
// game's cost). Every slot count writes the same files. Run it
// once per count: go test ./tuner/natspool -run XXX -bench Scaling
// -benchtime 1x -v (the log shows each batch's time and idle slots).
func BenchmarkScaling(b *testing.B) {
	cmd := sleepCommand("standard", 1, scalingPerBoard, "")
	fam, err := playerpool.Probe(context.Background(), cmd, "", playerpool.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var want string
	for _, c := range []struct {
		jobs  string
		slots int
	}{{"guided", 4}, {"guided", 16}, {"guided", 64}, {"fixed", 4}, {"fixed", 16}, {"fixed", 64}} {
		slots := c.slots
		b.Run(fmt.Sprintf("jobs=%s/slots=%d", c.jobs, slots), func(b *testing.B) {
			s := startServer(b, Credentials{})
			// The workers' players count their requests; the
			// coordinator's (for the run's checks) does not.
			counts := b.TempDir()
			wcmd := sleepCommand("standard", 1, scalingPerBoard, counts)
			var workers []*Worker
			for i := range slots / 2 {
				name := fmt.Sprintf("w%d", i)
				w, err := NewWorker(connect(b, s, name), WorkerOptions{Name: name, Slots: 2, Logf: b.Logf, Player: wcmd,
					PlayerOptions: playerpool.Options{LogDir: filepath.Join(b.TempDir(), name)}})
				if err != nil {
					b.Fatal(err)
				}
				startWorker(b, w)
				workers = append(workers, w)
			}
			p := newPool(b, connect(b, s, "c"), Options{Run: "scaling"})
			p.fixedJobs = c.jobs == "fixed"
			// Every slot starts its player before the run, as the slots
			// of workers serving one run after another have: on many
			// machines the players start at once, where on this one they
			// would take turns on its cores.
			warm := &tuner.Batch{Players: fam, Seeds: []uint64{1}, MaxMoves: 1}
			for range slots {
				warm.Vectors = append(warm.Vectors, fam.Defaults())
			}
			if err := p.Play(context.Background(), warm, newResults(warm), nil); err != nil {
				b.Fatal(err)
			}
			// And waits for a job again, as a fleet between two runs
			// does: the pool counts the slots waiting, or playing, when
			// a batch begins.
			waitSlots(b, p, slots)
			for b.Loop() {
				cfg := scalingConfig(b, cmd, fam.Declaration())
				bt := &batchTimer{p: p, workers: workers, slots: slots}
				warmed := bt.busy()
				requests, boards := readCounts(b, counts)
				counted := &countingPool{p: bt}
				dir := filepath.Join(b.TempDir(), "run")
				start := time.Now()
				r, err := tuner.Create(cfg, dir, tuner.Options{Pool: counted, Players: fam})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := r.Run(context.Background()); err != nil {
					b.Fatal(err)
				}
				r.Close()
				wall := time.Since(start)
				for _, l := range bt.lines {
					b.Log(l)
				}
				games := float64(counted.games.Load())
				perSlot := 1 / (50 * scalingPerBoard.Seconds())
				b.ReportMetric(games/wall.Seconds(), "games/s")
				b.ReportMetric(games/wall.Seconds()/float64(slots)/perSlot, "linear")
				b.ReportMetric(1-(bt.busy()-warmed).Seconds()/(wall.Seconds()*float64(slots)), "idle")
				b.ReportMetric(bt.between.Seconds(), "s-between")
				r2, b2 := readCounts(b, counts)
				b.ReportMetric(float64(b2-boards)/float64(r2-requests), "boards/request")
				_, history, checkpoint := finished(b, dir)
				if want == "" {
					want = history + checkpoint
				} else if history+checkpoint != want {
					b.Errorf("%d slots: the history or the last checkpoint differs from the first count's:\n%s", slots, history)
				}
			}
		})
	}
}
