package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/evotune/evotune/tuner"
)

// acrossYAML is raceYAML whose second stage searches (and so validates)
// deeper: the start is measured again when it begins.
var acrossYAML = strings.Replace(raceYAML, "stages: [{generations: 5, games: 4}, {games: 8}]", "stages: [{generations: 5, games: 4}, {games: 8, search: {depth: 2}}]", 1)

// TestComparisonAcrossSearches: while a stage with a new validation search
// goes on, the recommended weights are the previous stage's winner,
// measured with that stage's search, and the state's start is measured
// with the new one. The comparison must pair the winner with the start's
// figure of the winner's stage, from the history, and never game by game
// with the state's start; without that figure it shows no change.
func TestComparisonAcrossSearches(t *testing.T) {
	r, err := Load(realRun(t, acrossYAML, 8))
	if err != nil {
		t.Fatal(err)
	}
	s := r.State
	if s.Validated == nil || s.Validated.Stage != 0 || s.Start == nil || s.Start.Stage != 1 {
		t.Fatalf("validated %+v, start %+v: want stage 1's winner and the start measured for stage 2", s.Validated, s.Start)
	}
	first := r.History[4].Validation
	if first == nil || first.Start == nil || first.Start.Mean == s.Start.Mean {
		t.Fatalf("stage 1's race %+v: want the start's stage-1 figure, unlike the state's %v", first, s.Start.Mean)
	}
	c := r.comparison()
	if want := num(first.Start.Mean) + " ± " + num(first.Start.CI95); c.Start.Mean != want {
		t.Errorf("start row %q, want stage 1's figure %q", c.Start.Mean, want)
	}
	if want := change(s.Validated.Fitness, first.Start.Fitness); c.Diff != want {
		t.Errorf("change %q, want %q", c.Diff, want)
	}
	if strings.Contains(c.Reach, "Paired") {
		t.Errorf("paired figures across two searches: %q", c.Reach)
	}
	if want := "with which the start scores " + num(s.Start.Mean) + " ± " + num(s.Start.CI95); !strings.Contains(c.Reach, want) {
		t.Errorf("text %q: want the current search's start figure (%q)", c.Reach, want)
	}

	for _, g := range r.History {
		if g.Validation != nil {
			g.Validation.Start = nil // as an older build wrote it
		}
	}
	c = r.comparison()
	if c.Diff != "" || !strings.Contains(c.Reach, "do not compare") || strings.Contains(c.Reach, "Paired") {
		t.Errorf("older history: change %q, text %q: want no change and no pairing", c.Diff, c.Reach)
	}
	if want := num(s.Start.Mean) + " ± " + num(s.Start.CI95); c.Start.Mean != want {
		t.Errorf("older history: start row %q, want the state's %q", c.Start.Mean, want)
	}
}

// TestComparisonOneSearch: where the start and the winner share a search,
// the figures pair game by game, as before.
func TestComparisonOneSearch(t *testing.T) {
	r, err := Load(realRun(t, raceYAML, 8))
	if err != nil {
		t.Fatal(err)
	}
	c := r.comparison()
	if !strings.Contains(c.Reach, "Paired over") || c.Diff != change(r.State.Validated.Fitness, r.State.Start.Fitness) {
		t.Errorf("change %q, text %q: want the paired comparison", c.Diff, c.Reach)
	}
}

// TestRecommendedIsHandover: the weights the report calls recommended are
// what evotune export writes at the same moment: within a stage, the
// average of its last means, not yet validated; at a stage's end, its
// validated winner.
func TestRecommendedIsHandover(t *testing.T) {
	plain := strings.Replace(raceYAML, "stages: [{generations: 5, games: 4}, {games: 8}]\n", "", 1)
	for _, tc := range []struct {
		yml     string
		stop    int
		pending bool
	}{{acrossYAML, 8, true}, {acrossYAML, 5, false}, {acrossYAML, 15, false}, {plain, 3, true}, {plain, 15, false}} {
		dir := realRun(t, tc.yml, tc.stop)
		r, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		tu, _, _, err := tuner.LoadCheckpoint(dir)
		if err != nil {
			t.Fatal(err)
		}
		h := tu.Handover()
		rec, w := r.recommended()
		if !slices.Equal(w, h.Weights) {
			t.Errorf("after generation %d: recommended %v, export writes %v", tc.stop, w, h.Weights)
		}
		if got := len(rec.Story) > 0 && strings.HasPrefix(rec.Story[0][1], "not yet validated"); got != tc.pending || (h.Games == 0) != tc.pending {
			t.Errorf("after generation %d: handover games %d, story %q: want pending %v", tc.stop, h.Games, rec.Story, tc.pending)
		}
		if v := r.State.Recommended(); tc.pending && slices.Equal(w, v.Weights) {
			t.Errorf("after generation %d: the pending weights are the validated ones: the case tests nothing", tc.stop)
		}
	}
}

// TestSearchFact: the search fact names a ladder's every stage's search
// and the one under way; a run without stages has one search; a fixed
// validation search is named too.
func TestSearchFact(t *testing.T) {
	plain := strings.Replace(raceYAML, "stages: [{generations: 5, games: 4}, {games: 8}]\n", "", 1)
	for _, tc := range []struct {
		name, yml string
		stop      int
		want      string
	}{
		{"ladder under way", acrossYAML, 8, "stage 1: expectimax, 1 ply; stage 2: expectimax, 2 plies (now)"},
		{"ladder finished", acrossYAML, 0, "stage 1: expectimax, 1 ply; stage 2: expectimax, 2 plies"},
		{"no stages", plain, 3, "expectimax, 1 ply"},
		{"validation search", strings.Replace(plain, "validation: {", "validation: {search: {depth: 2}, ", 1), 3, "expectimax, 1 ply; validation: expectimax, 2 plies"},
	} {
		r, err := Load(realRun(t, tc.yml, tc.stop))
		if err != nil {
			t.Fatal(err)
		}
		if got := r.searchFact(); got != tc.want {
			t.Errorf("%s: search %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestHandoverText: what the recommended section says of weights not yet
// validated is the run's story, which follows the config: the final
// race's entrants (3 generations into stage 2, the average of its last 2
// means: half of 3, rounded), no race under validation.select: 0, and a
// stage named by its number only once.
func TestHandoverText(t *testing.T) {
	for _, tc := range []struct {
		name, yml, want, not string
	}{
		{"race", acrossYAML, "were stage 2 to end now, the stage's start (the previous stage's winner), the distribution mean of generation 7 (a finalist), the distribution mean of generation 8 and the average of the distribution means of generations 7-8 would race on up to 32 games each", "without a race"},
		{"no finalists", strings.Replace(acrossYAML, "finalists: 2, every: 2, ", "", 1), "the stage's start (the previous stage's winner), the distribution mean of generation 8 and the average of the distribution means of generations 7-8 would race", "generation 6"},
		{"no race", strings.Replace(acrossYAML, "finalists: 2, every: 2, select: 32", "select: 0", 1), "would be validated on 4 held-out games, without a race", "would race"},
		{"unnamed stage", acrossYAML, "stage 2 of 2\n", "stage 2 (2)"},
	} {
		r, err := Load(realRun(t, tc.yml, 8))
		if err != nil {
			t.Fatal(err)
		}
		if !r.pending() {
			t.Fatalf("%s: story %+v: want weights not yet validated", tc.name, r.Story)
		}
		rec, _ := r.recommended()
		var text []string
		for _, l := range rec.Story {
			text = append(text, l[0]+": "+l[1])
		}
		if !slices.Equal(text, r.Story.Lines()) {
			t.Errorf("%s: the section says\n%q\nthe story\n%q", tc.name, text, r.Story.Lines())
		}
		all := strings.Join(text, "\n")
		if !strings.Contains(all, tc.want) || strings.Contains(all, tc.not) {
			t.Errorf("%s: %q: want %q and no %q", tc.name, all, tc.want, tc.not)
		}
		if c := r.comparison(); !strings.HasPrefix(c.End.Label, "last validated: ") {
			t.Errorf("%s: comparison row %q: want it named the last validated", tc.name, c.End.Label)
		}
	}
}

// TestCommandsAfterDuration: the command that continues a run its duration
// ended gives it more time, counted with the time it spent.
func TestCommandsAfterDuration(t *testing.T) {
	yml := strings.Replace(raceYAML, "generations: 15", "generations: 0\nduration: 1s", 1)
	r, err := Load(realRun(t, yml, 0))
	if err != nil {
		t.Fatal(err)
	}
	if !r.State.EndedByDuration() {
		t.Fatalf("stop %q: want the duration", r.State.Finished)
	}
	cmd := r.commands(nil)[0]
	if !strings.HasPrefix(cmd[1], "evotune resume "+quote(r.Dir)+" --duration 1h0m") {
		t.Errorf("first command %q: want an hour more", cmd)
	}
}
