package tuner

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/internal/golden"
)

// aheadConfig validates after every generation, so that every validation
// but the last shares the slots with the next generation's first batch;
// noise handling makes that batch its first racing round.
func aheadConfig(t *testing.T, noise bool) *Config {
	t.Helper()
	return aheadConfigValidating(t, noise, ", select: 6")
}

// aheadConfigValidating is aheadConfig with other keys of validation
// (", select: 0", say).
func aheadConfigValidating(t *testing.T, noise bool, validation string) *Config {
	t.Helper()
	cfg, err := ReadConfig([]byte(fmt.Sprintf(`
name: ahead
seed: 17
generations: 5
optimizer: {population: 5}
search: {depth: 1}
fitness: {games: 8, max_moves: 150}
validation: {games: 6%s}
%s
checkpoints: {keep: 2}
`, validation, map[bool]string{true: "noise: {handling: true, games: [4, 8]}", false: "noise: {handling: false}"}[noise])), "ahead.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// sharingPool is a shared pool that counts the games it plays and shows
// that a validation and the next generation share the slots: the first
// game of each validation that has a batch played ahead beside it (the
// start's; not the last, after generation last), once over, holds its
// slot until a game of that batch is over too. Were the batches played one after the
// other, the ahead batch would wait for the validation, which waits for
// it: the validation gives up after a while, and the test fails.
type sharingPool struct {
	p       *LocalPool
	runSeed uint64
	last    int // the final validation's batch generation
	played  atomic.Int64

	mu          sync.Mutex
	validations int   // validations begun, but the final one
	aheadDone   []int // by ahead batch, in the order they began: its games over

	met, missed atomic.Int64 // validations that saw their ahead game end, or waited in vain
}

func (sp *sharingPool) Shared() bool { return true }

func (sp *sharingPool) Play(ctx context.Context, b *Batch, results [][]engine.Result, done GameDone) error {
	validation := len(b.Seeds) > 0 && b.Seeds[0] == ValidationSeed(sp.runSeed, 0) && b.Generation != sp.last
	sp.mu.Lock()
	index := -1 // of the ahead batch, or of the validation
	switch {
	case b.Ahead:
		index = len(sp.aheadDone)
		sp.aheadDone = append(sp.aheadDone, 0)
	case validation:
		index = sp.validations
		sp.validations++
	}
	sp.mu.Unlock()
	var first atomic.Bool
	return sp.p.Play(ctx, b, results, func(j Job, r engine.Result, replayed bool) {
		sp.played.Add(1)
		if b.Ahead {
			sp.mu.Lock()
			sp.aheadDone[index]++
			sp.mu.Unlock()
		}
		if validation && first.CompareAndSwap(false, true) {
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
				sp.mu.Lock()
				over := len(sp.aheadDone) > index && sp.aheadDone[index] > 0
				sp.mu.Unlock()
				if over {
					sp.met.Add(1)
					break
				}
				if time.Now().After(deadline) {
					sp.missed.Add(1)
					break
				}
			}
		}
		if done != nil {
			done(j, r, replayed)
		}
	})
}

// TestAheadSharesSlots runs a tuning run on a pool of two slots, and
// checks that the start's validation shares the slots with the first
// generation's games (the final race's, which ends the run, has nothing
// beside it); that no game is played twice; and that the run writes the
// bytes it writes when its batches are played one at a time.
func TestAheadSharesSlots(t *testing.T) {
	for _, c := range []struct {
		noise      bool
		validation string
	}{
		{false, ", select: 6"}, {true, ", select: 6"}, {false, ", select: 6, finalists: 2"}, {false, ", select: 0"},
	} {
		noise := c.noise
		t.Run(fmt.Sprintf("noise=%v%s", noise, c.validation), func(t *testing.T) {
			cfg := aheadConfigValidating(t, noise, c.validation)
			want := runWith(t, cfg, Sequential(NewLocalPool(2)))
			sp := &sharingPool{p: NewLocalPool(2), runSeed: cfg.Seed, last: cfg.Generations - 1}
			dir := filepath.Join(t.TempDir(), "run")
			r, err := Create(aheadConfigValidating(t, noise, c.validation), dir, Options{Pool: sp})
			if err != nil {
				t.Fatal(err)
			}
			runToEnd(t, r)
			if diff := readRun(t, dir).equal(want); diff != "" {
				t.Errorf("sharing the slots changed %s", diff)
			}
			if met, missed := sp.met.Load(), sp.missed.Load(); met != 1 || missed > 0 {
				t.Errorf("%d validations shared the slots with the next generation, %d waited in vain for it; want the start's and none", met, missed)
			}
			if played, counted := sp.played.Load(), r.Tuner().State().Games; played != counted {
				t.Errorf("the pool played %d games, the run counts %d", played, counted)
			}
		})
	}
}

// runWith runs cfg to its end on pool in a fresh directory and returns its
// files.
func runWith(t *testing.T, cfg *Config, pool Pool) runFiles {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	r, err := Create(cfg, dir, Options{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, r)
	return readRun(t, dir)
}

// TestAheadSameBytes runs the same run with 1, 3 and 16 slots, playing
// ahead, and one batch at a time: the files are the same.
func TestAheadSameBytes(t *testing.T) {
	for _, noise := range []bool{false, true} {
		want := runWith(t, aheadConfig(t, noise), Sequential(NewLocalPool(1)))
		for _, workers := range []int{1, 3, 16} {
			if diff := runWith(t, aheadConfig(t, noise), NewLocalPool(workers)).equal(want); diff != "" {
				t.Errorf("noise %v, %d workers: %s differs from one batch at a time", noise, workers, diff)
			}
		}
	}
}

// TestAheadGolden pins a whole run with noise handling on three workers,
// the start's validation played beside the first generation's first racing
// round: its history without clock fields and its last checkpoint. The
// golden files are checked against the same config played one batch at a
// time (TestAheadSameBytes): playing ahead changes no byte. A change of the
// tuner's results rewrites them with go test ./tuner -run AheadGolden
// -update.
func TestAheadGolden(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	r, err := Create(aheadConfig(t, true), dir, Options{Pool: NewLocalPool(3)})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, r)
	f := readRun(t, dir)
	golden.Check(t, filepath.Join("testdata", "ahead-history.golden"), f.history)
	golden.Check(t, filepath.Join("testdata", "ahead-checkpoint.golden"), f.checkpoint)
}

// TestAheadResume interrupts a run at many points, in validations and the
// games played ahead beside them, and resumes it: it ends with the
// uninterrupted run's bytes, and no finished game is played again (each
// interruption loses at most the games in flight, one per slot): games
// played ahead are journalled under the generation they are replayed
// from, and kept when a checkpoint empties the journal.
func TestAheadResume(t *testing.T) {
	const workers = 2
	want := runWith(t, aheadConfig(t, true), NewLocalPool(workers))
	total := int64(0)
	{
		cp := &countedPool{p: NewLocalPool(workers)}
		runWith(t, aheadConfig(t, true), cp)
		total = cp.played.Load()
	}
	cuts := [][]int64{{5}, {11}, {40}, {47}, {52}, {90}, {12, 30}, {3, 3, 3, 3}}
	if testing.Short() {
		cuts = cuts[:3]
	}
	for _, cut := range cuts {
		cp := &countedPool{p: NewLocalPool(workers)}
		got := resumeAfterCuts(t, aheadConfig(t, true), cut, func(bool) Options { return Options{Pool: cp} })
		if diff := got.equal(want); diff != "" {
			t.Errorf("cuts %v: the resumed run differs in %s", cut, diff)
		}
		if lost := cp.played.Load() - total; lost < 0 || lost > int64(workers*len(cut)) {
			t.Errorf("cuts %v: %d games played, %d without interruption: %d lost, want at most %d (the games in flight)", cut, cp.played.Load(), total, lost, workers*len(cut))
		}
	}
}

// countedPool counts the games its shared pool plays to their end.
type countedPool struct {
	p      Pool
	played atomic.Int64
}

func (cp *countedPool) Shared() bool { return shared(cp.p) }

func (cp *countedPool) Play(ctx context.Context, b *Batch, results [][]engine.Result, done GameDone) error {
	return cp.p.Play(ctx, b, results, func(j Job, r engine.Result, replayed bool) {
		cp.played.Add(1)
		if done != nil {
			done(j, r, replayed)
		}
	})
}
