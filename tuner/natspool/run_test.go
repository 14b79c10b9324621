package natspool

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/tuner"
)

// countingPool counts the games its pool reports.
type countingPool struct {
	p     tuner.Pool
	games atomic.Int64
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
validation: {every: 2, games: 6}
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
func finished(t *testing.T, dir string) (weights, history, checkpoint string) {
	t.Helper()
	read := func(path string) string {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	weights = read(filepath.Join(dir, tuner.WeightsFile))
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
// on two workers (one with two slots) plus a slot of the coordinator's own:
// the files are the same, byte for byte.
func TestRunMatchesLocal(t *testing.T) {
	tmp := t.TempDir()
	local := filepath.Join(tmp, "local")
	runTo(t, local, tuner.NewLocalPool(2))

	s := startServer(t, Credentials{})
	a := newWorker(t, connect(t, s, "a"), "a", 1)
	b := newWorker(t, connect(t, s, "b"), "b", 2)
	startWorker(t, a)
	startWorker(t, b)
	p := newPool(t, connect(t, s, "c"), Options{Run: "natspool", GamesPerJob: 3, LocalSlots: 1, LocalName: "coordinator"})
	remote := filepath.Join(tmp, "remote")
	counted := &countingPool{p: p}
	runTo(t, remote, counted)
	var played int64
	for _, w := range []*Worker{a, b, p.local} {
		_, games := w.Played()
		played += games
	}
	if played != counted.games.Load() {
		t.Errorf("workers played %d games, the run asked for %d", played, counted.games.Load())
	}

	lw, lh, lc := finished(t, local)
	rw, rh, rc := finished(t, remote)
	if rw != lw {
		t.Errorf("weights.yaml differs:\n%s\nlocal:\n%s", rw, lw)
	}
	if rh != lh {
		t.Errorf("history differs:\n%s\nlocal:\n%s", rh, lh)
	}
	if rc != lc {
		t.Errorf("last checkpoint differs")
	}
}
