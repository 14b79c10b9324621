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

// TestTuneLRAdapt runs a tune under optimizer.lr_adapt from the command
// line: the config line names it, and every progress line shows the
// learning rates, below 1 from the first update (whose estimate starts
// from nothing).
func TestTuneLRAdapt(t *testing.T) {
	const cfg = `name: lra
seed: 5
generations: 4
features: standard
optimizer: {method: cmaes, population: 4, lr_adapt: true}
search: {algorithm: expectimax, depth: 1}
fitness: {games: 4}
validation: {every: 2, games: 4}
`
	code, out, errs := runCLI(t, "tune", "--config", writeConfig(t, cfg), "--out", filepath.Join(t.TempDir(), "run"))
	if code != 0 {
		t.Fatalf("tune: exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "cmaes (learning rate adaptation) on standard") {
		t.Errorf("the config line does not name learning rate adaptation:\n%s", out)
	}
	rates := regexp.MustCompile(`(?m)^gen \d+/4 .*  learning rates (0\.\d\d), (0\.\d\d)`).FindAllStringSubmatch(errs, -1)
	if len(rates) != 4 {
		t.Fatalf("%d progress lines show learning rates below 1, want 4:\n%s", len(rates), errs)
	}
}

// TestTuneMirrored runs a tune under optimizer.mirrored, with learning
// rate adaptation too, from the command line: the config line names both,
// and a config that asks CEM for it is refused in one line naming the key.
func TestTuneMirrored(t *testing.T) {
	const cfg = `name: mirrored
seed: 5
generations: 2
features: standard
optimizer: {method: cmaes, population: 4, mirrored: true, lr_adapt: true}
search: {algorithm: expectimax, depth: 1}
fitness: {games: 4}
validation: {every: 2, games: 4}
`
	code, out, errs := runCLI(t, "tune", "--config", writeConfig(t, cfg), "--out", filepath.Join(t.TempDir(), "run"))
	if code != 0 {
		t.Fatalf("tune: exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "cmaes (learning rate adaptation, mirrored sampling) on standard") {
		t.Errorf("the config line does not name mirrored sampling:\n%s", out)
	}
	bad := writeConfig(t, strings.Replace(cfg, "method: cmaes, population: 4, mirrored: true, lr_adapt: true", "method: cem, mirrored: true", 1))
	code, out, errs = runCLI(t, "tune", "--config", bad, "--out", filepath.Join(t.TempDir(), "run"))
	if lines := strings.Split(strings.TrimSpace(errs), "\n"); code != 2 || len(lines) != 1 ||
		!strings.Contains(errs, "optimizer.mirrored") || !strings.Contains(errs, "method: cmaes") {
		t.Errorf("mirrored with cem: exit %d, want 2 and one line naming the key:\n%s\n%s", code, out, errs)
	}
}
