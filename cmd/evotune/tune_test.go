package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/engine/stats"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/internal/golden"
	"github.com/evotune/evotune/tuner"
)

const smallConfig = `name: small
seed: 3
generations: 3
features: standard
optimizer: {method: cmaes, population: 4}
search: {algorithm: expectimax, depth: 1}
fitness: {games: 4}
validation: {games: 4}
`

func writeConfig(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// tuneRun runs a small tuning in a fresh directory and returns it.
func tuneRun(t *testing.T, config string, extra ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	args := append([]string{"tune", "--config", writeConfig(t, config), "--out", dir}, extra...)
	code, out, errs := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("tune: exit %d\n%s\n%s", code, out, errs)
	}
	return dir
}

func TestTuneSmallRun(t *testing.T) {
	dir := tuneRun(t, smallConfig)
	for _, f := range []string{"config.yaml", "history.jsonl", "weights.yaml", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("run directory lacks %s: %v", f, err)
		}
	}
	wf, err := eval.ReadWeightsFile(filepath.Join(dir, "weights.yaml"))
	if err != nil {
		t.Fatalf("weights.yaml does not load: %v", err)
	}
	if wf.SetName != "standard" || wf.Provenance == nil || wf.Provenance.Run != "small" || wf.Provenance.Fitness == nil || wf.Provenance.Baseline == nil {
		t.Errorf("weights.yaml provenance incomplete: %+v", wf.Provenance)
	}
	lines := historyLines(t, dir)
	if len(lines) != 3 {
		t.Fatalf("history has %d lines, want 3", len(lines))
	}
	for i, l := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		if rec["generation"] != float64(i+1) || rec["weights"] == nil || rec["sigma"] == nil || rec["elapsed_s"] == nil {
			t.Errorf("history line %d: %s", i+1, l)
		}
		// The final race and its winner's validation at the end only.
		if _, ok := rec["validation"]; ok != (i == 2) {
			t.Errorf("history line %d: validation present = %v", i+1, ok)
		}
	}
	// The recommended weights are the final race's winner: the latest
	// mean, the average of the last 2 means (half of 3 generations,
	// rounded), or the start.
	var last struct {
		Validation struct {
			Generation int `json:"of_generation"`
			Average    int `json:"average"`
			Race       struct {
				Recommends int `json:"recommends"`
				Entrants   []struct {
					Generation int `json:"generation"`
					Average    int `json:"average"`
				} `json:"entrants"`
			} `json:"race"`
		} `json:"validation"`
	}
	json.Unmarshal([]byte(lines[2]), &last)
	if es := last.Validation.Race.Entrants; len(es) != 3 || es[2].Generation != 3 || es[2].Average != 2 {
		t.Errorf("the race's entrants %+v: want the start, the latest mean and the average of 2 means ending at 3", es)
	}
	won := last.Validation.Race.Recommends
	avg := last.Validation.Average
	if won != last.Validation.Generation || avg != 0 && avg != 2 || won != 0 && won != 3 || won == 0 && avg != 0 {
		t.Errorf("the race recommends generation %d, the validation measured %d (average %d); want 3, the average of 2 means ending at 3, or the start", won, last.Validation.Generation, avg)
	}
	want := map[string]float64{"monotonicity": 47, "smoothness": 11, "empty": 270, "corner": 100, "merge": 70}
	if won > 0 {
		want = map[string]float64{}
		n := max(avg, 1)
		for _, l := range lines[won-n : won] {
			var line struct {
				Weights map[string]float64 `json:"weights"`
			}
			json.Unmarshal([]byte(l), &line)
			for name, x := range line.Weights {
				want[name] += x
			}
		}
		for name := range want {
			want[name] /= float64(n)
		}
	}
	set, _ := eval.Set("standard")
	for i, name := range set.FeatureNames() {
		if wf.Weights[i] != want[name] {
			t.Errorf("weights.yaml %s = %v, the winner (generation %d) %v", name, wf.Weights[i], won, want[name])
		}
	}
}

func historyLines(t *testing.T, dir string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

// stripElapsed removes the clock fields of history lines: elapsed_s and
// cpu_s, the last on each line.
func stripElapsed(t *testing.T, lines []string) string {
	t.Helper()
	var sb strings.Builder
	for _, l := range lines {
		i := strings.LastIndex(l, `,"elapsed_s":`)
		if i < 0 {
			t.Fatalf("history line without elapsed_s: %s", l)
		}
		sb.WriteString(l[:i] + "\n")
	}
	return sb.String()
}

func TestTuneWorkersDeterministic(t *testing.T) {
	a := tuneRun(t, smallConfig, "--workers", "1")
	b := tuneRun(t, smallConfig, "--workers", "4")
	if ha, hb := stripElapsed(t, historyLines(t, a)), stripElapsed(t, historyLines(t, b)); ha != hb {
		t.Errorf("history differs between 1 and 4 workers:\n%s\n%s", ha, hb)
	}
	wa, _ := os.ReadFile(filepath.Join(a, "weights.yaml"))
	wb, _ := os.ReadFile(filepath.Join(b, "weights.yaml"))
	if !bytes.Equal(wa, wb) {
		t.Errorf("weights.yaml differs between 1 and 4 workers")
	}
	c := tuneRun(t, smallConfig, "--seed", "4")
	if stripElapsed(t, historyLines(t, a)) == stripElapsed(t, historyLines(t, c)) {
		t.Error("seeds 3 and 4 gave the same history")
	}
}

func TestTuneBadInput(t *testing.T) {
	tests := []struct {
		config string
		args   []string
		want   string
	}{
		{"name: x\nsearch: {dept: 2}\n", nil, "c.yaml:2: search.dept: unknown key"},
		{"fitness:\n  metric: best\n", nil, "c.yaml:2: fitness.metric"},
		{smallConfig, []string{"--depth", "0"}, "flag --depth: 0: want 1 to 20 plies"},
		{smallConfig, []string{"--games", "-1"}, "flag --games"},
		{smallConfig, []string{"--workers", "-2"}, "flag --workers"},
		{smallConfig, []string{"--generations", "x"}, "-generations"},
		{smallConfig, []string{"extra"}, "unexpected argument"},
	}
	for _, tt := range tests {
		args := append([]string{"tune", "--config", writeConfig(t, tt.config), "--out", filepath.Join(t.TempDir(), "r")}, tt.args...)
		code, _, errs := runCLI(t, args...)
		if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line containing %q", tt.args, code, errs, tt.want)
		}
	}
	code, _, errs := runCLI(t, "tune", "--config", filepath.Join(t.TempDir(), "missing.yaml"))
	if code != 2 || !strings.Contains(errs, "missing.yaml") {
		t.Errorf("missing config: exit %d, %q", code, errs)
	}
	// An existing run directory is not overwritten.
	dir := tuneRun(t, smallConfig)
	code, _, errs = runCLI(t, "tune", "--config", writeConfig(t, smallConfig), "--out", dir)
	if code != 2 || !strings.Contains(errs, "evotune resume") {
		t.Errorf("existing --out: exit %d, %q", code, errs)
	}
}

func TestTuneHelpGolden(t *testing.T) {
	code, out, _ := runCLI(t, "tune", "-h")
	if code != 0 {
		t.Fatalf("tune -h: exit %d", code)
	}
	golden.Check(t, "testdata/tune-help.golden", []byte(out))
}

func TestExportAndResumeCLI(t *testing.T) {
	dir := tuneRun(t, smallConfig)
	ckdir := filepath.Join(dir, "checkpoints")
	entries, _ := os.ReadDir(ckdir)
	newest := filepath.Join(ckdir, entries[len(entries)-1].Name())
	older := filepath.Join(ckdir, entries[len(entries)-2].Name())

	// Export from the run: the same file the run wrote.
	out := filepath.Join(t.TempDir(), "w.yaml")
	if code, _, errs := runCLI(t, "export", dir, "-o", out); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errs)
	}
	a, _ := os.ReadFile(out)
	b, _ := os.ReadFile(filepath.Join(dir, "weights.yaml"))
	if !bytes.Equal(a, b) {
		t.Errorf("export wrote a different file from the run's weights.yaml")
	}
	// A complete run resumes to "complete", exit 0.
	code, stdout, _ := runCLI(t, "resume", dir)
	if code != 0 || !strings.Contains(stdout, "is complete") {
		t.Errorf("resume of a finished run: exit %d, %q", code, stdout)
	}
	// From a torn newest checkpoint: a notice, and the older one's weights.
	data, _ := os.ReadFile(newest)
	os.WriteFile(newest, data[:len(data)/2], 0o644)
	code, stdout, errs := runCLI(t, "export", dir, "-o", "-")
	if code != 0 || !strings.Contains(errs, "truncated") || !strings.Contains(errs, filepath.Base(older)) || !strings.Contains(stdout, "format: evotune.weights/v1") {
		t.Errorf("export with a torn checkpoint: exit %d, stderr %q", code, errs)
	}
	// From one checkpoint file.
	if code, _, errs := runCLI(t, "export", older, "-o", out); code != 0 {
		t.Errorf("export of a checkpoint file: exit %d: %s", code, errs)
	}
	if _, err := eval.ReadWeightsFile(out); err != nil {
		t.Errorf("exported file does not load: %v", err)
	}
	// Resuming replays the generation the torn checkpoint held, to the
	// same end.
	code, _, errs = runCLI(t, "resume", dir)
	if code != 0 || !strings.Contains(errs, "notice") || !strings.Contains(errs, "truncated") {
		t.Errorf("resume with a torn checkpoint: exit %d, stderr %q", code, errs)
	}
	if again, _ := os.ReadFile(filepath.Join(dir, "weights.yaml")); !bytes.Equal(again, b) {
		t.Errorf("the run resumed past a torn checkpoint wrote different weights")
	}
	// No checkpoint at all: exit 1, naming the directory.
	empty := t.TempDir()
	if code, _, errs := runCLI(t, "export", empty); code != 1 || !strings.Contains(errs, empty) {
		t.Errorf("export of a directory without checkpoints: exit %d, %q", code, errs)
	}
	if code, _, errs := runCLI(t, "resume", empty); code != 1 || !strings.Contains(errs, "cannot resume") {
		t.Errorf("resume of a directory without checkpoints: exit %d, %q", code, errs)
	}
	if entries, _ := os.ReadDir(empty); len(entries) != 0 {
		t.Errorf("a failed resume left %d files in a directory that is not a run", len(entries))
	}
	for _, args := range [][]string{{"resume"}, {"resume", filepath.Join(empty, "nope")}, {"export"}, {"export", filepath.Join(empty, "nope")}, {"resume", dir, "--workers", "-1"}} {
		if code, _, errs := runCLI(t, args...); code != 2 || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want 2 and one line", args, code, errs)
		}
	}
}

// cancellingPool plays its first batch and then cancels the run.
type cancellingPool struct {
	p      tuner.Pool
	cancel context.CancelFunc
}

func (cp *cancellingPool) Play(ctx context.Context, b *tuner.Batch, results [][]engine.Result, done tuner.GameDone) error {
	err := cp.p.Play(ctx, b, results, done)
	cp.cancel()
	return err
}

// TestTuneNoStoppingCondition checks that a run with neither generations
// nor duration says so on its first line, before it plays anything.
func TestTuneNoStoppingCondition(t *testing.T) {
	cfg := strings.Replace(smallConfig, "generations: 3\n", "", 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := options{newPool: func(workers int) tuner.Pool {
		return &cancellingPool{p: tuner.NewLocalPool(workers), cancel: cancel}
	}}
	var stdout, stderr bytes.Buffer
	code := runWith(ctx, o, []string{"tune", "--config", writeConfig(t, cfg), "--out", filepath.Join(t.TempDir(), "run")}, &stdout, &stderr)
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d (interrupted)\n%s\n%s", code, exitInterrupted, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "report    ") {
		t.Errorf("the run does not say where its report is:\n%s", stdout.String())
	}
	first, _, _ := strings.Cut(stdout.String(), "\n")
	if !strings.HasPrefix(first, "note      no stopping condition: runs until interrupted") {
		t.Errorf("first line = %q, want the no-stopping-condition note", first)
	}
	// With a limit the note is absent. (The run itself is checked: resuming
	// a finished run returns before any note could be printed.)
	code, out, errs := runCLI(t, "tune", "--config", writeConfig(t, smallConfig), "--out", filepath.Join(t.TempDir(), "run"))
	if code != 0 {
		t.Fatalf("tune: exit %d: %s", code, errs)
	}
	if strings.Contains(out, "no stopping condition") {
		t.Errorf("a run with generations: 3 printed the note:\n%s", out)
	}
}

// reportWatcher notes, as each batch starts, whether the run's report
// exists yet.
type reportWatcher struct {
	p      tuner.Pool
	path   string
	exists map[int]bool // by the batch's generation
}

func (rw *reportWatcher) Play(ctx context.Context, b *tuner.Batch, results [][]engine.Result, done tuner.GameDone) error {
	_, err := os.Stat(rw.path)
	rw.exists[b.Generation] = err == nil
	return rw.p.Play(ctx, b, results, done)
}

// TestTuneRewritesReport checks that the report appears once the fifth
// generation is saved, while the run goes on.
func TestTuneRewritesReport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	rw := &reportWatcher{path: filepath.Join(dir, "report.html"), exists: map[int]bool{}}
	o := options{newPool: func(workers int) tuner.Pool {
		rw.p = tuner.NewLocalPool(workers)
		return rw
	}}
	var stdout, stderr bytes.Buffer
	cfg := strings.Replace(smallConfig, "generations: 3", "generations: 6", 1)
	if code := runWith(context.Background(), o, []string{"tune", "--config", writeConfig(t, cfg), "--out", dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	for g := range 5 {
		if rw.exists[g] {
			t.Errorf("report existed while generation %d played, before the fifth was saved: %v", g+1, rw.exists)
		}
	}
	if !rw.exists[5] {
		t.Errorf("report missing while generation 6 played, after the fifth was saved: %v", rw.exists)
	}
	if !strings.Contains(stdout.String(), "report    "+rw.path) {
		t.Errorf("summary does not name the report:\n%s", stdout.String())
	}
}

// TestTunePairedGain checks the summary's paired comparison of the tuned
// and starting weights against stats.Compare on the validations' games.
func TestTunePairedGain(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	// No final race, whose winner may be the start, which has no gain line.
	cfg := strings.Replace(smallConfig, "validation: {games: 4}", "validation: {games: 4, select: 0}", 1)
	code, out, errs := runCLI(t, "tune", "--config", writeConfig(t, cfg), "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	tu, _, _, err := tuner.LoadCheckpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := tu.State()
	c, err := stats.Compare(s.Validated.Results(tu.Config().Seed), s.Start.Results(tu.Config().Seed))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("gain      tuned/start mean score %.3f, 95%% CI [%.3f, %.3f], paired over %d games; tuned won %d, lost %d, tied %d",
		c.Ratio, c.RatioCI95.Lo, c.RatioCI95.Hi, c.Games, c.Wins, c.Losses, c.Ties)
	if !strings.Contains(out, want) {
		t.Errorf("summary lacks %q:\n%s", want, out)
	}
	if c.Games != s.Start.Games || c.Games == 0 {
		t.Errorf("paired over %d games, validations of %d", c.Games, s.Start.Games)
	}
}

// TestResumeWritesMissingWeights: a run killed after its last checkpoint
// but before its weights file was written is finished without a result;
// resume writes the file, the same bytes an uninterrupted run wrote,
// rather than saying there is nothing to do.
func TestResumeWritesMissingWeights(t *testing.T) {
	dir := tuneRun(t, inProcessConfig())
	path := filepath.Join(dir, "weights.yaml")
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCLI(t, "resume", dir); code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", code, out, errs)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != string(want) {
		t.Errorf("weights after resume: %v\n%s\nwant\n%s", err, got, want)
	}
	// Once written, the run is complete: nothing more to do.
	if code, out, _ := runCLI(t, "resume", dir); code != 0 || !strings.Contains(out, "is complete") {
		t.Errorf("resume of a complete run: exit %d\n%s", code, out)
	}
}

// TestResumeSpentDuration: a --duration the run has already spent is bad
// usage (the budget counts that time), in one line that says what to give;
// for an interrupted run, also how to end it now.
func TestResumeSpentDuration(t *testing.T) {
	// Ended by its generation limit and continued without one: only the
	// duration would stop it, at once.
	dir := tuneRun(t, smallConfig)
	code, _, errs := runCLI(t, "resume", dir, "--generations", "0", "--duration", "1ns")
	if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "flag --duration: 1ns is not more than the ") || !strings.Contains(errs, "gives it an hour more\n") {
		t.Errorf("resume --duration 1ns: exit %d, stderr %q: want 2 and one line naming the flag", code, errs)
	}
	// Interrupted after its second generation.
	cfg, err := tuner.ReadConfig([]byte(smallConfig), "small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	idir := filepath.Join(t.TempDir(), "interrupted")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	r, err := tuner.Create(cfg, idir, tuner.Options{Events: tuner.Events{Generation: func(rec tuner.Record) {
		if rec.Generation == 2 {
			cancel()
		}
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v", err)
	}
	r.Close()
	code, _, errs = runCLI(t, "resume", idir, "--duration", "1ns")
	if code != 2 || !strings.Contains(errs, "gives it an hour more, --generations 2 ends it now\n") {
		t.Errorf("resume of an interrupted run --duration 1ns: exit %d, stderr %q", code, errs)
	}
	// A longer budget plays on.
	code, out, errs := runCLI(t, "resume", idir, "--duration", "1h")
	if code != 0 || !strings.Contains(errs+out, "gen 3 ") {
		t.Errorf("resume --duration 1h: exit %d\n%s\n%s", code, out, errs)
	}
}

// TestResumeCompleteByDuration: a run its duration ended is continued by a
// longer duration, not a generation limit, and resume says so.
func TestResumeCompleteByDuration(t *testing.T) {
	dir := tuneRun(t, strings.Replace(smallConfig, "generations: 3", "generations: 0\nduration: 300ms", 1))
	code, out, errs := runCLI(t, "resume", dir)
	if code != 0 || !strings.Contains(out, "is complete (duration: 300ms spent") || !strings.Contains(out, "more      evotune resume "+dir+" --duration 1h0m") || strings.Contains(out, "--generations") {
		t.Errorf("resume of a run its duration ended: exit %d\n%s\n%s", code, out, errs)
	}
}
