package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/evotune/evotune/tuner"
)

// TestTuneProgressLines: a run's lines name each part as it begins (the
// start's validation, the final race, the winner's validation), every
// generation's line shows the candidates' best, median, mean and sigma
// and when the run ends by its limits, and a resumed run says where it
// goes on and what its budget has left.
func TestTuneProgressLines(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	cfg := strings.Replace(smallConfig, "validation: {games: 4}", "validation: {games: 4, select: 8}", 1)
	code, out, errs := runCLI(t, "tune", "--config", writeConfig(t, cfg), "--out", dir, "--generations", "2")
	if code != 0 {
		t.Fatalf("tune: exit %d\n%s", code, errs)
	}
	for _, re := range []string{
		`(?m)^phase     validating the start: 4 games$`,
		`(?m)^gen 1/2  best \d+  median \d+  mean \d+  sigma [0-9.]+  games \d+  [0-9.]+ games/(s|min)  \d+s  end in ~\d+s \(by its generations\)`,
		`(?m)^phase     the final race: up to \d+ games; end in ~\d+s \(by its generations\)$`,
	} {
		if !regexp.MustCompile(re).MatchString(errs) {
			t.Errorf("no line matches %s:\n%s", re, errs)
		}
	}
	if strings.Contains(out, "resumed") {
		t.Errorf("a new run says it resumed:\n%s", out)
	}

	code, out, errs = runCLI(t, "resume", dir, "--generations", "5", "--duration", "1h")
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, errs)
	}
	for _, re := range []string{
		`(?m)^resumed   at generation 3/5 \(2 done\); the run had finished, and its new limits let it go on$`,
		`(?m)^budget    spent \d+s( \(\d+s CPU\))?; left (59m\d\ds|1h0m0s) of 1h0m0s, 3 of 5 generations$`,
		`(?m)^stopped   generations: 5 done after 5 generations, \d+ games, \d+s \(\d+s over every process that ran it\)$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("no line matches %s:\n%s", re, out)
		}
	}
	if !regexp.MustCompile(`(?m)^gen 3/5  .* end in ~\d+s \(by its generations\)`).MatchString(errs) {
		t.Errorf("the resumed run's first generation line does not estimate its end:\n%s", errs)
	}
}

// TestDescribeProgress: the bar's description and the estimate as the
// lines show it, from a made-up progress.
func TestDescribeProgress(t *testing.T) {
	cfg, err := tuner.ReadConfig([]byte(smallConfig), "small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Resolve()
	tu, err := tuner.New(cfg, tuner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := time.Second
	for _, tc := range []struct {
		pr        tuner.Progress
		bar, line string
	}{
		{tuner.Progress{Phase: tuner.Phase{Kind: tuner.PhaseStart, Games: 4}, Elapsed: s, Estimate: tuner.Estimate{End: s, AtLeast: true, By: "generations"}},
			"validating start", ""},
		{tuner.Progress{Phase: tuner.Phase{Kind: tuner.PhaseGeneration, Generation: 2}, Played: 30, PlayTime: 20 * s, Elapsed: 100 * s,
			Estimate: tuner.Estimate{End: 190 * s, By: "duration"}},
			"gen 2/3 · 1.5 games/s · end in ~1m30s (duration)", "end in ~1m30s (by its duration)"},
		{tuner.Progress{Phase: tuner.Phase{Kind: tuner.PhaseRace}, Played: 3, PlayTime: 120 * s, Elapsed: 100 * s,
			Estimate: tuner.Estimate{End: 3700 * s, By: "generations", AtLeast: true}},
			"final race · 1.5 games/min · end in ≥1h0m0s", "end in 1h0m0s at least (by its generations; a search that has not played yet adds to it)"},
		{tuner.Progress{Phase: tuner.Phase{Kind: tuner.PhaseWinner}, Played: 3, PlayTime: 120 * s, Estimate: tuner.Estimate{Open: true}},
			"validating winner · 1.5 games/min", ""},
	} {
		if got := describeProgress(tc.pr, tu); got != tc.bar {
			t.Errorf("bar %q, want %q", got, tc.bar)
		}
		if got := fmtEstimate(tc.pr); got != tc.line {
			t.Errorf("line %q, want %q", got, tc.line)
		}
	}
}
