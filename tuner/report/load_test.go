package report

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evotune/evotune/checkpoints"
	"github.com/evotune/evotune/engine/stats"
	"github.com/evotune/evotune/tuner"
)

// writeReport writes the default report of dir and returns the page.
func writeReport(t *testing.T, dir string) string {
	t.Helper()
	if err := Write(dir, ""); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, DefaultFile))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestFinishedRun(t *testing.T) {
	// Without a final race: its winner may be the start, which has no
	// paired figures against itself (TestFinalRaceRun has the race).
	dir := realRun(t, strings.Replace(smallYAML, "validation: {games: 4}", "validation: {games: 4, select: 0, average: 1}", 1), 0)
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.History) != 5 || r.State.Finished == "" || r.State.Validated == nil || len(r.Notices) != 0 {
		t.Fatalf("finished run: %d generations, done %q, validated %v, notices %q", len(r.History), r.State.Finished, r.State.Validated, r.Notices)
	}
	page := writeReport(t, dir)
	c, err := stats.Compare(r.State.Validated.Results(r.Config.Seed), r.State.Start.Results(r.Config.Seed))
	if err != nil {
		t.Fatal(err)
	}
	paired := fmt.Sprintf("Paired over the %d validation games: tuned/start mean score %.3f", c.Games, c.Ratio)
	for _, want := range []string{"finished: generations: 5 done", "evotune resume " + dir + " --generations 15", paired, "Reach 2048: start "} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// A checkpoint of an older evotune holds no games: no paired figures.
	r.State.Start.Scores, r.State.Validated.Scores = nil, nil
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "Reach rates are not shown") || strings.Contains(buf.String(), "Paired over") {
		t.Error("a state without the validations' games: want the note that reach rates are not shown, and no paired figures")
	}
}

func TestInterruptedRun(t *testing.T) {
	dir := realRun(t, smallYAML, 3)
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.History) != 3 || r.State.Finished != "" {
		t.Fatalf("interrupted run: %d generations, done %q", len(r.History), r.State.Finished)
	}
	page := writeReport(t, dir)
	if !strings.Contains(page, "not finished") || !strings.Contains(page, "<code>evotune resume "+dir+"</code>") {
		t.Errorf("page of an interrupted run does not say how to continue it")
	}
}

// TestRunJustStarted reads a run that has not completed a generation, with
// the lock held and the first history line half written, as a report
// written during the night's first minutes would.
func TestRunJustStarted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	run, err := tuner.Create(config(t, smallYAML), dir, tuner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	if err := os.WriteFile(filepath.Join(dir, tuner.HistoryFile), []byte(`{"generation":1,"evalu`), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.History) != 0 || len(r.Notices) != 0 {
		t.Errorf("a torn last line: %d generations, notices %q; want none of either", len(r.History), r.Notices)
	}
	page := writeReport(t, dir)
	if !strings.Contains(page, "No generation has completed yet") || strings.Contains(page, "<svg") {
		t.Errorf("page of a run without a generation should say so and draw nothing")
	}
}

func TestDamagedNewestCheckpoint(t *testing.T) {
	dir := realRun(t, smallYAML, 0)
	newest := filepath.Join(dir, tuner.CheckpointsDir, checkpoints.FileName(5))
	data, err := os.ReadFile(newest)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x40
	if err := os.WriteFile(newest, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.State.Generation != 4 || len(r.History) != 5 {
		t.Fatalf("state of generation %d, %d history lines; want 4 and 5", r.State.Generation, len(r.History))
	}
	joined := strings.Join(r.Notices, "\n")
	for _, want := range []string{"gen-00000005.ckpt", "gen-00000004.ckpt", "the checkpoint used to generation 4"} {
		if !strings.Contains(joined, want) {
			t.Errorf("notices %q lack %q", r.Notices, want)
		}
	}
	if page := writeReport(t, dir); !strings.Contains(page, "gen-00000005.ckpt") {
		t.Errorf("page does not show the damaged checkpoint's notice")
	}
}

func TestDamagedHistoryLine(t *testing.T) {
	dir := realRun(t, smallYAML, 0)
	path := filepath.Join(dir, tuner.HistoryFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	lines[1] = "{not json\n"
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.History) != 4 || len(r.Notices) != 1 || !strings.Contains(r.Notices[0], tuner.HistoryFile+":2:") {
		t.Errorf("%d generations, notices %q; want 4 and one naming line 2", len(r.History), r.Notices)
	}
}

func TestNotARun(t *testing.T) {
	empty := t.TempDir()
	file := filepath.Join(empty, "x.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{empty, file, filepath.Join(empty, "missing")} {
		_, err := Load(dir)
		if !errors.Is(err, ErrNotRun) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Load(%s) = %v, want one line wrapping ErrNotRun", dir, err)
		}
	}
	if _, err := os.Stat(filepath.Join(empty, tuner.CheckpointsDir)); err == nil {
		t.Errorf("Load created a checkpoints folder in a directory that is not a run")
	}
	if err := Write(empty, ""); !errors.Is(err, ErrNotRun) {
		t.Errorf("Write on a non-run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(empty, DefaultFile)); err == nil {
		t.Errorf("Write left a report in a directory that is not a run")
	}
}

func TestWriteReplaces(t *testing.T) {
	dir := realRun(t, smallYAML, 0)
	out := filepath.Join(t.TempDir(), "r.html")
	if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, out); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	if !strings.HasPrefix(string(b), "<!DOCTYPE html>") {
		t.Errorf("report not replaced")
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 1 {
		t.Errorf("%d files next to the report, want it alone (no temp file left)", len(entries))
	}
}

// TestFinalRaceRun checks that the page's tuned row and recommended
// weights are those of the final race's winner: the average of the last
// means, with its paired figures, or the start, which says so.
func TestFinalRaceRun(t *testing.T) {
	seen := map[bool]bool{} // by whether the start won
	for seed := 1; seed <= 12 && len(seen) < 2; seed++ {
		yml := strings.Replace(smallYAML, "validation: {games: 4}", "validation: {games: 4, select: 16}", 1)
		yml = strings.Replace(yml, "generations: 5", "generations: 10", 1)
		yml = strings.Replace(yml, "seed: 5", fmt.Sprintf("seed: %d", seed), 1)
		r, err := Load(realRun(t, yml, 0))
		if err != nil {
			t.Fatal(err)
		}
		v := r.State.Validated
		if v == nil || v.Race == nil {
			t.Fatalf("seed %d: validated %+v: the run no longer ends with a race", seed, v)
		}
		start := v.Generation == 0 && v.Average == 0
		if seen[start] {
			continue
		}
		seen[start] = true
		var buf bytes.Buffer
		if err := r.WriteHTML(&buf); err != nil {
			t.Fatal(err)
		}
		page := buf.String()
		want := []string{"the start weights (the standard set&#39;s defaults), which won the final race after generation 10", "The start won the final race: the recommended weights are the starting ones"}
		if !start {
			c, err := stats.Compare(v.Results(r.Config.Seed), r.State.Start.Results(r.Config.Seed))
			if err != nil {
				t.Fatal(err)
			}
			want = []string{
				fmt.Sprintf("the average of the distribution means of generations %d-%d, the winner of the final race after generation 10", v.Generation-v.Average+1, v.Generation),
				fmt.Sprintf("tuned/start mean score %.3f", c.Ratio),
			}
		}
		for _, w := range want {
			if !strings.Contains(page, w) {
				t.Errorf("seed %d: page lacks %q", seed, w)
			}
		}
	}
	if len(seen) < 2 {
		t.Fatalf("in 12 run seeds the final race was won by %v only: the test no longer sees both the start and the average win", seen)
	}
}
