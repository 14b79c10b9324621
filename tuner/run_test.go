package tuner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evotune/evotune/checkpoints"
	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/internal/cputime"
)

func smallConfig(t *testing.T) *Config {
	t.Helper()
	cfg, err := ReadConfig([]byte(`
name: small
seed: 5
generations: 5
optimizer: {population: 4}
search: {depth: 1}
fitness: {games: 4}
validation: {games: 4}
checkpoints: {keep: 2}
`), "small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// runOn runs cfg to its end on a local pool of the given workers in a
// fresh directory and returns its files.
func runOn(t *testing.T, cfg *Config, workers int) runFiles {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	r, err := Create(cfg, dir, Options{Pool: NewLocalPool(workers)})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, r)
	return readRun(t, dir)
}

// runFiles are the files a finished run is compared by: weights.yaml, the
// history without its clock fields (elapsed_s and cpu_s, last on each
// line), and the newest checkpoint.
type runFiles struct {
	weights, history, checkpoint []byte
}

func readRun(t *testing.T, dir string) runFiles {
	t.Helper()
	var f runFiles
	var err error
	if f.weights, err = os.ReadFile(filepath.Join(dir, WeightsFile)); err != nil {
		t.Fatal(err)
	}
	h, err := os.ReadFile(filepath.Join(dir, HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.SplitAfter(string(h), "\n") {
		if i := strings.LastIndex(line, `,"elapsed_s":`); i >= 0 {
			line = line[:i] + "}\n"
		}
		f.history = append(f.history, line...)
	}
	entries, err := os.ReadDir(filepath.Join(dir, CheckpointsDir))
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	if f.checkpoint, err = os.ReadFile(filepath.Join(dir, CheckpointsDir, names[len(names)-1])); err != nil {
		t.Fatal(err)
	}
	return f
}

func (a runFiles) equal(b runFiles) string {
	switch {
	case !bytes.Equal(a.weights, b.weights):
		return "weights.yaml"
	case !bytes.Equal(a.history, b.history):
		return "history.jsonl:\n" + string(a.history) + "---\n" + string(b.history)
	case !bytes.Equal(a.checkpoint, b.checkpoint):
		return "final checkpoint"
	}
	return ""
}

func runToEnd(t *testing.T, r *Run) {
	t.Helper()
	defer r.Close()
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestResumeMatchesUninterrupted interrupts runs after various numbers of
// games (in the start validation, mid-generation, in a validation, twice in
// a row) and checks that the resumed runs end with the same bytes.
func TestResumeMatchesUninterrupted(t *testing.T) {
	cfg := smallConfig(t)
	ref := filepath.Join(t.TempDir(), "ref")
	r, err := Create(cfg, ref, Options{})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, r)
	want := readRun(t, ref)

	for _, cuts := range [][]int64{{1}, {3}, {9}, {23}, {40}, {23, 5}, {2, 2, 2}} {
		if diff := resumeAfterCuts(t, smallConfig(t), cuts, nil).equal(want); diff != "" {
			t.Errorf("cuts %v: resumed run differs from the uninterrupted one in %s", cuts, diff)
		}
	}
}

func TestResumeFromCorruptCheckpoint(t *testing.T) {
	cfg := smallConfig(t)
	ref := filepath.Join(t.TempDir(), "ref")
	r, _ := Create(cfg, ref, Options{})
	runToEnd(t, r)
	want := readRun(t, ref)

	dir := filepath.Join(t.TempDir(), "run")
	cfg3 := smallConfig(t)
	cfg3.Generations = 3
	r, _ = Create(cfg3, dir, Options{})
	runToEnd(t, r)
	newest := filepath.Join(dir, CheckpointsDir, checkpoints.FileName(3))
	data, _ := os.ReadFile(newest)
	data[len(data)/2] ^= 0x40
	os.WriteFile(newest, data, 0o644)

	five := 5
	r, err := Resume(dir, ResumeOverrides{Generations: &five}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Notices) != 1 || !strings.Contains(r.Notices[0], "gen-00000003.ckpt") || !strings.Contains(r.Notices[0], "gen-00000002.ckpt") {
		t.Errorf("notices %q: want one naming the corrupt and the used checkpoint", r.Notices)
	}
	runToEnd(t, r)
	// The run was created with generations: 3, so its checkpoints hold a
	// different config; weights and history must still match.
	got := readRun(t, dir)
	if !bytes.Equal(got.history, want.history) || !bytes.Equal(got.weights, want.weights) {
		t.Errorf("run resumed from an older checkpoint differs from the uninterrupted one")
	}

	// Every checkpoint corrupt: a clear error naming the files.
	entries, _ := os.ReadDir(filepath.Join(dir, CheckpointsDir))
	for _, e := range entries {
		os.WriteFile(filepath.Join(dir, CheckpointsDir, e.Name()), []byte("garbage"), 0o644)
	}
	_, err = Resume(dir, ResumeOverrides{}, Options{})
	if !errors.Is(err, checkpoints.ErrNoCheckpoint) || !strings.Contains(err.Error(), "gen-00000005.ckpt") {
		t.Errorf("resume with no good checkpoint: %v", err)
	}
}

func TestRunLocked(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	r, err := Create(smallConfig(t), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := Resume(dir, ResumeOverrides{}, Options{}); !errors.Is(err, checkpoints.ErrLocked) {
		t.Errorf("resume of a run in use: %v, want ErrLocked", err)
	}
	if _, err := Create(smallConfig(t), dir, Options{}); !errors.Is(err, ErrRunDir) {
		t.Errorf("create in a run directory: %v, want ErrRunDir", err)
	}
}

// With move scores left out, the weights are scale-invariant, and the
// reference weight (empty) must stay at its starting value.
func TestHeuristicOnlyHoldsReference(t *testing.T) {
	cfg := smallConfig(t)
	cfg.Search.HeuristicOnly = true
	cfg.Generations = 3
	tu, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(tu.opt.Mean()); got != len(tu.set.Features)-1 {
		t.Fatalf("optimizer dimension %d, want %d (one weight held fixed)", got, len(tu.set.Features)-1)
	}
	ref := tu.set.ReferenceIndex()
	for range 3 {
		rec, err := tu.Step(context.Background(), func() time.Duration { return 0 })
		if err != nil {
			t.Fatal(err)
		}
		if rec.Weights.Values[ref] != cfg.Init[tu.set.Features[ref].Name] {
			t.Fatalf("generation %d: reference weight %v moved from %v", rec.Generation, rec.Weights.Values[ref], cfg.Init["empty"])
		}
	}
	cfg.Search.HeuristicOnly = false
	tu, _ = New(cfg, Options{})
	if got := len(tu.opt.Mean()); got != len(tu.set.Features) {
		t.Errorf("with move scores the optimizer has %d dimensions, want all %d", got, len(tu.set.Features))
	}
}

// A torn or corrupt journal line is reported and its game played again;
// the run still ends as an uninterrupted one.
func TestResumeWithDamagedJournal(t *testing.T) {
	ref := filepath.Join(t.TempDir(), "ref")
	r, _ := Create(smallConfig(t), ref, Options{})
	runToEnd(t, r)
	want := readRun(t, ref)

	dir := filepath.Join(t.TempDir(), "run")
	interrupt(t, dir, smallConfig(t), 38, Options{})
	journal := filepath.Join(dir, checkpoints.JournalName)
	data, err := os.ReadFile(journal)
	if err != nil || bytes.Count(data, []byte("\n")) < 3 {
		t.Fatalf("journal after the cut: %d bytes, err %v; want a few games", len(data), err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	lines[0][20] ^= 1                                          // corrupt the first line
	torn := append(bytes.Join(lines, nil), `{"v":1,"gen":`...) // and tear a last one
	os.WriteFile(journal, torn, 0o644)

	r, err = Resume(dir, ResumeOverrides{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Notices) != 1 || !strings.Contains(r.Notices[0], "2 journal lines skipped") {
		t.Errorf("notices %q: want one about 2 skipped journal lines", r.Notices)
	}
	runToEnd(t, r)
	if diff := readRun(t, dir).equal(want); diff != "" {
		t.Errorf("run resumed with a damaged journal differs in %s", diff)
	}
}

// TestHistoryAxisRatio checks that every history line carries the
// distribution's axis ratio, and that it is the optimizer's own.
func TestHistoryAxisRatio(t *testing.T) {
	cfg := smallConfig(t)
	var got []float64
	var want []float64
	r, err := Create(cfg, t.TempDir(), Options{Events: Events{Generation: func(rec Record) {
		got = append(got, rec.AxisRatio)
	}}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for r.Tuner().Finished() == "" {
		if _, err := r.Tuner().Step(context.Background(), func() time.Duration { return 0 }); err != nil {
			t.Fatal(err)
		}
		want = append(want, r.Tuner().opt.AxisRatio())
	}
	if len(want) == 0 {
		t.Fatal("no generation ran")
	}
	for g, w := range want {
		if !(w >= 1) {
			t.Errorf("generation %d: axis ratio %v, want >= 1", g+1, w)
		}
	}
	// Through Run, the records must carry the same figures.
	r2, err := Create(cfg, t.TempDir(), Options{Events: Events{Generation: func(rec Record) { got = append(got, rec.AxisRatio) }}})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if _, err := r2.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("history axis ratios %v, want %v", got, want)
	}
}

// TestExportBeforeStartValidation checks that a run stopped before its
// starting weights were validated exports nothing, with an error saying
// why, rather than failing on the missing validation.
func TestExportBeforeStartValidation(t *testing.T) {
	dir := t.TempDir()
	r, err := Create(smallConfig(t), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: err = %v", err)
	}
	r.Close()
	tu, _, _, err := LoadCheckpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tu.WeightsFile(); !errors.Is(err, ErrNotValidated) || !strings.Contains(err.Error(), "evotune resume") {
		t.Errorf("WeightsFile before any validation: err = %v, want ErrNotValidated naming resume", err)
	}
}

// TestHandoverWithoutMeans: mid-stage an export writes the average of the
// stage's last means; a checkpoint of an older evotune keeps none, and the
// average would be the stage's start under a generation's name: it hands
// over its recommended weights instead.
func TestHandoverWithoutMeans(t *testing.T) {
	dir := t.TempDir()
	runUntil(t, dir, smallConfig(t), 3, nil)
	tu, _, _, err := LoadCheckpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	if h := tu.Handover(); h.Games != 0 || h.Generation != 3 || slices.Equal(h.Weights, tu.Recommended().Weights) {
		t.Fatalf("handover mid-run %+v: want generation 3's average, not yet validated", h)
	}
	tu.state.Means = nil // as an older evotune's checkpoint
	if h := tu.Handover(); h != tu.Recommended() {
		t.Errorf("handover without means %+v, want the recommended weights %+v", h, tu.Recommended())
	}
}

// TestTuneParameters checks that a set's shape parameters are tuned with
// its weights: the history names them, they move, they stay within their
// bounds, and under the (heuristic-only) nneonneo search the reference
// weight stays fixed.
func TestTuneParameters(t *testing.T) {
	cfg := smallConfig(t)
	cfg.SetName = "nneonneo"
	cfg.Init = nil
	cfg.Search = engine.SearchConfig{Algorithm: engine.AlgorithmNneonneo, Depth: 3}
	cfg.Resolve()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	tu, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	set := tu.Set()
	if got, want := len(tu.opt.Mean()), len(set.Features)+len(set.Params)-1; got != want {
		t.Fatalf("optimizer dimension %d, want %d (weights and parameters, the reference fixed)", got, want)
	}
	names := tu.Names()
	ref := set.ReferenceIndex()
	start := slices.Clone(tu.base)
	moved := make([]bool, len(names))
	for range 3 {
		rec, err := tu.Step(context.Background(), func() time.Duration { return 0 })
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(rec.Weights.Names, names) {
			t.Fatalf("history names %v, want %v", rec.Weights.Names, names)
		}
		v := rec.Weights.Values
		if v[ref] != start[ref] {
			t.Fatalf("generation %d: reference weight %s moved: %v", rec.Generation, names[ref], v[ref])
		}
		for k, q := range set.Params {
			x := v[len(set.Features)+k]
			if x < q.Min || x > q.Max {
				t.Fatalf("generation %d: %s = %v outside [%v, %v]", rec.Generation, q.Name, x, q.Min, q.Max)
			}
		}
		for i := range v {
			moved[i] = moved[i] || v[i] != start[i]
		}
	}
	for k := range set.Params {
		if !moved[len(set.Features)+k] {
			t.Errorf("parameter %s never moved from %v", set.Params[k].Name, start[len(set.Features)+k])
		}
	}
	if err := tu.Finish(context.Background(), "test"); err != nil {
		t.Fatal(err)
	}
	wf, err := tu.WeightsFile()
	if err != nil {
		t.Fatal(err)
	}
	if len(wf.Weights) != len(set.Features) {
		t.Errorf("weights file has %d weights, want %d", len(wf.Weights), len(set.Features))
	}
}

// TestHistoryCPU checks the run's CPU time in the history: on every line,
// growing, and carried over by a resumed run, whose first line counts the
// earlier process's CPU time as well as its own. The resumed process's
// clock starts anew, so a run that forgot the earlier time would write
// less than the last line before the resume.
func TestHistoryCPU(t *testing.T) {
	if _, err := cputime.Process(); errors.Is(err, errors.ErrUnsupported) {
		t.Skipf("no CPU clock here: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	cfg := smallConfig(t)
	cfg.Generations = 2
	r, err := Create(cfg, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, r)
	four := 4
	if r, err = Resume(dir, ResumeOverrides{Generations: &four}, Options{}); err != nil {
		t.Fatal(err)
	}
	// The first process's CPU time as the resumed run found it: the
	// resumed lines must include it.
	before, _ := r.CPU()
	runToEnd(t, r)
	data, err := os.ReadFile(filepath.Join(dir, HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	var prev float64
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec struct {
			CPU *float64 `json:"cpu_s"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		switch {
		case rec.CPU == nil || *rec.CPU <= 0:
			t.Fatalf("line %d: no positive cpu_s: %s", i+1, line)
		case *rec.CPU < prev:
			t.Errorf("line %d: cpu_s %v below the line before's %v", i+1, *rec.CPU, prev)
		case i == 2 && *rec.CPU < before.Seconds():
			t.Errorf("the resumed run's first line: cpu_s %v, below the %v the resumed run started from", *rec.CPU, before.Seconds())
		}
		prev = *rec.CPU
	}
	if prev < before.Seconds() {
		t.Errorf("last cpu_s %v below the resumed run's start %v", prev, before.Seconds())
	}
}
