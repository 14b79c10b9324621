package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/evotune/evotune/tuner"
)

// A table is a table of the page shown under a chart.
type table struct {
	// Intro is the paragraph before it.
	Intro string
	Head  []string
	// Num marks the columns of figures, right-aligned.
	Num  []bool
	Rows []row
	// Fold puts a long table in a <details> element, closed, with
	// Summary as its line.
	Fold    bool
	Summary string
	// After is the paragraph after it.
	After string
}

// A row is a table's row; First marks the first of a group (a race's
// entrants), drawn with a rule above it.
type row struct {
	Cells []string
	First bool
}

// foldRows is the length from which a table is folded.
const foldRows = 24

// storyTable returns the table of the run's races and validations, under
// the fitness chart: one row per entrant of each final race, one per
// validation of an older evotune. Nil when the history has no validation
// and no stage is under way.
func (r *Run) storyTable() *table {
	ds := r.decisions()
	t := &table{}
	var rows []row
	if legacy(ds) {
		t.Head = []string{"generation", "validated " + r.Metric.String(), "race games", "recommended before", "its fitness in the race", "this mean's fitness in the race", "outcome", "recommended after"}
		t.Num = []bool{true, true, true, true, true, true, false, true}
	} else {
		t.Head = []string{"race", "entrant", "games played", "fitness on the race's games", "outcome"}
		t.Num = []bool{false, false, true, true, false}
	}
	for _, d := range ds {
		switch {
		case d.Final && legacy(ds):
			rows = append(rows, row{Cells: r.finalRowLegacy(d)})
		case d.Final:
			rows = append(rows, r.raceRows(d)...)
		default:
			rows = append(rows, row{Cells: r.validationRow(d)})
		}
	}
	t.Rows = rows
	t.Intro = r.storyIntro(ds)
	t.After = r.storyNext(ds)
	if len(rows) == 0 {
		t.Head = nil
	}
	if len(rows) > foldRows {
		t.Fold, t.Summary = true, fmt.Sprintf("%d rows: the races and validations of the run", len(rows))
	}
	if t.Intro == "" && len(rows) == 0 && t.After == "" {
		return nil
	}
	return t
}

// storyIntro says in a sentence how the run chose what it recommends.
func (r *Run) storyIntro(ds []decision) string {
	v := r.Config.Validation
	if legacy(ds) {
		s := fmt.Sprintf("This run was made by an evotune before the final race: it validated the distribution mean every %d generations on %d held-out games", v.Every, v.Games)
		switch {
		case v.Recommend == "race" || v.Fallback > 0 || anyRace(ds):
			s += ", then raced it against the mean recommended before on games of their own (up to " + strconv.Itoa(v.Select) + " each): the better of the two was recommended, the new one on a tie"
			if anyFallback(ds) {
				s += "; a race the recommended mean won clearly sent the search back to it (a fallback)"
			}
		case v.Recommend == "best":
			s += ", and recommended the best validated mean"
		default:
			s += ", and recommended the latest"
		}
		s += ". Each row is one validation."
		if finals := countFinal(ds); finals > 0 {
			s += " The run was continued by an evotune with the final race: its rows with entrants are final races."
		}
		return s
	}
	_, long := tuner.RecommendationRule(r.Config)
	return long
}

func anyFallback(ds []decision) bool {
	for _, d := range ds {
		if d.Fallback {
			return true
		}
	}
	return false
}

func anyRace(ds []decision) bool {
	for _, d := range ds {
		if d.V.Race != nil {
			return true
		}
	}
	return false
}

func countFinal(ds []decision) int {
	n := 0
	for _, d := range ds {
		if d.Final {
			n++
		}
	}
	return n
}

// storyNext says what races at the end of a stage under way: what the
// run's Story says comes next, or, in a report made up without a tuner,
// its finalists so far. Empty for a finished run or one whose current
// stage has just concluded.
func (r *Run) storyNext(ds []decision) string {
	if r.State.Finished != "" || len(r.History) == 0 || r.Config.Validation.Select == 0 {
		return ""
	}
	last := r.History[len(r.History)-1]
	if last.Validation != nil {
		return ""
	}
	if st := r.Story; st != nil {
		if st.Moment != tuner.MomentStage || st.Next == "" {
			return ""
		}
		return "The current stage has not ended: " + st.Next + "."
	}
	var fs []string
	for i := len(r.History) - 1; i >= 0 && r.History[i].Stage == last.Stage && r.History[i].Validation == nil; i-- {
		if r.History[i].Finalist && r.History[i].Generation < last.Generation {
			fs = append([]string{strconv.Itoa(r.History[i].Generation)}, fs...)
		}
	}
	s := "The current stage has not ended: its final race runs when it does"
	if k := r.Config.Validation.Finalists; len(fs) > 0 && k > 0 {
		if len(fs) > k {
			fs = fs[len(fs)-k:]
		}
		s += ", where, were the stage to end now, the finalists of generations " + strings.Join(fs, ", ") + " would race too"
	}
	return s + "."
}

// entrantName names a final race's entrant.
func (r *Run) entrantName(e tuner.RaceEntrant, stage int) string {
	switch {
	case e.Start && e.Generation == 0:
		return "start " + r.vectorWord() + "s"
	case e.Start:
		return fmt.Sprintf("the stage's start (the winner of stage %d, generation %d)", stage-1, e.Generation)
	case e.Model > 0:
		return modelName(e.Generation, e.Model)
	case e.Average > 1:
		return fmt.Sprintf("average of the means of generations %d–%d", e.Generation-e.Average+1, e.Generation)
	}
	return fmt.Sprintf("mean of generation %d", e.Generation)
}

// raceRows returns one row per entrant of a final race (one row for the
// average recommended without a race).
func (r *Run) raceRows(d decision) []row {
	v := d.V
	validated := fmt.Sprintf("validated: %s on %d held-out games", r.validatedText(v.Fitness, v.Mean, v.CI95), v.Games)
	where := fmt.Sprintf("after generation %d", d.Generation)
	if d.Stage > 0 {
		where = fmt.Sprintf("end of stage %d, %s", d.Stage, where)
	}
	if v.Race == nil {
		name := fmt.Sprintf("mean of generation %d", v.Generation)
		if v.Average > 1 {
			name = fmt.Sprintf("average of the means of generations %d–%d", v.Generation-v.Average+1, v.Generation)
		}
		return []row{{Cells: []string{where + ", no race", name, "—", "—", "recommended; " + validated}, First: true}}
	}
	race := fmt.Sprintf("%s, %d games", where, v.Race.Games)
	if r.endedEarly(v.Race) {
		race = fmt.Sprintf("%s, %d of up to %d games (it ended when one entrant was left)", where, v.Race.Games, r.Config.Validation.Select)
	}
	var rows []row
	for i, e := range v.Race.Entrants {
		name := r.entrantName(e, d.Stage)
		var out string
		switch {
		case i == d.Winner && e.Start:
			out = "won, recommended: the start keeps its own validated figure"
		case i == d.Winner:
			out = "won, recommended; " + validated
			if st := v.Start; st != nil {
				out += fmt.Sprintf(" (the run's start on the same games: %s)", r.validatedText(st.Fitness, st.Mean, st.CI95))
			}
		case r.stopped(d, i):
			out = fmt.Sprintf("stopped after %d games: the leader was better (one-sided paired t test at 1%%)", e.Games)
		default:
			out = "played to the end, lost"
		}
		cells := []string{"", name, strconv.Itoa(e.Games), num(e.Fitness), out}
		if i == 0 {
			cells[0] = race
		}
		rows = append(rows, row{Cells: cells, First: i == 0})
	}
	return rows
}

// finalRowLegacy is a final race's row in the table of an older
// evotune's validations: a run begun by it and continued by this one.
func (r *Run) finalRowLegacy(d decision) []string {
	v := d.V
	out := "final race: "
	if v.Race == nil {
		out += "none; the average recommended"
	} else {
		var es []string
		for i, e := range v.Race.Entrants {
			t := fmt.Sprintf("%s %s (%d games)", r.entrantName(e, d.Stage), num(e.Fitness), e.Games)
			if i == d.Winner {
				t += " won"
			}
			es = append(es, t)
		}
		out += strings.Join(es, ", ")
	}
	games := "—"
	if v.Race != nil {
		games = strconv.Itoa(v.Race.Games)
	}
	after := genName(d.Recommends)
	if v.Model > 0 {
		after = modelName(v.Generation, v.Model)
	}
	if v.Average > 1 {
		after = fmt.Sprintf("average of generations %d–%d", v.Generation-v.Average+1, v.Generation)
	}
	return []string{strconv.Itoa(d.Generation), r.validatedText(v.Fitness, v.Mean, v.CI95), games, "—", "—", "—", out, after}
}

// validationRow is the row of an older evotune's validation.
func (r *Run) validationRow(d decision) []string {
	v := d.V
	row := []string{strconv.Itoa(d.Generation), r.validatedText(v.Fitness, v.Mean, v.CI95), "—", "—", "—", "—", "", genName(d.Recommends)}
	switch rc := v.Race; {
	case rc != nil:
		row[2], row[3], row[4], row[5] = strconv.Itoa(rc.Games), genName(rc.Incumbent), num(rc.Against), num(rc.Fitness)
		if d.Won() {
			row[6] = "won"
		} else {
			row[6] = "lost"
		}
		if s := r.Config.Validation.Select; s > 0 && rc.Games < s {
			row[6] += fmt.Sprintf(" (the race ended early, after %d of %d games: one led clearly)", rc.Games, s)
		}
		if d.Fallback {
			row[6] += fmt.Sprintf("; fallback: the search went back to %s", genName(d.Recommends))
		}
	case d.Won():
		row[6] = "recommended (no race)"
	default:
		row[6] = "not recommended"
		if d.Fallback {
			row[6] += fmt.Sprintf("; fallback: the search went back to %s", genName(v.Fallback))
		}
	}
	return row
}

// validatedText writes a validated figure: the mean score with its
// interval, or the metric's value.
func (r *Run) validatedText(fitness, mean, ci float64) string {
	if r.Metric.String() == "mean_score" {
		return num(mean) + " ± " + num(ci)
	}
	return num(fitness)
}

// genName names a recommended generation: 0 is the start.
func genName(g int) string {
	if g == 0 {
		return "start"
	}
	return "generation " + strconv.Itoa(g)
}

// gamesFacts returns the Run table's rows on games: how the run's games
// split between candidates, races and validations, and the games each
// candidate played. Under noise handling and racing candidates play
// different numbers: those that play to the end the generation's games,
// those racing stops fewer, those replayed to measure the noise twice as
// many.
func (r *Run) gamesFacts() [][2]string {
	h := r.History
	total := r.State.Games
	if n := len(h); n > 0 {
		total = h[n-1].Games
	}
	facts := [][2]string{{"games played", strconv.FormatInt(total, 10)}}
	if len(h) == 0 {
		return facts
	}
	var tuning, candidates, dropped, droppedGames, reeval, reevalGames, races int64
	lo, hi := math.MaxInt, 0
	complete := h[0].Generation == 1
	stages := r.Config.StageList()
	noise, fixed := false, true
	for i, g := range h {
		if i > 0 && g.Generation != h[i-1].Generation+1 {
			complete = false
		}
		candidates += int64(g.Lambda)
		if n := g.Noise; n != nil {
			noise = true
			fixed = fixed && n.Fixed
			tuning += int64(n.Played)
			reeval += int64(n.Reevaluated)
			reevalGames += int64(n.Reevaluated * n.Games)
			dropped += int64(n.Dropped)
			if n.Dropped > 0 {
				droppedGames += int64(n.Played - n.Reevaluated*n.Games - (g.Lambda-n.Dropped)*n.Games)
			}
			lo, hi = min(lo, n.Games), max(hi, n.Games)
		} else {
			k := max(g.Stage-1, 0)
			if k >= len(stages) {
				complete = false
				continue
			}
			n := stages[k].Games
			tuning += int64(g.Lambda * n)
			lo, hi = min(lo, n), max(hi, n)
		}
		if v := g.Validation; v != nil && v.Race != nil {
			if len(v.Race.Entrants) > 0 {
				for _, e := range v.Race.Entrants {
					races += int64(e.Games)
				}
			} else {
				races += 2 * int64(v.Race.Games) // an older race: two points
			}
		}
	}
	if val := total - tuning - races; complete && val >= 0 {
		// What is neither the candidates' nor the races' validated: the
		// start (again in a stage with a new validation search) and each
		// winner that is not a start already measured.
		facts[0][1] = fmt.Sprintf("%d: %d by candidates, %d in races, %d validating", total, tuning, races, val)
		if races == 0 {
			facts[0][1] = fmt.Sprintf("%d: %d by candidates, %d validating", total, tuning, val)
		}
	}
	per := strconv.Itoa(lo)
	if hi > lo {
		per = fmt.Sprintf("%d to %d", lo, hi)
	}
	switch {
	case noise && !fixed:
		per += " a generation, set by noise handling: what each candidate that played to the end played"
	case hi > lo:
		per += " by stage"
	default:
		per += " each"
	}
	if dropped > 0 {
		per += fmt.Sprintf("; racing stopped %d of %d candidates early, after %.1f games on average (μ others had beaten them on the games they had played)",
			dropped, candidates, float64(droppedGames)/float64(dropped))
	}
	if reeval > 0 {
		per += fmt.Sprintf("; %d candidates played again on fresh seeds (%d games) to measure the noise", reeval, reevalGames)
	}
	facts = append(facts, [2]string{"games per candidate", per})
	return facts
}
