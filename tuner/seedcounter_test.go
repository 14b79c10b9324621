package tuner

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/evotune/evotune/checkpoints"
	"github.com/evotune/evotune/engine"
)

// seedsYAML is a two-stage run whose second stage has other games per
// candidate, without or with noise handling.
func seedsYAML(noise bool) string {
	return `name: seeds
seed: 11
generations: 5
optimizer: {population: 4}
search: {depth: 1}
fitness: {games: 3}
validation: {games: 2, select: 0}
checkpoints: {keep: 2}
stages:
  - generations: 2
  - games: 4
    population: 5
` + map[bool]string{true: "noise: {handling: true, block: 2}\n", false: "noise: {handling: false}\n"}[noise]
}

// tuningSeeds returns the seeds of the tuning batches among bs, in order,
// each once (racing plays one generation's seeds in several batches).
func tuningSeeds(cfg *Config, bs []Batch) [][]uint64 {
	var seeds [][]uint64
	for _, b := range bs {
		if len(b.Seeds) == 0 || b.Seeds[0] == ValidationSeed(cfg.Seed, 0) {
			continue
		}
		if n := len(seeds); n > 0 && slices.Equal(seeds[n-1], b.Seeds) {
			continue
		}
		seeds = append(seeds, b.Seeds)
	}
	return seeds
}

// legacyStep is a line of testdata/seeds-legacy.jsonl.
type legacyStep struct {
	Noise bool            `json:"noise"`
	State json.RawMessage `json:"state"`
	Seeds [][]uint64      `json:"seeds"`
}

// stepFrom restores payload (a checkpoint payload of generation gen) into
// a new tuner, plays one generation and returns its tuning seeds.
func stepFrom(t *testing.T, gen int, payload []byte) [][]uint64 {
	t.Helper()
	c := &checkpoints.Checkpoint{RulesVersion: engine.RulesVersion, Generation: gen, Payload: payload}
	cfg, st, _, err := decodeCheckpoint(c, "payload")
	if err != nil {
		t.Fatal(err)
	}
	rp := &recordingPool{p: NewLocalPool(1)}
	tu, err := New(cfg, Options{Pool: rp})
	if err != nil {
		t.Fatal(err)
	}
	if err := tu.Restore(st); err != nil {
		t.Fatal(err)
	}
	if _, err := tu.Step(context.Background(), func() time.Duration { return 0 }); err != nil {
		t.Fatal(err)
	}
	return tuningSeeds(cfg, rp.batches)
}

// TestSeedCounterResume checks that a state resumes on the tuning seeds
// its run went on with, whichever counter wrote it. Before SeedCounter
// counted every run's tuning seeds, a run without noise handling recorded
// only stage_seeds, the first counter of its stage (and in the first stage
// neither field), and a run with it seed_counter (and stage_seeds from its
// second stage). testdata/seeds-legacy.jsonl holds, for seedsYAML without
// and with noise handling, the state before each generation as evotune
// wrote it then (commit 18c4190) and the tuning seeds that generation
// played; it records that format and is never rewritten. Each old state
// must play those seeds; so must this build's uninterrupted run, and each
// state it writes when read back from a checkpoint payload.
func TestSeedCounterResume(t *testing.T) {
	f, err := os.Open("testdata/seeds-legacy.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	steps := map[bool][]legacyStep{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s legacyStep
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		steps[s.Noise] = append(steps[s.Noise], s)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, noise := range []bool{false, true} {
		cfg := parseResolved(t, seedsYAML(noise))
		if len(steps[noise]) != cfg.Generations {
			t.Fatalf("noise %v: %d generations in the file, want %d", noise, len(steps[noise]), cfg.Generations)
		}
		c := *cfg
		c.Workers = 0
		yml, err := MarshalConfig(&c)
		if err != nil {
			t.Fatal(err)
		}
		// The old states, as checkpoint payloads of the same config.
		for g, s := range steps[noise] {
			payload, err := json.Marshal(struct {
				Format       int             `json:"format"`
				Config       string          `json:"config"`
				State        json.RawMessage `json:"state"`
				HistoryLines int             `json:"history_lines"`
			}{payloadFormat, string(yml), s.State, g})
			if err != nil {
				t.Fatal(err)
			}
			if got := stepFrom(t, g, payload); !slices.EqualFunc(got, s.Seeds, slices.Equal) {
				t.Errorf("noise %v: the old state before generation %d plays %v, want %v", noise, g+1, got, s.Seeds)
			}
		}
		// This build, uninterrupted and from each state it writes.
		rp := &recordingPool{p: NewLocalPool(1)}
		tu, err := New(cfg, Options{Pool: rp})
		if err != nil {
			t.Fatal(err)
		}
		if err := tu.ValidateStart(context.Background()); err != nil {
			t.Fatal(err)
		}
		for g, s := range steps[noise] {
			payload, err := encodePayload(cfg, tu.State(), g)
			if err != nil {
				t.Fatal(err)
			}
			if got := stepFrom(t, g, payload); !slices.EqualFunc(got, s.Seeds, slices.Equal) {
				t.Errorf("noise %v: this build's state before generation %d plays %v, want %v", noise, g+1, got, s.Seeds)
			}
			rp.batches = nil
			if _, err := tu.Step(context.Background(), func() time.Duration { return 0 }); err != nil {
				t.Fatal(err)
			}
			if got := tuningSeeds(cfg, rp.batches); !slices.EqualFunc(got, s.Seeds, slices.Equal) {
				t.Errorf("noise %v: generation %d plays %v, want %v", noise, g+1, got, s.Seeds)
			}
		}
	}
}
