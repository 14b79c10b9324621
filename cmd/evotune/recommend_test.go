package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/evotune/evotune/eval"
)

// TestTuneRecommendBest runs a tune under validation.recommend: best and
// patience from the command line: the progress lines say which
// generation's mean is still the best, the run stops on its patience, and
// the summary and the weights file are that generation's.
func TestTuneRecommendBest(t *testing.T) {
	const cfg = `name: best
seed: 5
generations: 30
features: standard
optimizer: {method: cmaes, population: 4}
search: {algorithm: expectimax, depth: 1}
fitness: {games: 4}
validation: {every: 1, games: 4, recommend: best, patience: 2}
`
	dir := filepath.Join(t.TempDir(), "run")
	code, out, errs := runCLI(t, "tune", "--config", writeConfig(t, cfg), "--out", dir)
	if code != 0 {
		t.Fatalf("tune: exit %d\n%s\n%s", code, out, errs)
	}
	still := regexp.MustCompile(`, the best is still generation (\d+)'s`).FindAllStringSubmatch(errs, -1)
	if len(still) == 0 {
		t.Fatalf("no progress line says which generation is still the best:\n%s", errs)
	}
	best := still[len(still)-1][1]
	if !strings.Contains(out, "stopped   patience: 2 validations without a better one") {
		t.Errorf("the summary does not say the run stopped on its patience:\n%s", out)
	}
	if !strings.Contains(out, ", generation "+best+"\n") {
		t.Errorf("the summary's tuned line is not generation %s's:\n%s", best, out)
	}
	wf, err := eval.ReadWeightsFile(filepath.Join(dir, "weights.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if g, _ := strconv.Atoi(best); wf.Provenance == nil || wf.Provenance.Generation != g {
		t.Errorf("weights.yaml is from generation %v, want %s", wf.Provenance, best)
	}
	// Resumed with a higher limit, it stays stopped and says why.
	code, out, errs = runCLI(t, "resume", dir, "--generations", "60")
	if code != 0 || !strings.Contains(out, "it converged, so no higher limit continues it") {
		t.Errorf("resume of a run stopped on its patience: exit %d, does not say it converged:\n%s\n%s", code, out, errs)
	}
}

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
validation: {every: 2, games: 4}
`
	tune := func(optimizer string) (int, string, string) {
		return runCLI(t, "tune", "--config", writeConfig(t, strings.Replace(cfg, "OPTIMIZER", optimizer, 1)),
			"--out", filepath.Join(t.TempDir(), "run"))
	}
	for _, c := range []struct{ options, config string }{
		{"lr_adapt: true", "cmaes (learning rate adaptation) on standard"},
		{"mirrored: true", "cmaes (mirrored sampling) on standard"},
		{"lr_adapt: true, mirrored: true", "cmaes (learning rate adaptation, mirrored sampling) on standard"},
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
	for _, key := range []string{"lr_adapt", "mirrored"} {
		code, out, errs := tune("method: cem, " + key + ": true")
		if lines := strings.Split(strings.TrimSpace(errs), "\n"); code != 2 || len(lines) != 1 ||
			!strings.Contains(errs, "optimizer."+key) || !strings.Contains(errs, "method: cmaes") {
			t.Errorf("%s with cem: exit %d, want 2 and one line naming optimizer.%s:\n%s\n%s", key, code, key, out, errs)
		}
	}
}

// TestTuneFallback runs a tune under validation.fallback at its loosest
// level from the command line: the fallback means the race, a progress
// line says which generation the run went back to, and the weights file is
// the generation the last race recommended.
func TestTuneFallback(t *testing.T) {
	const cfg = `name: fallback
seed: 5
generations: 10
features: standard
optimizer: {method: cmaes, population: 4}
search: {algorithm: expectimax, depth: 1}
fitness: {games: 4}
validation: {every: 1, games: 4, fallback: 0.5}
`
	dir := filepath.Join(t.TempDir(), "run")
	code, out, errs := runCLI(t, "tune", "--config", writeConfig(t, cfg), "--out", dir)
	if code != 0 {
		t.Fatalf("tune: exit %d\n%s\n%s", code, out, errs)
	}
	if want := "racing the recommended one on up to 200 games (fallback at 0.5)"; !strings.Contains(out, want) {
		t.Errorf("the config line does not say %q:\n%s", want, out)
	}
	races := regexp.MustCompile(`(?m)^gen (\d+)/10 .*; (won|lost) its race (?:against|to) (?:the start|generation (\d+)'s) \([^)]*\)(, by the fallback's margin: back there with half the step size)?`).FindAllStringSubmatch(errs, -1)
	if len(races) != 10 {
		t.Fatalf("%d progress lines say how their race went, want 10:\n%s", len(races), errs)
	}
	recommended, fell := "0", 0
	for _, r := range races {
		if r[2] == "won" {
			recommended = r[1]
			continue
		}
		recommended = cmpOr(r[3], "0")
		if r[4] != "" {
			fell++
		}
	}
	if fell == 0 {
		t.Fatalf("no progress line says the run fell back:\n%s", errs)
	}
	wf, err := eval.ReadWeightsFile(filepath.Join(dir, "weights.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if wf.Provenance == nil || strconv.Itoa(wf.Provenance.Generation) != recommended {
		t.Errorf("weights.yaml is from %v, want generation %s, the last race's winner", wf.Provenance, recommended)
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// TestTuneRace runs a tune under validation.recommend: race and checks
// what it says: the config line names the race, each validation's line
// says how its race went and what is recommended, and the summary's tuned
// weights are the ones the last race recommended, as exported.
func TestTuneRace(t *testing.T) {
	const cfg = `name: race
seed: 3
generations: 6
features: standard
optimizer: {population: 6}
search: {algorithm: expectimax, depth: 1}
fitness: {games: 8}
validation: {every: 2, games: 20, recommend: race, select: 20, fallback: 0.2}
noise: {handling: false}
`
	dir := filepath.Join(t.TempDir(), "run")
	code, out, errs := runCLI(t, "tune", "--config", writeConfig(t, cfg), "--out", dir, "--workers", "1")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if want := "each validated mean racing the recommended one on up to 20 games (fallback at 0.2)"; !strings.Contains(out, want) {
		t.Errorf("the config line does not say %q:\n%s", want, out)
	}
	races := regexp.MustCompile(`(?m)^gen (\d)/6 .* validated \d+ \(mean score \d+ ± \d+\); (won|lost) its race (?:against|to) (the start|generation \d's) \((\d+) against (\d+) on (\d+) games\)`).FindAllStringSubmatch(errs+out, -1)
	if len(races) != 3 {
		t.Fatalf("%d validations say how their race went, want 3:\n%s%s", len(races), out, errs)
	}
	recommended := "0"
	for _, r := range races {
		won := r[2] == "won"
		if a, b := atoiOr(r[4]), atoiOr(r[5]); won != (a >= b) {
			t.Errorf("generation %s: %s its race at %s against %s", r[1], r[2], r[4], r[5])
		}
		if won {
			recommended = r[1]
		}
	}
	tuned := regexp.MustCompile(`(?m)^tuned .*, generation (\d+)$`).FindStringSubmatch(out)
	if recommended == "0" {
		if !strings.Contains(out, "tuned     the start: no validated mean beat it") {
			t.Errorf("no mean won a race, and the summary does not say the start stays:\n%s", out)
		}
	} else if tuned == nil || tuned[1] != recommended {
		t.Errorf("the summary's tuned weights are %v, want the last race's winner, generation %s:\n%s", tuned, recommended, out)
	}
	wf, err := eval.ReadWeightsFile(filepath.Join(dir, "weights.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strconv.Itoa(wf.Provenance.Generation); got != recommended {
		t.Errorf("weights.yaml is generation %s's, want the last race's winner, %s", got, recommended)
	}
}

func atoiOr(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
