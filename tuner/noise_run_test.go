package tuner

import (
	"bytes"
	"path/filepath"
	"testing"
)

// noisyConfig is a small run whose noise handling acts: three blocks per
// candidate (so racing can drop candidates after two), bounds that let the
// games per candidate move.
func noisyConfig(t *testing.T) *Config {
	t.Helper()
	return parseResolved(t, `
name: noisy
seed: 7
generations: 5
sigma: 1
optimizer: {population: 8}
search: {depth: 1}
fitness: {games: 12}
validation: {games: 4}
noise: {block: 4, games: [8, 24]}
checkpoints: {keep: 2}
`)
}

// TestNoiseHandlingActs checks that the small run exercises every part of
// noise handling, and that the history's counts add up: the games of a
// generation are the full candidates' blocks, the dropped candidates' first
// blocks and the re-evaluations.
func TestNoiseHandlingActs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	r, err := Create(noisyConfig(t), dir, Options{Pool: NewLocalPool(1)})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, r)
	recs := historyRecords(t, dir)
	if len(recs) != 5 {
		t.Fatalf("%d history lines, want 5", len(recs))
	}
	dropped, moved := 0, false
	prev := recs[0].Games
	for i, rec := range recs {
		n := rec.Noise
		if n == nil {
			t.Fatalf("generation %d: no noise record", rec.Generation)
		}
		if i > 0 && n.Games != recs[i-1].Noise.Next {
			t.Errorf("generation %d plays %d games per candidate, the one before asked for %d", rec.Generation, n.Games, recs[i-1].Noise.Next)
		}
		if n.Games%4 != 0 || n.Games < 8 || n.Games > 24 {
			t.Errorf("generation %d: %d games per candidate, want whole blocks in [8, 24]", rec.Generation, n.Games)
		}
		if n.Next != n.Games {
			moved = true
		}
		// Dropped candidates played 2 or more blocks, the rest all.
		lo := (rec.Lambda-n.Dropped)*n.Games + n.Dropped*8 + n.Reevaluated*n.Games
		hi := (rec.Lambda)*n.Games + n.Reevaluated*n.Games
		if n.Played < lo || n.Played > hi || (n.Dropped == 0 && n.Played != hi) {
			t.Errorf("generation %d: %d games played, want %d..%d (%+v)", rec.Generation, n.Played, lo, hi, *n)
		}
		if n.Reevaluated < 2 || n.Reevaluated > 3 {
			t.Errorf("generation %d: %d re-evaluated, want 2 or 3 (2 + 8/20)", rec.Generation, n.Reevaluated)
		}
		end := int64(0) // the final race and its winner's validation
		if v := rec.Validation; v != nil {
			end = int64(v.Games)
			for _, e := range v.Race.Entrants {
				end += int64(e.Games)
			}
		}
		if got := rec.Games - prev; i > 0 && got != int64(n.Played)+end {
			t.Errorf("generation %d: game count rose by %d, want %d played + %d of the race and validation", rec.Generation, got, n.Played, end)
		}
		prev = rec.Games
		dropped += n.Dropped
	}
	if dropped == 0 {
		t.Error("racing dropped no candidate in 5 generations")
	}
	if !moved {
		t.Error("the games per candidate never changed")
	}
}

// TestNoiseWorkersAndResume: with noise handling on, 1 worker or 4, and
// runs cut anywhere (mid-race, in a re-evaluation, in a validation) and
// resumed, end with the same bytes.
func TestNoiseWorkersAndResume(t *testing.T) {
	want := runOn(t, noisyConfig(t), 1)
	if diff := runOn(t, noisyConfig(t), 4).equal(want); diff != "" {
		t.Errorf("4 workers differ from 1 in %s", diff)
	}

	for _, cuts := range [][]int64{{10}, {70}, {101}, {150, 40}} {
		got := resumeAfterCuts(t, noisyConfig(t), cuts, func(last bool) Options {
			if last {
				return Options{Pool: NewLocalPool(2)}
			}
			return Options{Pool: NewLocalPool(4)}
		})
		if diff := got.equal(want); diff != "" {
			t.Errorf("cuts %v: resumed run differs from the uninterrupted one in %s", cuts, diff)
		}
	}
}

// TestNoiseDefaults: a Config built in Go has noise handling, as a file
// that leaves noise out has, and a checkpoint written before noise handling
// existed resumes without it.
func TestNoiseDefaults(t *testing.T) {
	var c Config
	c.Resolve()
	if !c.Noise.Handling || !c.Noise.Racing || c.Noise.Block != 4 {
		t.Errorf("Go config: noise %+v, want handling and racing on with block 4", c.Noise)
	}
	f, err := ReadConfig([]byte("name: x\n"), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !f.Noise.Handling || !f.Noise.Racing {
		t.Errorf("file without noise: %+v, want handling and racing on", f.Noise)
	}
	old, err := ParseConfig([]byte("name: x\nsearch: {cutoff: 0}\n"), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	old.asCheckpointed(1)
	old.Resolve()
	if old.Noise.Handling || old.Noise.Racing {
		t.Errorf("checkpointed config without noise: %+v, want off", old.Noise)
	}
	data, err := MarshalConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("noise:\n  handling: true\n  block: 4\n")) {
		t.Errorf("resolved config does not write noise handling out:\n%s", data)
	}
}

// TestNoiseStages: in a ladder, each stage's games per candidate start
// from the stage's own games, and no game seed is played twice by the
// tuning games of the run (counters are taken in order across stages).
func TestNoiseStages(t *testing.T) {
	cfg := parseResolved(t, `name: noisy-ladder
seed: 4
generations: 6
optimizer: {population: 6}
search: {depth: 1}
fitness: {games: 8}
validation: {games: 4}
stages:
  - generations: 3
  - search: {depth: 2}
    games: 24
`)
	rp := &recordingPool{p: NewLocalPool(2)}
	dir := filepath.Join(t.TempDir(), "run")
	r, err := Create(cfg, dir, Options{Pool: rp})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, r)
	recs := historyRecords(t, dir)
	if len(recs) != 6 || recs[0].Noise.Games != 8 || recs[3].Noise.Games != 24 {
		t.Fatalf("games per candidate at the start of stages 1 and 2: %+v, %+v; want 8 and 24", recs[0].Noise, recs[3].Noise)
	}
	seen := map[uint64]int{}
	for _, b := range rp.batches {
		if b.Seeds[0] == ValidationSeed(cfg.Seed, 0) {
			continue
		}
		for _, s := range b.Seeds {
			if g, ok := seen[s]; ok && g != b.Generation {
				t.Fatalf("seed %d played in generations %d and %d", s, g, b.Generation)
			}
			seen[s] = b.Generation
		}
	}
}
