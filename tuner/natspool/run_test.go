package natspool

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/tuner"
)

// countingPool counts the games its pool reports; it is shared when its
// pool is.
type countingPool struct {
	p     tuner.Pool
	games atomic.Int64
}

func (cp *countingPool) Shared() bool {
	sp, ok := cp.p.(tuner.SharedPool)
	return ok && sp.Shared()
}

func (cp *countingPool) Play(ctx context.Context, b *tuner.Batch, results [][]engine.Result, done tuner.GameDone) error {
	return cp.p.Play(ctx, b, results, func(j tuner.Job, r engine.Result, replayed bool) {
		cp.games.Add(1)
		if done != nil {
			done(j, r, replayed)
		}
	})
}

func runConfig(t *testing.T) *tuner.Config {
	t.Helper()
	cfg, err := tuner.ReadConfig([]byte(`
name: natspool
seed: 7
generations: 4
optimizer: {population: 4}
search: {depth: 1}
fitness: {games: 5, max_moves: 200}
validation: {games: 6}
checkpoints: {keep: 2}
`), "natspool.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func runTo(t *testing.T, dir string, pool tuner.Pool) {
	t.Helper()
	r, err := tuner.Create(runConfig(t), dir, tuner.Options{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// finished is what two runs are compared by: the weights file, the history
// without wall-clock times, and the newest checkpoint.
func finished(t testing.TB, dir string) (weights, history, checkpoint string) {
	t.Helper()
	read := func(path string) string {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	if _, err := os.Stat(filepath.Join(dir, tuner.WeightsFile)); !os.IsNotExist(err) {
		weights = read(filepath.Join(dir, tuner.WeightsFile)) // a player's run has none
	}
	for _, line := range strings.SplitAfter(read(filepath.Join(dir, tuner.HistoryFile)), "\n") {
		if i := strings.LastIndex(line, `,"elapsed_s":`); i >= 0 {
			line = line[:i] + "}\n"
		}
		history += line
	}
	entries, err := os.ReadDir(filepath.Join(dir, "checkpoints"))
	if err != nil || len(entries) == 0 {
		t.Fatalf("no checkpoints in %s: %v", dir, err)
	}
	checkpoint = read(filepath.Join(dir, "checkpoints", entries[len(entries)-1].Name()))
	return weights, history, checkpoint
}

// TestRunMatchesLocal runs the same small tuning run on the local pool and
// on workers: one of one slot; two (one with two slots) plus a slot of the
// coordinator's own; three of four slots each, for which the batches are
// cut into more, smaller jobs; and four of four. The validations share the
// slots with the next generation's games (the pool is shared). The files
// are the same, byte for byte.
func TestRunMatchesLocal(t *testing.T) {
	tmp := t.TempDir()
	local := filepath.Join(tmp, "local")
	runTo(t, local, tuner.NewLocalPool(2))
	lw, lh, lc := finished(t, local)

	for i, fleet := range []struct {
		slots      []int
		localSlots int
	}{{[]int{1}, 0}, {[]int{1, 2}, 1}, {[]int{4, 4, 4}, 0}, {[]int{4, 4, 4, 4}, 0}} {
		s := startServer(t, Credentials{})
		var workers []*Worker
		for k, n := range fleet.slots {
			name := fmt.Sprintf("w%d", k)
			w := newWorker(t, connect(t, s, name), name, n)
			startWorker(t, w)
			workers = append(workers, w)
		}
		p := newPool(t, connect(t, s, "c"), Options{Run: "natspool", GamesPerJob: 3, LocalSlots: fleet.localSlots, LocalName: "coordinator"})
		if p.local != nil {
			workers = append(workers, p.local)
		}
		remote := filepath.Join(tmp, fmt.Sprint("remote", i))
		counted := &countingPool{p: p}
		runTo(t, remote, counted)
		var played int64
		for _, w := range workers {
			_, games := w.Played()
			played += games
		}
		if played != counted.games.Load() {
			t.Errorf("slots %v: workers played %d games, the run asked for %d", fleet.slots, played, counted.games.Load())
		}

		rw, rh, rc := finished(t, remote)
		if rw != lw {
			t.Errorf("slots %v: weights.yaml differs:\n%s\nlocal:\n%s", fleet.slots, rw, lw)
		}
		if rh != lh {
			t.Errorf("slots %v: history differs:\n%s\nlocal:\n%s", fleet.slots, rh, lh)
		}
		if rc != lc {
			t.Errorf("slots %v: last checkpoint differs", fleet.slots)
		}
	}
}
