package report

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/evotune/evotune/tuner"
)

// raceYAML is a run of two stages whose final races stop entrants early
// (the start of stage 1, the latest mean of stage 2), whose second race
// is won by its start, and whose second stage is long enough to race an
// average of means.
const raceYAML = `
name: races
seed: 1
generations: 15
init: {monotonicity: 5, smoothness: 1, empty: 20, corner: 10, merge: 7}
optimizer: {population: 4}
search: {depth: 1}
fitness: {games: 4}
validation: {games: 4, finalists: 2, every: 2, select: 32}
stages: [{generations: 5, games: 4}, {games: 8}]
checkpoints: {keep: 2}
`

// seriesNamed returns the series of c with the given name, or nil.
func seriesNamed(c *chart, name string) *series {
	for i := range c.Series {
		if c.Series[i].Name == name {
			return &c.Series[i]
		}
	}
	return nil
}

// stepAt returns the value a step line holds at x: that of its last point
// at or before x.
func stepAt(s *series, x float64) (float64, bool) {
	y, ok := 0.0, false
	for i := range s.X {
		if s.X[i] <= x {
			y, ok = s.Y[i], true
		}
	}
	return y, ok
}

type point struct{ x, y float64 }

func pointsIn(s *series) []point {
	if s == nil {
		return nil
	}
	var ps []point
	for i := range s.X {
		ps = append(ps, point{s.X[i], s.Y[i]})
	}
	return ps
}

// TestStoryFinalRaces checks the fitness chart and the table under it
// against a real run's final races, as history.jsonl records them.
func TestStoryFinalRaces(t *testing.T) {
	r, err := Load(realRun(t, raceYAML, 0))
	if err != nil {
		t.Fatal(err)
	}
	var finals []Generation
	for _, g := range r.History {
		if g.Validation != nil {
			finals = append(finals, g)
		}
	}
	if len(finals) != 2 {
		t.Fatalf("%d validated lines, want 2 (one final race per stage)", len(finals))
	}
	c := findChart(r.charts(), "fitness")
	winners := seriesNamed(c, "race winner, validated ± 95% CI")
	band := seriesNamed(c, "last validated")
	if winners == nil || band == nil {
		t.Fatalf("fitness chart series %v: want the winners and the recommended band", pointsOf(c))
	}
	var wantEntrants, wantStopped []point
	seen := map[string]bool{}
	rows := 0
	for k, g := range finals {
		v := g.Validation
		race := v.Race
		if race == nil || race.Games != 32 {
			t.Fatalf("generation %d: race %+v: want one played to its 32 games", g.Generation, race)
		}
		w := winner(v)
		if w != race.Winner {
			t.Fatalf("generation %d: winner %d, the record's %d", g.Generation, w, race.Winner)
		}
		race.Winner = 0 // as a record of the builds before the field: told from the entrants
		if inferred := winner(v); inferred != w {
			t.Errorf("generation %d: winner told from the entrants %d, the record's %d", g.Generation, inferred, w)
		}
		x := float64(v.Generation)
		if v.Average > 1 {
			x -= float64(v.Average-1) / 2
		}
		if winners.X[k] != x || winners.Y[k] != v.Mean || winners.Err[k] != v.CI95 {
			t.Errorf("winner of generation %d's race drawn at (%v, %v ± %v), want (%v, %v ± %v)",
				g.Generation, winners.X[k], winners.Y[k], winners.Err[k], x, v.Mean, v.CI95)
		}
		for i, e := range race.Entrants {
			x := float64(e.Generation)
			if e.Average > 1 {
				x -= float64(e.Average-1) / 2
				seen["average"] = true
			}
			if e.Games < race.Games {
				wantStopped = append(wantStopped, point{x, e.Fitness})
				seen["stopped"] = true
			} else {
				wantEntrants = append(wantEntrants, point{x, e.Fitness})
			}
			if i == w && e.Start && e.Generation > 0 {
				seen["a stage's start won"] = true
			}
		}
		rows += len(race.Entrants)
	}
	for _, s := range []string{"stopped", "average", "a stage's start won"} {
		if !seen[s] {
			t.Errorf("the run's races have no %s: the test no longer covers it (pick another seed)", s)
		}
	}
	if got := pointsIn(seriesNamed(c, "race entrant")); !slices.Equal(got, wantEntrants) {
		t.Errorf("entrants that played to the end drawn at %v, want %v", got, wantEntrants)
	}
	if got := pointsIn(seriesNamed(c, "race entrant, stopped")); !slices.Equal(got, wantStopped) {
		t.Errorf("stopped entrants drawn at %v, want %v", got, wantStopped)
	}

	// The recommended figure at each generation: the start's until the
	// first race, then each race's winner's from the race on.
	for _, g := range r.History {
		want := r.State.Start.Mean
		for _, f := range finals {
			if g.Generation >= f.Generation {
				want = f.Validation.Mean
			}
		}
		if got, ok := stepAt(band, float64(g.Generation)); !ok || got != want {
			t.Errorf("generation %d: recommended figure %v (drawn: %v), want %v", g.Generation, got, ok, want)
		}
	}

	tb := r.storyTable()
	if tb == nil || len(tb.Rows) != rows {
		t.Fatalf("story table %+v: want %d rows, one per entrant", tb, rows)
	}
	i := 0
	for _, g := range finals {
		race := g.Validation.Race
		w := winner(g.Validation)
		for j, e := range race.Entrants {
			row := tb.Rows[i]
			i++
			if row.First != (j == 0) {
				t.Errorf("generation %d, entrant %d: first of its race %v", g.Generation, j, row.First)
			}
			out := row.Cells[len(row.Cells)-1]
			switch {
			case j == w && !strings.HasPrefix(out, "won"):
				t.Errorf("generation %d: the winner's outcome %q", g.Generation, out)
			case e.Games < race.Games && out != fmt.Sprintf("stopped after %d games: the leader was better (one-sided paired t test at 1%%)", e.Games):
				t.Errorf("generation %d: a stopped entrant's outcome %q", g.Generation, out)
			case j != w && e.Games == race.Games && out != "played to the end, lost":
				t.Errorf("generation %d: a losing entrant's outcome %q", g.Generation, out)
			}
			if row.Cells[2] != fmt.Sprint(e.Games) || row.Cells[3] != num(e.Fitness) {
				t.Errorf("generation %d, entrant %d: games %s, fitness %s; want %d, %s", g.Generation, j, row.Cells[2], row.Cells[3], e.Games, num(e.Fitness))
			}
		}
	}

	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	last := finals[1].Validation
	for _, want := range []string{
		"end of stage 1, after generation 5, 32 games",
		fmt.Sprintf("the stage&#39;s start (the winner of stage 1, generation %d)", last.Generation),
		"won, recommended: the start keeps its own validated figure",
		"the winner of stage 1, which as the start of stage 2 won the final race of stage 2 after generation 15",
		"The table under the fitness chart tells the final race that chose them, after generation 15",
		fmt.Sprintf("tuned: the stage&#39;s start (the winner of stage 1, generation %d), winner of the final race", last.Generation),
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestStoryRaceEndedEarly: a race ends before its last block when one
// entrant is left; those stopped at that look played as many games as
// the winner, and the report tells them from entrants that played to the
// end by the race's games falling short of validation.select.
func TestStoryRaceEndedEarly(t *testing.T) {
	r := synthRun(t, synth{gens: 4, every: 2})
	r.Config.Validation.Select = 96
	v := &tuner.RecordValidation{Generation: 4, Mean: 31000, Fitness: 31000, Games: 100, Race: &tuner.RecordRace{Games: 24, Recommends: 4, Entrants: []tuner.RaceEntrant{
		{Generation: 0, Start: true, Games: 12, Fitness: 20000},
		{Generation: 2, Games: 24, Fitness: 29000},
		{Generation: 4, Games: 24, Fitness: 31000},
	}}}
	r.History[3].Validation = v
	d := r.decisions()[len(r.decisions())-1]
	for i, want := range []bool{true, true, false} {
		if got := r.stopped(d, i); got != want {
			t.Errorf("entrant %d stopped: %v, want %v", i, got, want)
		}
	}
	rows := r.raceRows(d)
	if !strings.Contains(rows[0].Cells[0], "24 of up to 96 games (it ended when one entrant was left)") {
		t.Errorf("race cell %q: want it to say the race ended early", rows[0].Cells[0])
	}
	if out := rows[2].Cells[4]; out != "won, recommended; validated: 31000 ± 0 on 100 held-out games" {
		t.Errorf("the winner's outcome %q", out)
	}
	v.Start = &tuner.RecordFigure{Fitness: 25000, Mean: 25000, CI95: 1200, Games: 100}
	if out := r.raceRows(d)[2].Cells[4]; !strings.HasSuffix(out, " (the run's start on the same games: 25000 ± 1200)") {
		t.Errorf("the winner's outcome %q: want the start's figure, which the history records", out)
	}
	r.Config.Validation.Select = 24 // the race played to its end
	if r.stopped(d, 1) {
		t.Errorf("an entrant that played a full race to its end counted as stopped")
	}
}

// TestStoryLegacy checks the story of a history an older evotune wrote:
// a validation every few generations, raced against the recommended mean,
// some lost, one falling back.
func TestStoryLegacy(t *testing.T) {
	o := synth{gens: 10, every: 2, races: []string{"lost", "won", "fallback", "won", "lost"}}
	r := synthRun(t, o)
	fig := func(g int) float64 { return 30000 + 100*float64(g) } // synth's validated means
	c := findChart(r.charts(), "fitness")
	check := func(name string, want []float64) {
		t.Helper()
		s := seriesNamed(c, name)
		var got []float64
		if s != nil {
			got = s.X
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q at generations %v, want %v", name, got, want)
		}
	}
	check("validated, won its race ± 95% CI", []float64{4, 8})
	check("validated, lost its race", []float64{2, 6, 10})
	check("fallback", []float64{6})
	if s := seriesNamed(findChart(r.charts(), "sigma"), "fallback"); s == nil || !slices.Equal(s.X, []float64{6}) {
		t.Errorf("σ chart's fallbacks %+v, want one at generation 6, where σ was halved", s)
	}
	if s := seriesNamed(c, "validated mean ± 95% CI"); s != nil {
		t.Errorf("a raced history drew its validations as plain points too")
	}
	band := seriesNamed(c, "last validated")
	for g, rec := range []int{0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8} {
		if got, ok := stepAt(band, float64(g)); !ok || got != fig(rec) {
			t.Errorf("generation %d: recommended figure %v (drawn: %v), want generation %d's %v", g, got, ok, rec, fig(rec))
		}
	}
	tb := r.storyTable()
	if tb == nil || len(tb.Rows) != 5 {
		t.Fatalf("story table %+v: want 5 rows, one per validation", tb)
	}
	wantOut := []string{"lost", "won", "lost; fallback: the search went back to generation 4", "won", "lost"}
	wantAfter := []string{"start", "generation 4", "generation 4", "generation 8", "generation 8"}
	wantBefore := []string{"start", "start", "generation 4", "generation 4", "generation 8"}
	for i, row := range tb.Rows {
		if row.Cells[6] != wantOut[i] || row.Cells[7] != wantAfter[i] || row.Cells[3] != wantBefore[i] || row.Cells[2] != "48" {
			t.Errorf("row %d: %q; want outcome %q, recommended %q before, %q after, 48 race games", i, row.Cells, wantOut[i], wantBefore[i], wantAfter[i])
		}
	}
	rec, _ := r.recommended()
	if !strings.Contains(rec.What, "The distribution mean of generation 8") || !strings.Contains(rec.What, "an evotune before the final race") {
		t.Errorf("recommended: %q", rec.What)
	}
	if !strings.Contains(tb.Intro, "(a fallback)") {
		t.Errorf("intro %q does not explain the fallback", tb.Intro)
	}

	// Continued by this evotune: its final race closes the table.
	o.final = true
	r = synthRun(t, o)
	tb = r.storyTable()
	if tb == nil || len(tb.Rows) != 5 {
		t.Fatalf("story table %+v: want 5 rows", tb)
	}
	last := tb.Rows[4].Cells
	if !strings.HasPrefix(last[6], "final race: start weights 25000 (12 games), mean of generation 8 30500 (48 games), mean of generation 10 31000 (48 games) won") || last[7] != "generation 10" {
		t.Errorf("final race's row %q", last)
	}
	c = findChart(r.charts(), "fitness")
	if s := seriesNamed(c, "race entrant, stopped"); s == nil || len(s.X) != 1 || s.X[0] != 0 {
		t.Errorf("the final race's stopped start is not drawn: %v", pointsOf(c))
	}
	if got, _ := stepAt(seriesNamed(c, "last validated"), 10); got != fig(10) {
		t.Errorf("recommended after the final race %v, want %v", got, fig(10))
	}
}

// TestGamesFacts: the Run table splits the games and says what each
// candidate played, from noise handling's record of each generation.
func TestGamesFacts(t *testing.T) {
	r := synthRun(t, synth{gens: 3, every: 5})
	r.Config.Noise.Handling = true
	// λ 8 each; generation 2: 2 stopped, 3 replayed; generation 3: 1
	// stopped after 4 of its 16 games.
	noise := []*tuner.RecordNoise{
		{Games: 8, Played: 8*8 + 2*8, Reevaluated: 2},
		{Games: 12, Played: 6*12 + 2*6 + 3*12, Dropped: 2, Reevaluated: 3},
		{Games: 16, Played: 7*16 + 4, Dropped: 1},
	}
	var total int64 = 100 // the start's validation
	for i := range r.History {
		r.History[i].Noise = noise[i]
		r.History[i].Validation = nil
		total += int64(noise[i].Played)
		r.History[i].Games = total
	}
	r.History[2].Validation = &tuner.RecordValidation{Generation: 3, Mean: 1, Games: 100, Race: &tuner.RecordRace{Games: 32, Recommends: 3,
		Entrants: []tuner.RaceEntrant{{Start: true, Games: 8}, {Generation: 3, Games: 32}}}}
	total += 40 + 100
	r.History[2].Games = total
	facts := r.gamesFacts()
	want := [][2]string{
		{"games played", fmt.Sprintf("%d: %d by candidates, 40 in races, 200 validating", total, total-240)},
		{"games per candidate", "8 to 16 a generation, set by noise handling: what each candidate that played to the end played; racing stopped 3 of 24 candidates early, after 5.3 games on average (μ others had beaten them on the games they had played); 5 candidates played again on fresh seeds (52 games) to measure the noise"},
	}
	if !slices.Equal(facts, want) {
		t.Errorf("games facts\n%q\nwant\n%q", facts, want)
	}
	// A history with a gap cannot be summed: the total alone.
	r.History = slices.Delete(r.History, 1, 2)
	if f := r.gamesFacts(); f[0][1] != fmt.Sprint(total) {
		t.Errorf("games played with a line missing: %q", f[0][1])
	}
}

// TestStoryAverageWon: the average of the last means shares its
// generation with the latest mean; the validation's average tells which
// won, and the average is drawn across the generations it averages.
func TestStoryAverageWon(t *testing.T) {
	entrants := []tuner.RaceEntrant{
		{Generation: 0, Start: true, Games: 16, Fitness: 20000},
		{Generation: 10, Games: 32, Fitness: 30500},
		{Generation: 10, Average: 2, Games: 32, Fitness: 31000},
	}
	for _, tc := range []struct {
		average, want int
		x, xerr       float64
	}{{2, 2, 9.5, 0.5}, {0, 1, 10, 0}} {
		r := synthRun(t, synth{gens: 10, every: 100})
		r.Config.Validation.Select = 32
		es := slices.Clone(entrants)
		r.History[9].Validation = &tuner.RecordValidation{Generation: 10, Average: tc.average, Mean: 32000, Fitness: 32000, CI95: 900, Games: 100,
			Race: &tuner.RecordRace{Games: 32, Recommends: 10, Entrants: es}}
		if w := winner(r.History[9].Validation); w != tc.want {
			t.Errorf("average %d: winner %d, want %d", tc.average, w, tc.want)
		}
		// A record that names its winner is taken at its word.
		named := *r.History[9].Validation.Race
		named.Winner = 3 - tc.want
		if w := winner(&tuner.RecordValidation{Average: tc.average, Race: &named}); w != 3-tc.want {
			t.Errorf("average %d: a race naming entrant %d its winner: winner %d", tc.average, 3-tc.want, w)
		}
		c := findChart(r.charts(), "fitness")
		s := seriesNamed(c, "race winner, validated ± 95% CI")
		if s == nil || len(s.X) != 1 || s.X[0] != tc.x || s.XErr[0] != tc.xerr {
			t.Errorf("average %d: winner drawn %+v, want at %v ± %v", tc.average, s, tc.x, tc.xerr)
		}
		rows := r.storyTable().Rows
		if out := rows[tc.want].Cells[4]; !strings.HasPrefix(out, "won") {
			t.Errorf("average %d: the winner's row says %q", tc.average, out)
		}
		if out := rows[3-tc.want].Cells[4]; out != "played to the end, lost" {
			t.Errorf("average %d: the other's row says %q", tc.average, out)
		}
	}
}

// TestStoryStageUnderWay: a run interrupted in its second stage shows
// the first stage's race, the stage's start recommended since, and the
// finalists the second stage has kept so far.
func TestStoryStageUnderWay(t *testing.T) {
	r, err := Load(realRun(t, raceYAML, 10))
	if err != nil {
		t.Fatal(err)
	}
	tb := r.storyTable()
	if tb == nil || len(tb.Rows) == 0 || !tb.Rows[0].First {
		t.Fatalf("story table %+v: want the first stage's race", tb)
	}
	// Stage 2 began after generation 5: finalists at 7 and 9 (10, the
	// latest mean, races as such), and the average of the last 3 means
	// (half of the stage's 5 generations, rounded).
	want := "The current stage has not ended: were stage 2 to end now, the stage's start (the previous stage's winner), the distribution mean of generation 7 (a finalist), the distribution mean of generation 9 (a finalist), the distribution mean of generation 10 and the average of the distribution means of generations 8-10 would race on up to 32 games each"
	if !strings.HasPrefix(tb.After, want) || tb.After != "The current stage has not ended: "+r.Story.Next+"." {
		t.Errorf("after the table: %q, want %q..., the run's story", tb.After, want)
	}
	c := findChart(r.charts(), "fitness")
	v := r.History[4].Validation
	if got, _ := stepAt(seriesNamed(c, "last validated"), 10); v == nil || got != v.Mean {
		t.Errorf("recommended figure at generation 10: %v, want stage 1's winner's (%+v)", got, v)
	}
}

// TestStoryStartAcrossSearches: in a ladder whose validation search
// changes, the state keeps only the start's latest figure; the band begins
// with the first stage's, as the history's first race recorded it, and
// where a history does not record it (an older build) the band begins at
// the first race and the caption says why.
func TestStoryStartAcrossSearches(t *testing.T) {
	yml := strings.Replace(raceYAML, "stages: [{generations: 5, games: 4}, {games: 8}]", "stages: [{generations: 5, games: 4}, {games: 8, search: {depth: 2}}]", 1)
	r, err := Load(realRun(t, yml, 0))
	if err != nil {
		t.Fatal(err)
	}
	first := r.History[4].Validation
	if first == nil || first.Start == nil || r.State.Start == nil || first.Start.Mean == r.State.Start.Mean {
		t.Fatalf("stage 1's race %+v, the state's start %+v: want the race to record the start's first-stage figure, unlike the state's", first, r.State.Start)
	}
	c := findChart(r.charts(), "fitness")
	band := seriesNamed(c, "last validated")
	if band == nil || len(band.X) < 2 || band.X[0] != 0 || band.Y[0] != first.Start.Mean || band.X[1] != 5 {
		t.Errorf("band %v: want it to begin at generation 0 with the start's first-stage figure %v until the race after generation 5", pointsIn(band), first.Start.Mean)
	}
	if caption := r.fitnessCaption(); !strings.Contains(caption, "the band's first step is the start's figure with the first stage's") {
		t.Errorf("caption %q", caption)
	}
	for _, g := range r.History {
		if g.Validation != nil {
			g.Validation.Start = nil // as an older build wrote it
		}
	}
	band = seriesNamed(findChart(r.charts(), "fitness"), "last validated")
	if band == nil || len(band.X) == 0 || band.X[0] != 5 {
		t.Errorf("band %v of an older history: want it to begin at the first race, after generation 5", pointsIn(band))
	}
	if caption := r.fitnessCaption(); !strings.Contains(caption, "does not keep the start's earlier figure, so the band begins at the first race") {
		t.Errorf("caption of an older history %q", caption)
	}
}

// modelYAML is a run whose second stage's final race the model's point
// wins (validation.model), fitted to generations 15-24.
const modelYAML = `
name: model
seed: 3
generations: 24
optimizer: {population: 8}
search: {depth: 1}
fitness: {games: 4}
validation: {games: 4, select: 8, average: 1, model: true}
checkpoints: {keep: 2}
stages:
  - generations: 12
  - sigma: 0.2
`

// TestStoryModelWon: the model's point is named as an entrant of both
// races and as the winner of the second, drawn across the generations its
// fit spans, and the recommended weights are said to be it.
func TestStoryModelWon(t *testing.T) {
	r, err := Load(realRun(t, modelYAML, 0))
	if err != nil {
		t.Fatal(err)
	}
	v := r.State.Recommended()
	if v.Model != 10 || v.Generation != 24 {
		t.Fatalf("recommended %+v: the test wants the model's point of generations 15-24", v)
	}
	var names []string
	won := ""
	for _, row := range r.storyTable().Rows {
		names = append(names, row.Cells[1])
		if strings.HasPrefix(row.Cells[4], "won") {
			won = row.Cells[1]
		}
	}
	for _, want := range []string{"model's point (fitted to generations 3–12)", "model's point (fitted to generations 15–24)"} {
		if !slices.Contains(names, want) {
			t.Errorf("the races' rows %q lack %q", names, want)
		}
	}
	if won != "model's point (fitted to generations 15–24)" {
		t.Errorf("the winner's row is %q", won)
	}
	if got := r.recommendedName(v); got != "model's point (fitted to generations 15–24)" {
		t.Errorf("recommended name %q", got)
	}
	if got := r.recommendedText(v); !strings.HasPrefix(got, "The point of the model fitted to the candidates of generations 15 to 24, the winner of the final race after generation 24") {
		t.Errorf("recommended text %q", got)
	}
	winners := seriesNamed(findChart(r.charts(), "fitness"), "race winner, validated ± 95% CI")
	if n := len(winners.X); n != 2 || winners.X[1] != 19.5 || winners.XErr[1] != 4.5 {
		t.Errorf("winners drawn at %v ± %v, want the second at 19.5 ± 4.5", winners.X, winners.XErr)
	}
}
