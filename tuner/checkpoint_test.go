package tuner

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/evotune/evotune/checkpoints"
	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/internal/golden"
)

// TestCheckpointGolden pins the bytes of a checkpoint after one generation
// of a small run: the envelope, the payload's layout and, since a run is a
// pure function of its config, every value in it. An intended change to the
// payload, the rules, the optimizer or the engine's play rewrites it with
// go test ./tuner -run CheckpointGolden -update.
func TestCheckpointGolden(t *testing.T) {
	cfg := smallConfig(t)
	cfg.Generations = 1
	dir := filepath.Join(t.TempDir(), "run")
	r, err := Create(cfg, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, r)
	got, err := os.ReadFile(filepath.Join(dir, CheckpointsDir, checkpoints.FileName(1)))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "checkpoint-gen1.golden")
	golden.Check(t, path, got)
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := checkpoints.Decode(want)
	if err != nil {
		t.Fatal(err)
	}
	if _, s, lines, err := decodeCheckpoint(c, path); err != nil || s.Generation != 1 || lines != 1 || s.Validated == nil || s.Start == nil {
		t.Errorf("golden checkpoint decodes to generation %d, %d history lines, err %v", s.Generation, lines, err)
	}
}

// FuzzDecodePayload feeds the payload decoder arbitrary bytes: it must
// return an error or a state a tuner can restore, never panic.
func FuzzDecodePayload(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("testdata", "checkpoint-gen1.golden")); err == nil {
		if c, err := checkpoints.Decode(data); err == nil {
			f.Add(c.Payload)
		}
	}
	f.Add([]byte(`{"format":1,"config":"name: x\n","state":{"generation":0,"games":0,"optimizer":""},"history_lines":0}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, payload []byte) {
		c := &checkpoints.Checkpoint{RulesVersion: engine.RulesVersion, Payload: payload}
		cfg, state, _, err := decodeCheckpoint(c, "fuzz")
		if err != nil {
			return
		}
		c.Generation = state.Generation
		tu, err := New(cfg, Options{})
		if err != nil {
			return
		}
		_ = tu.Restore(state)
	})
}
