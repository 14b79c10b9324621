package tuner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/internal/yamlx"
)

func TestStageConfigErrors(t *testing.T) {
	tests := []struct {
		name, yaml string
		line       int
		field      string
		msg        string
	}{
		{"empty list", "seed: 1\nstages: []\n", 2, "stages", "an empty list"},
		{"not a list", "stages: {search: {depth: 3}}\n", 1, "stages", "a list of mappings"},
		{"not a mapping", "stages:\n  - 3\n", 2, "stages.1", "want a mapping"},
		{"unknown key", "stages:\n  - generations: 2\n  - search: {depth: 2}\n    gens: 3\n", 4, "stages.2.gens", "unknown key (allowed in stages.2: name, search, games"},
		{"unknown search key", "stages:\n  - search: {dept: 2}\n", 2, "stages.1.search.dept", "unknown key"},
		{"no budget", "stages:\n  - name: a\n    search: {depth: 1}\n  - search: {depth: 2}\n", 2, "stages.1", `stage "a" has no budget`},
		{"no budget middle", "stages:\n  - generations: 1\n  - games: 3\n  - games: 4\n", 3, "stages.2", `stage "2" has no budget`},
		{"repeated name", "stages:\n  - {name: x, generations: 1}\n  - {name: x}\n", 3, "stages.2.name", "the name of stage 1 too"},
		{"default name repeated", "stages:\n  - {name: \"2\", generations: 1}\n  - {}\n", 3, "stages.2.name", "the name of stage 1 too"},
		{"bad name", "stages:\n  - {name: ../x}\n", 2, "stages.1.name", "letters"},
		{"empty name", "stages:\n  - {name: \"\"}\n", 2, "stages.1.name", "leave the key out"},
		{"games", "stages:\n  - {games: 0}\n", 2, "stages.1.games", "at least 1 game"},
		{"population", "stages:\n  - {population: 1}\n", 2, "stages.1.population", "at least 2 candidates"},
		{"sigma zero", "stages:\n  - {sigma: 0}\n", 2, "stages.1.sigma", "(0, 10]"},
		{"sigma large", "stages:\n  - {sigma: 11}\n", 2, "stages.1.sigma", "(0, 10]"},
		{"generations zero", "stages:\n  - {generations: 0}\n", 2, "stages.1.generations", "at least 1 generation"},
		{"generations negative", "stages:\n  - {generations: -2}\n", 2, "stages.1.generations", "at least 1 generation"},
		{"duration zero", "stages:\n  - {duration: 0s}\n", 2, "stages.1.duration", "positive duration"},
		{"duration negative", "stages:\n  - {duration: -5m}\n", 2, "stages.1.duration", "positive duration"},
		{"duration syntax", "stages:\n  - {duration: 5 min}\n", 2, "stages.1.duration", "a duration"},
		{"search depth", "stages:\n  - {generations: 1}\n  - search: {depth: 0}\n", 3, "stages.2.search.depth", "1 to 20"},
		{"search algorithm", "stages:\n  - search: {algorithm: mcts}\n", 2, "stages.1.search.algorithm", "expectimax, beam or nneonneo"},
		{"beam table", "stages:\n  - search: {algorithm: beam, table: 10}\n", 2, "stages.1.search.table", "only the expectimax search"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadConfig([]byte(tt.yaml), "c.yaml")
			var fe *yamlx.FileError
			if !errors.As(err, &fe) || !errors.Is(err, ErrConfig) {
				t.Fatalf("error %v is not a yamlx.FileError wrapping ErrConfig", err)
			}
			if fe.File != "c.yaml" || fe.Line != tt.line || fe.Field != tt.field || !strings.Contains(fe.Msg, tt.msg) {
				t.Errorf("got %q (line %d, field %q); want line %d, field %q, message containing %q", err, fe.Line, fe.Field, tt.line, tt.field, tt.msg)
			}
		})
	}
}

const ladderYAML = `name: ladder
seed: 3
generations: 9
sigma: 0.4
optimizer: {population: 4}
search: {depth: 1}
fitness: {games: 3}
validation: {games: 4}
checkpoints: {keep: 2}
stages:
  - name: shallow
    generations: 3
  - search: {depth: 2}
    games: 5
    population: 6
    sigma: 0.2
`

func parseResolved(t *testing.T, yml string) *Config {
	t.Helper()
	cfg, err := ReadConfig([]byte(yml), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestStageResolveRoundTrip(t *testing.T) {
	// The second stage is not the last here: it gets a budget.
	cfg := parseResolved(t, strings.Replace(ladderYAML, "search: {depth: 1}", "search: {depth: 1, adaptive: true}", 1)+
		"    duration: 10m\n  - name: deep\n    search: {depth: 5, table: 0, adaptive: false}\n")
	st := cfg.Stages
	if len(st) != 3 || st[0].Name != "shallow" || st[1].Name != "2" || st[2].Name != "deep" {
		t.Fatalf("names: %+v", st)
	}
	if *st[0].Search != cfg.Search || st[0].Games != 3 || st[0].Population != 4 || st[0].Sigma != 0.4 || st[0].Generations != 3 {
		t.Errorf("stage 1 does not take the top-level values: %+v %+v", st[0], *st[0].Search)
	}
	if s := *st[1].Search; s.Depth != 2 || s.Algorithm != engine.AlgorithmExpectimax || st[1].Games != 5 || st[1].Population != 6 || st[1].Sigma != 0.2 {
		t.Errorf("stage 2: %+v %+v", st[1], s)
	}
	// Table and cutoff left out take the play defaults of the stage's own
	// depth, as validation.search does; a table written as 0 stays 0.
	want := (engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 5}).WithPlayDefaults()
	if !st[0].Search.Adaptive || !st[1].Search.Adaptive || st[2].Search.Adaptive {
		t.Errorf("adaptive: stages 1 and 2 take the top-level true, stage 3 keeps its false: %v %v %v", st[0].Search.Adaptive, st[1].Search.Adaptive, st[2].Search.Adaptive)
	}
	if s := *st[2].Search; s.ProbCutoff != want.ProbCutoff || s.TableBits != 0 || s.LossValue != cfg.Search.LossValue {
		t.Errorf("stage 3's search %+v: want the cutoff of depth 5 (%v), no table, the top-level loss", s, want.ProbCutoff)
	}
	data, err := MarshalConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	back := parseResolved(t, string(data))
	if !reflect.DeepEqual(back.Stages, cfg.Stages) {
		t.Errorf("stages read back as %+v, want %+v", back.Stages, cfg.Stages)
	}
	again, err := MarshalConfig(back)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, data) {
		t.Errorf("resolved config changes on a round trip:\n%s\n---\n%s", data, again)
	}
	// Without stages, the resolved config has no stages key.
	plain, _ := MarshalConfig(parseResolved(t, "seed: 1\n"))
	if bytes.Contains(plain, []byte("stages")) {
		t.Errorf("a config without stages writes them:\n%s", plain)
	}
}

// historyRecords reads a run's history.
func historyRecords(t *testing.T, dir string) []Record {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []Record
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	return recs
}

// recordingPool records the seeds and search of every batch it plays.
type recordingPool struct {
	p       Pool
	batches []Batch
}

func (rp *recordingPool) Play(ctx context.Context, b *Batch, results [][]engine.Result, done GameDone) error {
	rp.batches = append(rp.batches, *b)
	return rp.p.Play(ctx, b, results, done)
}

// TestStagesRun runs a two-stage ladder and checks the transition: when it
// happens, what stage 2 starts from, its seeds, the start measured again
// with the new search, the history and the exported weights.
func TestStagesRun(t *testing.T) {
	// Fixed games per candidate, no final race and the latest mean
	// recommended, so that every batch's size and vector is known
	// (TestRaceStages has the race across a ladder).
	cfg := parseResolved(t, strings.Replace(ladderYAML, "validation: {games: 4}", "validation: {games: 4, select: 0, average: 1}", 1)+"noise: {handling: false}\n")
	rp := &recordingPool{p: NewLocalPool(0)}
	var starts []*Validation
	dir := filepath.Join(t.TempDir(), "run")
	r, err := Create(cfg, dir, Options{Pool: rp, Events: Events{Validation: func(v *Validation, start bool) {
		if start {
			starts = append(starts, v)
		}
	}}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.Run(context.Background())
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	if out.Generations != 9 || out.Stop != "generations: 9 done" {
		t.Errorf("ended after %d generations (%q), want 9 (generations: 9 done)", out.Generations, out.Stop)
	}

	recs := historyRecords(t, dir)
	if len(recs) != 9 {
		t.Fatalf("%d history records, want 9", len(recs))
	}
	for _, rec := range recs {
		wantStage, wantLambda := 1, 4
		if rec.Generation > 3 {
			wantStage, wantLambda = 2, 6
		}
		if rec.Stage != wantStage || rec.Lambda != wantLambda {
			t.Errorf("generation %d: stage %d, λ %d; want %d, %d", rec.Generation, rec.Stage, rec.Lambda, wantStage, wantLambda)
		}
		if wantEnd := rec.Generation == 3; (rec.StageEnd != "") != wantEnd {
			t.Errorf("generation %d: stage_end %q", rec.Generation, rec.StageEnd)
		}
	}
	end := recs[2]
	if end.StageEnd != "generations: 3 done" || end.Validation == nil {
		t.Fatalf("stage 1's last generation: stage_end %q, validation %v", end.StageEnd, end.Validation)
	}
	// Stage 2 starts at stage 1's validated mean with its own sigma: the
	// first generation's CMA-ES step size is near 0.2, not near 0.4.
	if s := recs[3].Sigma; !(s > 0.1 && s < 0.3) {
		t.Errorf("stage 2's first sigma %v, want near its sigma 0.2", s)
	}

	// Batches: the start (depth 1), 3 generations + validations at depth 1,
	// then the start again at depth 2, then stage 2 at depth 2.
	stage1 := map[uint64]bool{}
	var stage2Seeds []uint64
	var sawStage2Start bool
	var stage1End []float64
	for _, b := range rp.batches {
		tuning := len(b.Seeds) > 0 && b.Seeds[0] != ValidationSeed(cfg.Seed, 0)
		search := b.Players.(FeaturePlayers).Search
		switch {
		case !tuning && search.Depth == 1 && b.Generation == 2:
			stage1End = b.Vectors[0] // the validation that ends stage 1
		case !tuning && search.Depth == 2 && !sawStage2Start && b.Generation == 2:
			sawStage2Start = true
			if w := b.Vectors[0]; !slices.Equal(w, starts[0].Weights) {
				t.Errorf("the start measured again with %v plays %v, want the run's init %v", search, w, starts[0].Weights)
			}
		case tuning && b.Generation < 3:
			if search.Depth != 1 || len(b.Vectors) != 4 || len(b.Seeds) != 3 {
				t.Errorf("stage 1 batch: depth %d, %d × %d", search.Depth, len(b.Vectors), len(b.Seeds))
			}
			for _, s := range b.Seeds {
				stage1[s] = true
			}
		case tuning:
			if search.Depth != 2 || len(b.Vectors) != 6 || len(b.Seeds) != 5 {
				t.Errorf("stage 2 batch: depth %d, %d × %d", search.Depth, len(b.Vectors), len(b.Seeds))
			}
			stage2Seeds = append(stage2Seeds, b.Seeds...)
		}
	}
	if !sawStage2Start || len(starts) != 2 {
		t.Fatalf("start measured %d times (again at depth 2: %v); want twice", len(starts), sawStage2Start)
	}
	if len(stage2Seeds) != 6*5 {
		t.Errorf("stage 2 played %d seeds, want 6 generations × 5", len(stage2Seeds))
	}
	seen := map[uint64]bool{}
	for _, s := range stage2Seeds {
		if stage1[s] || seen[s] {
			t.Fatalf("stage 2 replays the seed %d", s)
		}
		seen[s] = true
	}
	// The first stage's seeds are those of a run without stages.
	if !stage1[TuningSeed(cfg.Seed, 3, 0, 0)] || !stage1[TuningSeed(cfg.Seed, 3, 2, 2)] {
		t.Error("stage 1 does not play the seeds a run without stages plays")
	}
	// Stage 2's first candidates are drawn around stage 1's validated mean.
	var first Batch
	for _, b := range rp.batches {
		if b.Generation == 3 && len(b.Vectors) == 6 {
			first = b
			break
		}
	}
	ck, _, _, err := LoadCheckpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	st := ck.State()
	if st.Stage != 1 || st.StageGeneration != 3 || st.SeedCounter != 9+6*5 {
		t.Errorf("state: stage %d from generation %d, next seed counter %d; want 1, 3, 39", st.Stage, st.StageGeneration, st.SeedCounter)
	}
	// Stage 2 takes its counters on from 9, where stage 1's 3 × 3 ended.
	for k, s := range stage2Seeds {
		if want := TuningSeedAt(cfg.Seed, 9+uint64(k)); s != want {
			t.Fatalf("stage 2's seed %d is %#x, want counter %d's %#x", k, s, 9+k, want)
		}
	}
	if len(first.Vectors) == 0 || stage1End == nil || !slices.Equal(st.StageStart, stage1End) {
		t.Errorf("stage 2 starts from %v, want stage 1's validated mean %v", st.StageStart, stage1End)
	}
	if st.Start.Stage != 1 || st.Validated.Stage != 1 {
		t.Errorf("start measured in stage %d, validated in stage %d; want both 1 (0-based)", st.Start.Stage, st.Validated.Stage)
	}

	// The weights file: the last stage's search, the stage in provenance.
	wf, err := eval.ReadWeightsFile(filepath.Join(dir, WeightsFile))
	if err != nil {
		t.Fatal(err)
	}
	if wf.Search == nil || wf.Search.Depth != 2 || wf.Format != eval.FormatV2 {
		t.Errorf("weights file: format %s, search %+v; want v2 and depth 2", wf.Format, wf.Search)
	}
	if p := wf.Provenance; p == nil || p.Stage == nil || *p.Stage != (eval.Stage{Index: 2, Of: 2, Name: "2"}) {
		t.Errorf("provenance stage %+v, want 2 of 2", wf.Provenance.Stage)
	}
	if p := wf.Provenance; p.Fitness.Search != nil || p.Baseline.Search != nil {
		t.Errorf("fitness and baseline measured with the file's search, yet record another")
	}
}

// TestStagesResume interrupts a ladder at many points — in stage 1, at the
// boundary (in the generation that ends stage 1, whose validation and start
// measurement then run again), in stage 2 — and checks that each resumed
// run ends with the bytes of the uninterrupted one.
func TestStagesResume(t *testing.T) {
	cfg := parseResolved(t, ladderYAML)
	ref := filepath.Join(t.TempDir(), "ref")
	r, err := Create(cfg, ref, Options{})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, r)
	want := readRun(t, ref)

	// Games: start 4; stage 1: 3 gens × 4 × 3 = 36, validations at 2 and 3
	// (8); start again 4; stage 2 from game 52.
	cuts := []int64{10, 40, 46, 49, 50, 52, 70, 150}
	if testing.Short() {
		cuts = []int64{46, 50, 70}
	}
	for _, cut := range cuts {
		if diff := resumeAfterCuts(t, cfg, []int64{cut}, nil).equal(want); diff != "" {
			t.Errorf("cut after %d games: resumed run differs in %s", cut, diff)
		}
	}
	// A run cut at the boundary exactly: stop it after stage 1 with a
	// generation limit, then resume it with the full limit.
	dir := filepath.Join(t.TempDir(), "boundary")
	short := *cfg
	short.Generations = 3
	r, err = Create(&short, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, r)
	n := 9
	r, err = Resume(dir, ResumeOverrides{Generations: &n}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, r)
	// The state is the uninterrupted run's: stage 2 began before the
	// fourth generation; only the third generation's line says "stop"
	// where the other says "stage_end".
	got := readRun(t, dir)
	if !bytes.Equal(got.weights, want.weights) || !bytes.Equal(got.checkpoint, want.checkpoint) {
		t.Errorf("resumed at the boundary: weights or checkpoint differ from the uninterrupted run's")
	}
	recs, wantRecs := historyRecords(t, dir), historyRecords(t, ref)
	if len(recs) != 9 || recs[2].Stop != "generations: 3 done" || recs[3].Stage != 2 {
		t.Fatalf("resumed at the boundary: %d records, generation 3 stop %q, generation 4 in stage %d", len(recs), recs[2].Stop, recs[3].Stage)
	}
	for i := 3; i < 9; i++ {
		recs[i].Elapsed, wantRecs[i].Elapsed, recs[i].CPU, wantRecs[i].CPU = 0, 0, 0, 0
		a, _ := json.Marshal(recs[i])
		b, _ := json.Marshal(wantRecs[i])
		if !bytes.Equal(a, b) {
			t.Errorf("resumed at the boundary, generation %d:\n%s\nwant\n%s", i+1, a, b)
		}
	}
}

// TestStageDuration drives a ladder with a stage duration budget on a
// clock the test sets: the stage ends at the first generation that ends
// at or after its budget, counted from when the stage began.
func TestStageDuration(t *testing.T) {
	cfg := parseResolved(t, strings.Replace(ladderYAML, "    generations: 3\n", "    duration: 10s\n", 1)+"    duration: 9s\n  - name: third\n")
	tu, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := tu.ValidateStart(ctx); err != nil {
		t.Fatal(err)
	}
	var clock time.Duration
	now := func() time.Duration { return clock }
	var ends []int
	for g := 1; g <= 9; g++ {
		clock = time.Duration(g) * 4 * time.Second
		rec, err := tu.Step(ctx, now)
		if err != nil {
			t.Fatal(err)
		}
		if rec.StageEnd != "" {
			ends = append(ends, rec.Generation)
		}
	}
	// Stage 1 ends after generation 3 (12 s ≥ 10 s), stage 2 after
	// generation 6 (24 s − 12 s ≥ 9 s).
	if !slices.Equal(ends, []int{3, 6}) {
		t.Errorf("stages ended after generations %v, want [3 6]", ends)
	}
	if i, st := tu.Stage(); i != 2 || st.Name != "third" {
		t.Errorf("in stage %d (%s), want the third", i, st.Name)
	}
}

// TestLastClocksStage checks the recovery of a stage's start from the
// history (the elapsed time of the previous stage's last line) and of the
// run's CPU time (its last line's).
func TestLastClocksStage(t *testing.T) {
	h := `{"generation":1,"stage":1,"elapsed_s":1.5,"cpu_s":2.5}
{"generation":2,"stage":1,"stage_end":"generations: 2 done","elapsed_s":3.25,"cpu_s":6}
{"generation":3,"stage":2,"elapsed_s":7,"cpu_s":13.5}
`
	for _, tt := range []struct {
		stage         int
		last, started time.Duration
	}{{1, 7 * time.Second, 0}, {2, 7 * time.Second, 3250 * time.Millisecond}, {3, 7 * time.Second, 7 * time.Second}} {
		last, cpu, began := lastClocks(strings.NewReader(h), tt.stage)
		if last != tt.last || began != tt.started || cpu != 13500*time.Millisecond {
			t.Errorf("stage %d: last %v, CPU %v, began %v; want %v, 13.5s, %v", tt.stage, last, cpu, began, tt.last, tt.started)
		}
	}
}

// TestStagesOneValidationSearch: with validation.search given, every stage
// validates with it and the start is measured once.
func TestStagesOneValidationSearch(t *testing.T) {
	cfg := parseResolved(t, strings.Replace(ladderYAML, "validation: {games: 4}", "validation: {games: 4, search: {depth: 2}}", 1))
	starts := 0
	r, err := Create(cfg, filepath.Join(t.TempDir(), "run"), Options{Events: Events{Validation: func(v *Validation, start bool) {
		if start {
			starts++
		}
	}}})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, r)
	if starts != 1 {
		t.Errorf("start measured %d times, want once", starts)
	}
}
