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

// A scalingShape is a run the scaling benchmark tunes: 32 candidates x 8
// games a generation, and what the shape adds to that.
type scalingShape struct {
	name   string // the sub-benchmark's name for it
	yaml   string // config keys beside the common ones
	player string // keys of the player section beside its command
}

var (
	// shapeRun is a whole run at the defaults: 4 generations of games of
	// at most 50 moves, validation of 100 games at the start and at the
	// end, the first beside generation 1.
	shapeRun = scalingShape{name: "run", yaml: "generations: 4\nfitness: {games: 8, max_moves: 50}"}
	// shape32x8 is the run of generations alone: 6 generations of games
	// of at most 50 moves (all but a few reach the limit, so games cost
	// the same), validated on 2 games at the start and the end, with no
	// race for the recommendation, so that its figure (gen-games/s,
	// of-4-slots) is what a generation of 32 x 8 games costs from one
	// generation's end to the next's, the coordinator's work between them
	// included.
	shape32x8 = scalingShape{name: "32x8", yaml: "generations: 6\nvalidation: {games: 2, select: 0}\nfitness: {games: 8, max_moves: 50}"}
	// shape32x8Varied is shape32x8 with games as long as they last, as a
	// real player's are: the candidates lie in a box of weak weights
	// (empty cells count against a board), whose games end after 20 to
	// 300 moves, about 90 on average, shorter or longer by candidate and
	// by game; 4 generations.
	shape32x8Varied = scalingShape{name: "varied", yaml: "generations: 4\nvalidation: {games: 2, select: 0}\nfitness: {games: 8, max_moves: 300}",
		player: `  init: {monotonicity: 0, smoothness: 0, empty: -270, corner: 0, merge: 0}
  bounds: {monotonicity: [-20, 20], smoothness: [-20, 20], empty: [-400, -150], corner: [-50, 50], merge: [-50, 50]}
`}
)

// scalingConfig is the run of shape the scaling benchmark tunes.
func scalingConfig(b *testing.B, shape scalingShape, cmd []string, d *tuner.PlayerDeclaration) *tuner.Config {
	b.Helper()
	cfg, err := tuner.ParseConfig([]byte(fmt.Sprintf(`
name: scaling
seed: 11
%s
optimizer: {population: 32}
noise: {handling: false, racing: false}
player:
  command: [%s, %s, %s, %s, %s]
%s`, shape.yaml, strconv.Quote(cmd[0]), strconv.Quote(cmd[1]), strconv.Quote(cmd[2]), strconv.Quote(cmd[3]), strconv.Quote(cmd[4]), shape.player)), "scaling.yaml")
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
// every slot waited for the coordinator; and when each generation's batch
// (one of more than one candidate) ended. It is shared, as its pool is.
type batchTimer struct {
	p       *Pool
	workers []*Worker
	slots   int
	mu      sync.Mutex
	lines   []string
	between time.Duration
	last    time.Time
	playing int
	ends    []time.Time     // of the generations' batches, in order
	games   []int           // of the generations' batches, in order
	played  []time.Duration // the slots' playing time (busy) at each of ends
}

func (bt *batchTimer) Shared() bool { return bt.p.Shared() }

func (bt *batchTimer) busy() time.Duration {
	var d time.Duration
	for _, w := range bt.workers {
		d += time.Duration(w.busy.Load())
	}
	return d
}

// joined returns the jobs the workers' slots have joined to others.
func (bt *batchTimer) joined() int64 {
	var n int64
	for _, w := range bt.workers {
		n += w.joined.Load()
	}
	return n
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
	if len(b.Vectors) > 1 {
		bt.ends, bt.games, bt.played = append(bt.ends, time.Now()), append(bt.games, games), append(bt.played, bt.busy())
	}
	what := ""
	if b.Ahead {
		what = ", ahead"
	}
	bt.lines = append(bt.lines, fmt.Sprintf("generation %d: %d candidates x %d games%s: %.2f s, slots idle %.0f%%",
		b.Generation, len(b.Vectors), games/len(b.Vectors), what, wall.Seconds(), 100*(1-played.Seconds()/(wall.Seconds()*float64(bt.slots)))))
	return err
}

// generations returns the games of the generations after the first over
// the time from the first's end to the last's: what a generation costs
// in a run's steady state, the coordinator's work between two included;
// and the share of the slots' time over the same span not spent playing.
func (bt *batchTimer) generations() (gamesPerSecond, idle float64, ok bool) {
	if len(bt.ends) < 2 {
		return 0, 0, false
	}
	games := 0
	for _, g := range bt.games[1:] {
		games += g
	}
	last := len(bt.ends) - 1
	span := bt.ends[last].Sub(bt.ends[0]).Seconds()
	played := (bt.played[last] - bt.played[0]).Seconds()
	return float64(games) / span, 1 - played/(span*float64(bt.slots)), true
}

// BenchmarkScaling tunes a run of each scalingShape through an embedded
// server on loopback and in-process workers of 2 slots each, whose player
// (the test binary, one process per slot) sleeps scalingPerBoard a board:
// the games cost wall time and little CPU, so a 2-core machine measures
// how the pool scales to 4, 16 and 64 slots. The whole run (shapeRun) is
// played with its jobs cut as they are (jobs=guided: shrinking towards a
// batch's end) and as they were (jobs=fixed: 4 games each); the runs of
// generations alone, of games of one length (shape=32x8) and of varied
// lengths (shape=varied), as they are.
//
// games/s is the run's games over its wall time; linear is games/s per
// slot over what a slot can play, one game of 50 moves per 50 x
// scalingPerBoard (for shape=varied, whose games are longer, a figure to
// compare between slot counts only); idle is the fraction of slot time
// not spent playing; boards/request is what the workers' players were
// asked per move request (the sleep is per board, so it changes no game's
// cost), joined the jobs they played joined to another (see Worker). The shapes of generations alone add
// gen-games/s, the generations' games after the first over the time from
// the first's end to the last's, gen-idle, the share of the slots' time
// over the same span not spent playing, and of-4-slots, gen-games/s over
// N/4 times the 4-slot figure of the same invocation (so 4 slots must run
// first, as they do unless the pattern leaves them out). of-4-slots counts
// as lost what the slots' players lose to each other on a machine of few
// cores (each slot's game takes longer with more of them); 1 - gen-idle
// at N slots over the same at 4 does not: it is what the pool loses. Every slot count
// of a shape writes the same files. Run it once per count: go test
// ./tuner/natspool -run XXX -bench 'Scaling/shape=32x8' -benchtime 1x -v
// (the log shows each batch's time and idle slots).
func BenchmarkScaling(b *testing.B) {
	cmd := sleepCommand("standard", 1, scalingPerBoard, "")
	fam, err := playerpool.Probe(context.Background(), cmd, "", playerpool.Options{})
	if err != nil {
		b.Fatal(err)
	}
	want := map[string]string{}     // by shape: the first count's history and checkpoint
	genRate := map[string]float64{} // by shape: gen-games/s at 4 slots
	type scalingCase struct {
		name  string
		shape scalingShape
		fixed bool
		slots int
	}
	var cases []scalingCase
	for _, jobs := range []string{"guided", "fixed"} {
		for _, slots := range []int{4, 16, 64} {
			cases = append(cases, scalingCase{fmt.Sprintf("jobs=%s/slots=%d", jobs, slots), shapeRun, jobs == "fixed", slots})
		}
	}
	for _, shape := range []scalingShape{shape32x8, shape32x8Varied} {
		for _, slots := range []int{4, 16, 64} {
			cases = append(cases, scalingCase{fmt.Sprintf("shape=%s/slots=%d", shape.name, slots), shape, false, slots})
		}
	}
	for _, c := range cases {
		slots := c.slots
		b.Run(c.name, func(b *testing.B) {
			s := startServer(b, Credentials{})
			// The workers' players count their requests; the
			// coordinator's (for the run's checks) does not.
			counts := b.TempDir()
			wcmd := sleepCommand("standard", 1, scalingPerBoard, counts)
			var workers []*Worker
			logs := b.TempDir()
			for i := range slots / 2 {
				name := fmt.Sprintf("w%d", i)
				w, err := NewWorker(connect(b, s, name), WorkerOptions{Name: name, Slots: 2, Logf: b.Logf, Player: wcmd,
					PlayerOptions: playerpool.Options{LogDir: filepath.Join(logs, name)}})
				if err != nil {
					b.Fatal(err)
				}
				startWorker(b, w)
				workers = append(workers, w)
			}
			p := newPool(b, connect(b, s, "c"), Options{Run: "scaling"})
			p.fixedJobs = c.fixed
			// Every slot starts its player before the run, as the slots
			// of workers serving one run after another have: on many
			// machines the players start at once, where on this one they
			// would take turns on its cores. So the fleet first waits
			// for a job, then plays a game of 5 moves per slot, which is
			// long enough for every slot to take one.
			waitSlots(b, p, slots)
			warm := &tuner.Batch{Players: fam, Seeds: []uint64{1}, MaxMoves: 5}
			for range slots {
				warm.Vectors = append(warm.Vectors, fam.Defaults())
			}
			if err := p.Play(context.Background(), warm, newResults(warm), nil); err != nil {
				b.Fatal(err)
			}
			if started, _ := filepath.Glob(filepath.Join(logs, "*", "slot-*.log")); len(started) != slots {
				b.Fatalf("%d of %d slots started their player before the run", len(started), slots)
			}
			// And waits for a job again, as a fleet between two runs
			// does: the pool counts the slots waiting, or playing, when
			// a batch begins.
			waitSlots(b, p, slots)
			for b.Loop() {
				cfg := scalingConfig(b, c.shape, cmd, fam.Declaration())
				bt := &batchTimer{p: p, workers: workers, slots: slots}
				warmed, joined := bt.busy(), bt.joined()
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
				b.ReportMetric(float64(bt.joined()-joined), "joined")
				if c.shape != shapeRun {
					rate, idle, ok := bt.generations()
					if !ok {
						b.Fatalf("the run played %d generations' batches, want 2 or more", len(bt.ends))
					}
					b.ReportMetric(rate, "gen-games/s")
					b.ReportMetric(idle, "gen-idle")
					if slots == 4 {
						genRate[c.shape.name] = rate
					}
					if r4 := genRate[c.shape.name]; r4 > 0 {
						b.ReportMetric(rate/(float64(slots)/4*r4), "of-4-slots")
					}
				}
				_, history, checkpoint := finished(b, dir)
				if w := want[c.shape.name]; w == "" {
					want[c.shape.name] = history + checkpoint
				} else if history+checkpoint != w {
					b.Errorf("%d slots: the history or the last checkpoint differs from the first count's:\n%s", slots, history)
				}
			}
		})
	}
}
