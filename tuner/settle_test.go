package tuner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// settleConfig is a run long enough for settling to act (its rate moves
// from the 11th generation on), with mirrored sampling as the presets
// have it.
func settleConfig(t *testing.T) *Config {
	t.Helper()
	cfg, err := ReadConfig([]byte(`
name: settle
seed: 3
generations: 16
optimizer: {population: 4, mirrored: true, settle: true}
search: {depth: 1}
fitness: {games: 2}
validation: {games: 4, select: 8}
checkpoints: {keep: 2}
`), "settle.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestSettleResume checks that a settling run resumed after interruptions
// (mid-generation, after the rate began to move, twice in a row) ends
// with the bytes of the uninterrupted run, and that its history shows the
// rate falling below 1 (or the test would not cover settling's state).
func TestSettleResume(t *testing.T) {
	ref := filepath.Join(t.TempDir(), "ref")
	r, err := Create(settleConfig(t), ref, Options{})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, r)
	want := readRun(t, ref)
	h, err := os.ReadFile(filepath.Join(ref, HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	lowest := 1.0
	for _, line := range strings.Split(strings.TrimSpace(string(h)), "\n") {
		var rec Record
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.LearningRates == nil {
			t.Fatalf("generation %d: no learning rates in the history of a settling run", rec.Generation)
		}
		lowest = min(lowest, rec.LearningRates.Mean)
	}
	if lowest == 1 {
		t.Fatal("the learning rate never fell below 1: the test does not cover settling's state")
	}
	for _, cuts := range [][]int64{{7}, {70}, {100}, {100, 13}, {50, 3, 3}} {
		if diff := resumeAfterCuts(t, settleConfig(t), cuts, nil).equal(want); diff != "" {
			t.Errorf("cuts %v: resumed run differs from the uninterrupted one in %s", cuts, diff)
		}
	}
}
