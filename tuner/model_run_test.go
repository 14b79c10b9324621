package tuner

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evotune/evotune/checkpoints"
)

// modelConfig is a run of two stages of 12 generations, each long enough
// for the model's window (10 generations of 8 candidates: 80 points for
// the 10 generations' effects and the 5 weights' slopes and curvatures),
// with noise handling and racing as a config gets them by default, so
// that stopped candidates are left out of the fit. It races no average
// (average: 1), so that the model's point is what wins the last race of
// run seed 3 (the average of the last half of the means wins it
// otherwise), and the tests see its point handed on.
func modelConfig(t *testing.T) *Config {
	t.Helper()
	cfg, err := ReadConfig([]byte(`
name: model
seed: 3
generations: 24
optimizer: {population: 8}
search: {depth: 1}
fitness: {games: 4}
validation: {games: 4, select: 8, average: 1, model: true}
checkpoints: {keep: 2}
stages:
  - generations: 12
  - sigma: 0.2
`), "model.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestModelResume checks that a run with the model, resumed after
// interruptions (mid-generation in the first stage, in the second, twice
// in a row), ends with the bytes of the uninterrupted run; and that the
// run's two final races each had the model's point as an entrant, fitted
// to its own stage's last 10 generations, with its weights in the race's
// record (or the test would not cover the model's state); where it won,
// the winner read back from the history is what the run recommends, and
// the story names it.
func TestModelResume(t *testing.T) {
	ref := filepath.Join(t.TempDir(), "ref")
	r, err := Create(modelConfig(t), ref, Options{})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, r)
	want := readRun(t, ref)
	races := 0
	for _, rec := range historyRecords(t, ref) {
		if rec.Validation == nil {
			continue
		}
		races++
		race := rec.Validation.Race
		i := slices.IndexFunc(race.Entrants, func(e RaceEntrant) bool { return e.Model > 0 })
		if race.Model == nil || i < 0 {
			t.Fatalf("generation %d: race %+v has no model entrant", rec.Generation, race)
		}
		e := race.Entrants[i]
		if e.Model != 10 || race.Model.First != rec.Generation-9 || e.Weights == nil || len(e.Weights.Values) != 5 {
			t.Errorf("generation %d: model entrant %+v, fit %+v: want the last 10 generations and the weights", rec.Generation, e, race.Model)
		}
		if race.Model.Points < 3*(race.Model.Generations+10) || race.Model.Basis != "coordinates" {
			t.Errorf("generation %d: fit %+v", rec.Generation, race.Model)
		}
	}
	if races != 2 {
		t.Fatalf("%d final races, want 2", races)
	}
	// The model won the second stage: its winner read back from the
	// history is, bit for bit, what the run recommends.
	fin, _, _, err := LoadCheckpoint(ref)
	if err != nil {
		t.Fatal(err)
	}
	v := fin.Recommended()
	if v.Model != 10 || v.Race.Entrants[v.Race.Winner].Model != 10 {
		t.Fatalf("the run recommends %+v: the test wants the model to win its last race", v)
	}
	history, err := os.ReadFile(filepath.Join(ref, HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	tu := mustNew(t, modelConfig(t))
	if err := tu.SelectStage(history, 1); err != nil {
		t.Fatal(err)
	}
	if got := tu.Handover(); !slices.Equal(got.Weights, v.Weights) || got.Model != v.Model || got.Generation != v.Generation || got.Fitness != v.Fitness {
		t.Errorf("stage 2's winner read back: %+v, the run recommends %+v", got, v)
	}
	if what := tu.Story().What; !strings.HasPrefix(what, "the point of the model fitted to the candidates of generations 15-24, the winner of the final race of stage 2") {
		t.Errorf("the story names it %q", what)
	}
	for _, cuts := range [][]int64{{300}, {900}, {900, 13}, {500, 3, 3}} {
		if diff := resumeAfterCuts(t, modelConfig(t), cuts, nil).equal(want); diff != "" {
			t.Errorf("cuts %v: resumed run differs from the uninterrupted one in %s", cuts, diff)
		}
	}
}

// TestModelOldCheckpoint: a checkpoint written without the model's
// samples (payload format 2: before the model, or with it off) loads, and
// a run continued from it with the model on fits the generations played
// since; a checkpoint with samples is written in format 3, one without in
// format 2, as before the model.
func TestModelOldCheckpoint(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join("testdata", "checkpoint-gen1.golden")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := checkpoints.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(c.Payload, &p); err != nil {
		t.Fatal(err)
	}
	if p["format"] != 2.0 {
		t.Fatalf("%s: payload format %v, want 2 (written before the model)", path, p["format"])
	}
	yml := p["config"].(string)
	yml = strings.Replace(yml, "generations: 1\n", "generations: 41\n", 1)
	yml = strings.Replace(yml, "  select: 96\n", "  select: 96\n  model: true\n", 1)
	if !strings.Contains(yml, "model: true") || !strings.Contains(yml, "generations: 41") {
		t.Fatalf("the config was not changed: %s", yml)
	}
	p["config"] = yml
	if c.Payload, err = json.Marshal(p); err != nil {
		t.Fatal(err)
	}
	cfg, st, _, err := decodeCheckpoint(c, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Samples) != 0 || !cfg.Validation.Model {
		t.Fatalf("old state: %d samples, model %v", len(st.Samples), cfg.Validation.Model)
	}
	tu := mustNew(t, cfg)
	if err := tu.Restore(st); err != nil {
		t.Fatal(err)
	}
	if !tu.Reopen() {
		t.Fatal("the run does not go on under its higher limit")
	}
	var last Record
	for tu.Finished() == "" {
		if last, err = tu.Step(ctx, func() time.Duration { return 0 }); err != nil {
			t.Fatal(err)
		}
		s := tu.State()
		if s.Generation < 41 && len(s.Samples) != min(s.Generation-1, modelWindow(s.Generation)) {
			t.Fatalf("generation %d: %d samples kept", s.Generation, len(s.Samples))
		}
		payload, err := encodePayload(cfg, s, s.Generation)
		if err != nil {
			t.Fatal(err)
		}
		if format := []byte(`{"format":3,`); !bytes.HasPrefix(payload, format) {
			t.Fatalf("generation %d: payload %.20s..., want format 3", s.Generation, payload)
		}
		s.Samples = nil
		if payload, err = encodePayload(cfg, s, s.Generation); err != nil || !bytes.HasPrefix(payload, []byte(`{"format":2,`)) {
			t.Fatalf("generation %d without samples: payload %.20s..., err %v; want format 2", s.Generation, payload, err)
		}
	}
	m := last.Validation.Race.Model
	if first := 41 - modelWindow(41) + 1; m == nil || m.First != first {
		t.Fatalf("the last race's model %+v, want the window from generation %d", m, first)
	}
	t.Logf("the last race's model: %+v", m)
}

// TestModelConfig: validation.model is off unless given, written back
// only where it is on, and refused without a race.
func TestModelConfig(t *testing.T) {
	cfg := smallConfig(t)
	if cfg.Validation.Model || strings.Contains(mustMarshalConfig(t, cfg), "model") {
		t.Errorf("model is on, or written, by default: %+v", cfg.Validation)
	}
	cfg, err := ReadConfig([]byte("validation: {model: true}\n"), "on.yaml")
	if err != nil {
		t.Fatal(err)
	}
	back, err := ReadConfig([]byte(mustMarshalConfig(t, cfg)), "back.yaml")
	if err != nil || !back.Validation.Model {
		t.Errorf("model: true read back as %+v, err %v", back.Validation, err)
	}
	_, err = ReadConfig([]byte("validation: {model: true, select: 0}\n"), "none.yaml")
	if err == nil || !strings.Contains(err.Error(), "validation.model") {
		t.Errorf("model without a race: err %v, want it refused naming validation.model", err)
	}
}

// TestModelKeepSample: a generation's sample holds the candidates that
// played to the end, in the optimizer's coordinates, with their fitness,
// and the mean; the samples kept are the window's, as it grows with the
// stage.
func TestModelKeepSample(t *testing.T) {
	tu := mustNew(t, modelConfig(t))
	for done := 1; done <= 40; done++ {
		g := &generation{}
		var fit []float64
		var full []bool
		for c := range 6 {
			w := slices.Clone(tu.base)
			for k, i := range tu.free {
				w[i] = float64(100*done + 10*c + k)
			}
			g.weights = append(g.weights, w)
			fit = append(fit, float64(c))
			full = append(full, c%3 != 1)
		}
		tu.keepSample(done, g, fit, full)
		ss := tu.state.Samples
		if len(ss) != modelWindow(done) || ss[0].Generation != done-modelWindow(done)+1 {
			t.Fatalf("after generation %d: samples of generations %d-%d, want the last %d", done, ss[0].Generation, ss[len(ss)-1].Generation, modelWindow(done))
		}
		s := ss[len(ss)-1]
		if !slices.Equal(s.Fitness, []float64{0, 2, 3, 5}) || len(s.X) != 4 || s.X[1][0] != float64(100*done+20) ||
			len(s.X[1]) != len(tu.free) || !slices.Equal(s.Mean, tu.opt.Mean()) {
			t.Fatalf("generation %d: sample %+v", done, s)
		}
	}
	tu.cfg.Validation.Model = false
	tu.state.Samples = nil
	tu.keepSample(41, &generation{}, nil, nil)
	if tu.state.Samples != nil {
		t.Error("samples kept without the model")
	}
}

// TestModelStory: in a stage under way, the story names the model's point
// among what would race were the stage to end now; the rule names it.
func TestModelStory(t *testing.T) {
	cfg := modelConfig(t)
	cfg.Validation.Average = DefaultAverage // the story with every entrant
	tu := runUntil(t, t.TempDir(), cfg, 20, nil)
	next := tu.Story().Next
	if !strings.Contains(next, "the point of the model fitted to the candidates of generations 13-20, the distribution mean of generation 20 and") {
		t.Errorf("the story's next %q does not name the model's point of generations 13-20 before the latest mean", next)
	}
	short, long := RecommendationRule(cfg)
	for _, s := range []string{short, long} {
		if !strings.Contains(s, "the point of a quadratic fitted to the candidates of its last half of generations (10 at least)") {
			t.Errorf("the rule %q does not name the model", s)
		}
	}
}
