package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evotune/evotune/eval"
)

const ladderConfig = `name: ladder
seed: 3
generations: 5
features: standard
optimizer: {method: cmaes, population: 4}
search: {algorithm: expectimax, depth: 1}
fitness: {games: 3}
validation: {games: 4}
stages:
  - name: shallow
    generations: 2
  - name: deeper
    search: {depth: 2}
    games: 4
    population: 6
    sigma: 0.2
`

// TestTuneStages runs a ladder from the command line: the ladder and each
// stage's beginning are shown, and export writes the last stage's search
// and the stage in provenance.
func TestTuneStages(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	code, out, errs := runCLI(t, "tune", "--config", writeConfig(t, ladderConfig), "--out", dir)
	if code != 0 {
		t.Fatalf("tune: exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{
		"\nstages    1 plies × 3 games (2 gen) → 2 plies × 4 games (until the end)\n",
		"\nstage 1/2 \"shallow\": expectimax, 1 ply, 4 × 3 games, sigma 0.3, from the starting weights\n",
		"candidates × 4 games (3 in whole blocks of 4; noise handling: 4 to 12",
		"\nstage     evotune export " + dir + " --stage shallow   (its winner, for expectimax, 1 ply, to weights-shallow.yaml)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	for _, want := range []string{
		"\nstage 1 ended (generations: 2 done)\nstage 2/2 \"deeper\": expectimax, 2 plies, 6 × 4 games, sigma 0.2, from the winner of stage 1's final race (",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	wf, err := eval.ReadWeightsFile(filepath.Join(dir, "weights.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if p := wf.Provenance; wf.Search.Depth != 2 || p == nil || p.Stage == nil || *p.Stage != (eval.Stage{Index: 2, Of: 2, Name: "deeper"}) {
		t.Errorf("weights file: search %+v, provenance %+v", wf.Search, wf.Provenance)
	}
	exported := filepath.Join(t.TempDir(), "w.yaml")
	if code, _, errs := runCLI(t, "export", dir, "-o", exported); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errs)
	}
	a, _ := os.ReadFile(exported)
	b, _ := os.ReadFile(filepath.Join(dir, "weights.yaml"))
	if !bytes.Equal(a, b) || !strings.Contains(string(a), "stage: {index: 2, of: 2, name: deeper}") {
		t.Errorf("export of a staged run:\n%s", a)
	}
}

// TestTuneStagesRefusesFlags: the flags that would change a stage's search,
// games or population are refused on a config with stages; the run's
// limits are not.
func TestTuneStagesRefusesFlags(t *testing.T) {
	for _, flag := range []string{"--depth", "--games", "--population"} {
		args := []string{"tune", "--config", writeConfig(t, ladderConfig), "--out", filepath.Join(t.TempDir(), "r"), flag, "3"}
		code, _, errs := runCLI(t, args...)
		if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "flag "+flag+": the config has stages") {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line refusing the flag", flag, code, errs)
		}
	}
	dir := filepath.Join(t.TempDir(), "r")
	if code, out, errs := runCLI(t, "tune", "--config", writeConfig(t, ladderConfig), "--out", dir, "--generations", "3"); code != 0 || !strings.Contains(out, "generations: 3 done after 3 generations") {
		t.Errorf("--generations on a ladder: exit %d\n%s\n%s", code, out, errs)
	}
}

// TestExportStage: export --stage writes a stage's winner beside the run's
// result, after its checkpoint is gone: the file a run that stopped at the
// stage's end exports, byte for byte; the last stage's is the run's own
// result, where the run stopped and again where it went on to its end. A
// checkpoint file, a stage that does not exist and a run without stages
// are refused, in one line, with exit 2 (a stage still going on: in
// TestSelectStageRefuses).
func TestExportStage(t *testing.T) {
	config := writeConfig(t, ladderConfig+"checkpoints: {keep: 1}\n")
	dir := filepath.Join(t.TempDir(), "run")
	if code, out, errs := runCLI(t, "tune", "--config", config, "--out", dir, "--generations", "3"); code != 0 {
		t.Fatalf("tune: exit %d\n%s\n%s", code, out, errs)
	}
	refused := func(what string, args []string, msg string) {
		t.Helper()
		code, _, errs := runCLI(t, args...)
		if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, msg) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line saying %q", what, code, errs, msg)
		}
	}
	refused("no such stage", []string{"export", dir, "--stage", "3"}, `stage "3": the run ladder has stages shallow, deeper (a name, or a number from 1 to 2)`)
	ckpts, _ := filepath.Glob(filepath.Join(dir, "checkpoints", "*.ckpt"))
	if len(ckpts) != 1 || !strings.HasSuffix(ckpts[0], "gen-00000003.ckpt") {
		t.Fatalf("checkpoints %v: want generation 3's alone, the stage's end pruned", ckpts)
	}
	refused("a checkpoint file", []string{"export", ckpts[0], "--stage", "1"}, "is a file; give the run directory")
	refused("a run without stages", []string{"export", tuneRun(t, smallConfig), "--stage", "1"}, "has no stages")

	// The run stopped in its second stage, which its stop ended.
	if code, _, errs := runCLI(t, "export", dir, "--stage", "deeper"); code != 0 {
		t.Fatalf("export --stage deeper: exit %d: %s", code, errs)
	}
	sameFile(t, filepath.Join(dir, "weights-deeper.yaml"), filepath.Join(dir, "weights.yaml"))
	result, _ := os.ReadFile(filepath.Join(dir, "weights.yaml"))
	code, out, errs := runCLI(t, "export", dir, "--stage", "shallow")
	if code != 0 || !strings.Contains(out, "wrote "+filepath.Join(dir, "weights-shallow.yaml")+": ") || !strings.Contains(out, "from the final race of stage shallow in") {
		t.Fatalf("export --stage shallow: exit %d\n%s\n%s", code, out, errs)
	}
	if now, _ := os.ReadFile(filepath.Join(dir, "weights.yaml")); !bytes.Equal(now, result) {
		t.Errorf("export --stage changed the run's weights.yaml")
	}
	// The same ladder stopped where its first stage ends ran that race.
	short := filepath.Join(t.TempDir(), "short")
	if code, out, errs := runCLI(t, "tune", "--config", config, "--out", short, "--generations", "2"); code != 0 {
		t.Fatalf("tune: exit %d\n%s\n%s", code, out, errs)
	}
	sameFile(t, filepath.Join(dir, "weights-shallow.yaml"), filepath.Join(short, "weights.yaml"))

	if code, out, errs := runCLI(t, "resume", dir, "--generations", "5"); code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", code, out, errs)
	}
	if code, _, errs := runCLI(t, "export", dir, "--stage", "2"); code != 0 {
		t.Fatalf("export --stage 2: exit %d: %s", code, errs)
	}
	sameFile(t, filepath.Join(dir, "weights-deeper.yaml"), filepath.Join(dir, "weights.yaml"))
	page, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	if n := strings.Count(string(page), "evotune export "+dir+" --stage "); n != 1 || !strings.Contains(string(page), "--stage shallow") {
		t.Errorf("the report gives %d export --stage commands, want 1, for the first stage", n)
	}
	if code, out, errs := runCLI(t, "export", dir, "--stage", "shallow", "-o", "-"); code != 0 || !strings.Contains(out, "stage: {index: 1, of: 2, name: shallow}") {
		t.Errorf("export --stage shallow -o -: exit %d\n%s\n%s", code, out, errs)
	}
}

// sameFile fails the test unless the files a and b hold the same bytes.
func sameFile(t *testing.T, a, b string) {
	t.Helper()
	x, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	// The head notes say when each file was written (the run's end, or a
	// stage read back from its history): everything else must be equal,
	// each value's note included.
	if !bytes.Equal(withoutHeadNotes(x), withoutHeadNotes(y)) {
		t.Errorf("%s differs from %s:\n%s\n---\n%s", a, b, x, y)
	}
}

// withoutHeadNotes drops a weights file's comment lines, its head notes.
func withoutHeadNotes(b []byte) []byte {
	var out []byte
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if !bytes.HasPrefix(l, []byte("#")) {
			out = append(out, l...)
		}
	}
	return out
}
