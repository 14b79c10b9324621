package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/evotune/evotune/eval"
)

// TestTuneOptimizerOptions runs a tune under CMA-ES's opt-in options from
// the command line: the config line names them; under lr_adapt every
// progress line shows the learning rates, below 1 from the first update
// (whose estimate starts from nothing); and an option CEM lacks is refused
// in one line that names its key.
func TestTuneOptimizerOptions(t *testing.T) {
	const cfg = `name: options
seed: 5
generations: 4
features: standard
optimizer: {OPTIMIZER}
search: {algorithm: expectimax, depth: 1}
fitness: {games: 4}
validation: {games: 4}
`
	tune := func(optimizer string) (int, string, string) {
		return runCLI(t, "tune", "--config", writeConfig(t, strings.Replace(cfg, "OPTIMIZER", optimizer, 1)),
			"--out", filepath.Join(t.TempDir(), "run"))
	}
	for _, c := range []struct{ options, config string }{
		{"lr_adapt: true", "cmaes (learning rate adaptation) on standard"},
		{"mirrored: true", "cmaes (mirrored sampling) on standard"},
		{"lr_adapt: true, mirrored: true", "cmaes (learning rate adaptation, mirrored sampling) on standard"},
		// Settling's rate is 1 for its first 10 generations.
		{"mirrored: true, settle: true", "cmaes (mirrored sampling, settling) on standard"},
	} {
		code, out, errs := tune("method: cmaes, population: 4, " + c.options)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s\n%s", c.options, code, out, errs)
		}
		if !strings.Contains(out, c.config) {
			t.Errorf("%s: the config line does not say %q:\n%s", c.options, c.config, out)
		}
		rates := regexp.MustCompile(`(?m)^gen \d+/4 .*  learning rates (0\.\d\d), (0\.\d\d)`).FindAllStringSubmatch(errs, -1)
		if want := map[bool]int{true: 4, false: 0}[strings.Contains(c.options, "lr_adapt")]; len(rates) != want {
			t.Errorf("%s: %d progress lines show learning rates below 1, want %d:\n%s", c.options, len(rates), want, errs)
		}
	}
	for _, key := range []string{"lr_adapt", "mirrored", "settle"} {
		code, out, errs := tune("method: cem, " + key + ": true")
		if lines := strings.Split(strings.TrimSpace(errs), "\n"); code != 2 || len(lines) != 1 ||
			!strings.Contains(errs, "optimizer."+key) || !strings.Contains(errs, "method: cmaes") {
			t.Errorf("%s with cem: exit %d, want 2 and one line naming optimizer.%s:\n%s\n%s", key, code, key, out, errs)
		}
	}
}

// TestTuneFinalRace runs a tune from the command line and checks what it
// says of its final race: the config line names it, the progress line of
// the last generation lists the entrants (the start, the finalists, the
// latest mean and the average of the last 3 means: half of 6 generations)
// with their games and fitness and the winner, and the summary's tuned
// weights are the winner's, as exported.
func TestTuneFinalRace(t *testing.T) {
	const average = "the average of the distribution means of generations 4-6"
	for _, seed := range []string{"3", "4", "5"} {
		cfg := `name: race
seed: ` + seed + `
generations: 6
features: standard
optimizer: {population: 6}
search: {algorithm: expectimax, depth: 1}
fitness: {games: 8}
validation: {games: 20, select: 24, finalists: 2, every: 2}
noise: {handling: false}
`
		dir := filepath.Join(t.TempDir(), "run")
		code, out, errs := runCLI(t, "tune", "--config", writeConfig(t, cfg), "--out", dir, "--workers", "1")
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, errs)
		}
		if want := "recommending the winner of a race on up to 24 games each of the average of its last means (up to 256, half of its generations at most), its last mean and its start, with its last 2 means every 2 generations"; !strings.Contains(out, want) {
			t.Errorf("the config line does not say %q:\n%s", want, out)
		}
		race := regexp.MustCompile(`(?m)^gen 6/6 .*final race on (\d+) games: start \d+(?: \(out after \d+ games\))?, gen 2 \d+(?: \(out after \d+ games\))?, gen 4 \d+(?: \(out after \d+ games\))?, gen 6 \d+(?: \(out after \d+ games\))?, average of gen 4-6 \d+(?: \(out after \d+ games\))?; (the start|gen \d|the average) wins; export now writes (the start weights|the distribution mean of generation \d|` + average + `)`).FindStringSubmatch(errs + out)
		if race == nil {
			t.Fatalf("no progress line tells the final race of the start, generations 2, 4 and 6 and the average of 4-6:\n%s%s", out, errs)
		}
		// The line names the winner the validation measured.
		won, name := strings.TrimPrefix(race[2], "gen "), "the distribution mean of generation "+strings.TrimPrefix(race[2], "gen ")
		switch race[2] {
		case "the start":
			won, name = "0", "the start weights"
		case "the average":
			won, name = "6", average
		}
		if race[3] != name {
			t.Errorf("%s won, %s was validated", race[2], race[3])
		}
		tuned := regexp.MustCompile(`(?m)^tuned .*, (the distribution mean of generation \d+|` + average + `)$`).FindStringSubmatch(out)
		if won == "0" {
			if !strings.Contains(out, "tuned     the start: it won the final race") {
				t.Errorf("the start won, and the summary does not say so:\n%s", out)
			}
		} else if tuned == nil || tuned[1] != name {
			t.Errorf("the summary's tuned weights are %v, want the winner, %s:\n%s", tuned, name, out)
		}
		wf, err := eval.ReadWeightsFile(filepath.Join(dir, "weights.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if got := strconv.Itoa(wf.Provenance.Generation); got != won {
			t.Errorf("weights.yaml is generation %s's, want the winner, %s", got, won)
		}
	}
}

// TestTuneRaceNamesItsWinner: where the latest mean and the average of the
// last means race (both end at the last generation; the average is of the
// last 5, half of the 10 generations), the progress line names the entrant
// that won, the one the validation then measured.
func TestTuneRaceNamesItsWinner(t *testing.T) {
	seen := map[string]bool{}
	for seed := 1; seed <= 8 && !(seen["gen 10"] && len(seen) >= 2); seed++ {
		cfg := strings.Replace(smallConfig, "generations: 3", "generations: 10", 1)
		cfg = strings.Replace(cfg, "seed: 3", "seed: "+strconv.Itoa(seed), 1)
		cfg = strings.Replace(cfg, "validation: {games: 4}", "validation: {games: 4, select: 32}", 1)
		code, out, errs := runCLI(t, "tune", "--config", writeConfig(t, cfg), "--out", filepath.Join(t.TempDir(), "run"))
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, errs)
		}
		m := regexp.MustCompile(`final race on \d+ games: .*; (the start|gen 10|the average) wins; export now writes (the start weights|the distribution mean of generation 10|the average of the distribution means of generations 6-10)[, ]`).FindStringSubmatch(errs + out)
		if m == nil {
			t.Fatalf("seed %d: no line of the final race of the start, the last mean and the average:\n%s%s", seed, out, errs)
		}
		want := map[string]string{"the start": "the start weights", "gen 10": "the distribution mean of generation 10", "the average": "the average of the distribution means of generations 6-10"}[m[1]]
		if m[2] != want {
			t.Errorf("seed %d: %q wins, %q validated", seed, m[1], m[2])
		}
		seen[m[1]] = true
	}
	if !seen["gen 10"] || len(seen) < 2 {
		t.Errorf("winners seen %v: the seeds no longer show the last mean winning, and another", seen)
	}
}

// TestTuneLegacyRecommendation: a config that names a rule the final race
// replaced is refused, with its line and the reason.
func TestTuneLegacyRecommendation(t *testing.T) {
	for key, want := range map[string]string{
		"validation: {every: 1, games: 4, recommend: best}\n": `c.yaml:8: validation.recommend: "best": no longer a setting`,
		"validation: {every: 1, games: 4, fallback: 0.05}\n":  "c.yaml:8: validation.fallback: 0.05: no longer a setting",
		"validation: {every: 1, games: 4, patience: 2}\n":     "c.yaml:8: validation.patience: 2: no longer a setting",
	} {
		cfg := strings.Replace(smallConfig, "validation: {games: 4}\n", key, 1)
		code, _, errs := runCLI(t, "tune", "--config", writeConfig(t, cfg), "--out", filepath.Join(t.TempDir(), "run"))
		if code != 2 || !strings.Contains(errs, want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%s: exit %d, %q; want 2 and one line with %q", strings.TrimSpace(key), code, errs, want)
		}
	}
}
