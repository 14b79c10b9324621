package main

import (
	"context"
	"errors"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/internal/golden"
	"github.com/evotune/evotune/tuner"
)

// momentsConfig is a ladder of the nneonneo set (so that every form
// exports), small enough to play in seconds: a stage of 4 generations,
// then one of 4 more with a smaller step.
const momentsConfig = `name: moments
seed: 3
generations: 8
features: nneonneo
optimizer: {population: 4}
search: {algorithm: nneonneo, depth: 3}
fitness: {games: 2}
validation: {games: 4, select: 8, finalists: 1, every: 2}
noise: {handling: false}
stages: [{name: first, generations: 4}, {name: second, sigma: 0.15}]
checkpoints: {keep: 2}
`

// runToMoment runs momentsConfig in a new directory and stops it as a
// user's Ctrl-C would: once the start is validated (stop -1), after
// generation stop has been saved, or at its end (stop 0).
func runToMoment(t *testing.T, stop int) string {
	t.Helper()
	cfg, err := tuner.ReadConfig([]byte(momentsConfig), "moments.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "moments")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ev := tuner.Events{
		Validation: func(_ *tuner.Validation, start bool) {
			if start && stop < 0 {
				cancel()
			}
		},
		Generation: func(rec tuner.Record) {
			if rec.Generation == stop {
				cancel()
			}
		},
	}
	r, err := tuner.Create(cfg, dir, tuner.Options{Events: ev})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Run(ctx); (err != nil) != (stop != 0) || err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("run to moment %d: %v", stop, err)
	}
	return dir
}

// storyTable returns the lines of the Recommended section's story table of
// a report page ("key: text"), and the recommended values by name.
func storyOfPage(t *testing.T, page string) ([]string, map[string]string) {
	t.Helper()
	i := strings.Index(page, `<table class="story">`)
	if i < 0 {
		t.Fatalf("the page has no story table")
	}
	rest := page[i:]
	end := strings.Index(rest, "</table>")
	var lines []string
	for _, m := range regexp.MustCompile(`<tr><th>([^<]*)</th><td>([^<]*)</td></tr>`).FindAllStringSubmatch(rest[:end], -1) {
		lines = append(lines, html.UnescapeString(m[1])+": "+html.UnescapeString(m[2]))
	}
	values := map[string]string{}
	rest = rest[end+len("</table>"):]
	rest = rest[:strings.Index(rest, `<h2 id="commands">`)]
	for _, m := range regexp.MustCompile(`<tr><th>([^<]+)</th><td class="n">[^<]*</td><td class="n">([^<]*)</td>`).FindAllStringSubmatch(rest, -1) {
		values[m[1]] = m[2]
	}
	return lines, values
}

// headNotes returns the comment lines under a weights file's first line.
func headNotes(yml string) []string {
	var lines []string
	for _, l := range strings.Split(yml, "\n")[1:] {
		if s, ok := strings.CutPrefix(l, "# "); ok {
			lines = append(lines, s)
		}
	}
	return lines
}

// reportNum is how the report writes a value (report.num): whole from
// 1000 on, 4 significant digits below.
func reportNum(x float64) string {
	switch {
	case math.Abs(x) >= 1000:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case x == 0:
		return "0"
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// TestStoryAtEveryMoment stops a ladder before its first generation ends,
// in its first stage, between its stages, in its second stage, and lets it
// end; at each moment it exports every form and renders the report. The
// report's Recommended section says, line for line, what the exported
// weights file says of itself, and shows its weights; the cpp block says
// the same and holds the same values; nothing on the page tells another
// story (the start recommended until the race, the band as what export
// writes); and the exports match their golden files.
func TestStoryAtEveryMoment(t *testing.T) {
	for _, m := range []struct {
		name   string
		stop   int
		moment tuner.Moment
		status string
	}{
		{"start", -1, tuner.MomentStart, "validated; run in progress: 0 of 8 generations done, stage 1 of 2 (first)"},
		{"stage1", 2, tuner.MomentStage, "not yet validated: what the run hands over were it to end now; run in progress: 2 of 8 generations done, stage 1 of 2 (first)"},
		{"between", 4, tuner.MomentBetween, "validated; run in progress: 4 of 8 generations done, stage 1 (first) has ended and stage 2 (second) starts from these weights"},
		{"stage2", 6, tuner.MomentStage, "not yet validated: what the run hands over were it to end now; run in progress: 6 of 8 generations done, stage 2 of 2 (second)"},
		{"end", 0, tuner.MomentEnd, "validated; run finished after 8 of 8 generations (generations: 8 done)"},
	} {
		dir := runToMoment(t, m.stop)
		tu, _, _, err := tuner.LoadCheckpoint(dir)
		if err != nil {
			t.Fatal(err)
		}
		st := tu.Story()
		if st.Moment != m.moment || st.Status != m.status {
			t.Errorf("%s: moment %d, status %q; want %d, %q", m.name, st.Moment, st.Status, m.moment, m.status)
		}

		yamlPath, cppPath := filepath.Join(dir, "out.yaml"), filepath.Join(dir, "out.h")
		code, yamlLine, errs := runCLI(t, "export", dir, "-o", yamlPath)
		if code != 0 {
			t.Fatalf("%s: export: exit %d: %s", m.name, code, errs)
		}
		code, cppLine, errs := runCLI(t, "export", dir, "--format", "cpp", "-o", cppPath)
		if code != 0 {
			t.Fatalf("%s: export --format cpp: exit %d: %s", m.name, code, errs)
		}
		for _, line := range []string{yamlLine, cppLine} {
			if !strings.Contains(line, st.What+"; "+st.Status+"; from ") || strings.Contains(line, "ends the run now") == st.Validated() {
				t.Errorf("%s: export's line %q does not tell the story (%s; %s)", m.name, line, st.What, st.Status)
			}
		}
		yml, _ := os.ReadFile(yamlPath)
		cpp, _ := os.ReadFile(cppPath)
		wf, err := eval.ParseWeights(yml, yamlPath)
		if err != nil {
			t.Fatalf("%s: the export does not load: %v", m.name, err)
		}
		notes := headNotes(string(yml))
		if strings.Join(notes, "\n") != strings.Join(st.Lines(), "\n") {
			t.Errorf("%s: the file says\n%s\nthe story\n%s", m.name, strings.Join(notes, "\n"), strings.Join(st.Lines(), "\n"))
		}
		for _, l := range notes {
			if !strings.Contains(string(cpp), "\n// "+l+"\n") {
				t.Errorf("%s: the cpp block lacks %q", m.name, l)
			}
		}
		if (wf.Provenance.Fitness != nil) != st.Validated() {
			t.Errorf("%s: provenance.fitness %+v, validated %v", m.name, wf.Provenance.Fitness, st.Validated())
		}
		compareBlock(t, string(cpp), wf)

		page := filepath.Join(dir, "page.html")
		if code, _, errs := runCLI(t, "report", dir, "-o", page); code != 0 {
			t.Fatalf("%s: report: exit %d: %s", m.name, code, errs)
		}
		data, _ := os.ReadFile(page)
		lines, values := storyOfPage(t, string(data))
		if strings.Join(lines, "\n") != strings.Join(notes, "\n") {
			t.Errorf("%s: the report says\n%s\nthe exported file\n%s", m.name, strings.Join(lines, "\n"), strings.Join(notes, "\n"))
		}
		set, _ := wf.Set()
		for i, name := range set.VectorNames() {
			x := append(append([]float64{}, wf.Weights...), wf.Params...)[i]
			if values[name] != reportNum(x) {
				t.Errorf("%s: the report recommends %s = %s, the export writes %v", m.name, name, values[name], x)
			}
		}
		text := html.UnescapeString(string(data))
		for _, other := range []string{"recommends its start until its final race", "what evotune export writes: the start"} {
			if strings.Contains(text, other) {
				t.Errorf("%s: the page tells another story: %q", m.name, other)
			}
		}
		if m.moment == tuner.MomentStage && !strings.Contains(text, "The current stage has not ended: "+st.Next+".") {
			t.Errorf("%s: the race table does not say what comes next as the story does: %q", m.name, st.Next)
		}

		out := "== export -o out.yaml\n" + yamlLine + string(yml) + "== export --format cpp -o out.h\n" + cppLine + string(cpp)
		golden.Check(t, filepath.Join("testdata", "moment-"+m.name+".golden"), []byte(strings.ReplaceAll(out, dir, "$DIR")))
	}
}

// TestSetLineAtMoments: a player run's set line says in its comment lines
// what it is, in the run's words, mid-run (from a checkpoint of generation
// 1, as a run stopped there leaves it) and at the end; the whole output
// plays as the set line alone does.
func TestSetLineAtMoments(t *testing.T) {
	cmd := evotunePlayer(t, "--eval", "standard", "--depth", "2")
	dir := tuneRun(t, playerConfig(cmd)+"checkpoints: {keep: 10}\n")
	for _, m := range []struct{ name, src, status string }{
		{"mid", filepath.Join(dir, "checkpoints", "gen-00000001.ckpt"), "# status: not yet validated: what the run hands over were it to end now; run in progress: 1 of 3 generations done\n"},
		{"end", dir, "# status: validated; run finished after 3 of 3 generations (generations: 3 done)\n"},
	} {
		set := filepath.Join(t.TempDir(), "set.txt")
		code, line, errs := runCLI(t, "export", "--format", "set", m.src, "-o", set)
		if code != 0 || !strings.HasPrefix(line, "wrote "+set+": ") {
			t.Fatalf("%s: export --format set -o: exit %d %q %s", m.name, code, line, errs)
		}
		data, _ := os.ReadFile(set)
		if !strings.HasPrefix(string(data), m.status) || !strings.Contains(string(data), "\n# start values: set monotonicity=47 smoothness=11 empty=270 corner=100 merge=70\nset ") {
			t.Errorf("%s: the set file does not say what it is:\n%s", m.name, data)
		}
		golden.Check(t, filepath.Join("testdata", "moment-set-"+m.name+".golden"), data)
		if code, _, errs := runCLI(t, "play", "--player", strings.Join(quoteAll(cmd), " "), "--params-file", set, "--games", "1", "--max-moves", "20"); code != 0 {
			t.Errorf("%s: play --params-file of the set file: exit %d: %s", m.name, code, errs)
		}
	}
}
