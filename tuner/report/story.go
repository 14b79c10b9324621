package report

import (
	"fmt"

	"github.com/evotune/evotune/tuner"
)

// The recommendation's story: which point the run recommended at each
// moment, and why. It is read from the history's validations alone, so a
// report tells it for runs of this evotune and of older ones alike.
//
// Since the final race, a run validates its start once and, at the end of
// each stage and of the run, the winner of the stage's final race: its
// start, its finalists, its latest mean and the average of its last means
// race on games of their own, an entrant shown worse than the leader
// stopping early, and the winner alone is measured on the validation
// games. Until a stage's race the run recommends the stage's start (the
// start weights, or the previous stage's winner).
//
// An older evotune validated the mean every validation.every generations
// and then, under recommend: race, raced it against the mean recommended
// before (the incumbent) on games of their own; a fallback moved the
// search back to an incumbent that won clearly. Its lines carry no
// of_generation; what they recommended is their race's recommends, else
// their recommended field, else their own generation (recommended: 0, the
// start, was omitted, so a line without a race says nothing more).

// A decision is one history line with a validation: what was measured and
// what the run recommended after it.
type decision struct {
	// Generation is the line's: when the decision was made.
	Generation int
	// Stage is the line's stage, from 1 (0 without stages).
	Stage int
	V     *tuner.RecordValidation
	// Final says the line is a final race's (or, under select: 0, the
	// average's without one); false for an older evotune's validation.
	Final bool
	// Of is the generation whose mean was validated: for an average, the
	// last it averages; for a stage's start that won, the generation the
	// stage started from.
	Of int
	// Recommends is the generation recommended after the line.
	Recommends int
	// Winner is the index of the final race's winner in its entrants, -1
	// without a race.
	Winner int
	// Fallback says an older evotune's race sent the search back to the
	// incumbent (Recommends).
	Fallback bool
	// Y is the recommended point's validated figure after the line (see
	// figure); HaveY is false where the history does not hold it.
	Y     float64
	HaveY bool
}

// Won says an older evotune's validated mean was recommended after its
// validation: it won its race, or took over without one.
func (d *decision) Won() bool { return d.Recommends == d.Generation }

// final says a history validation is a final race's: it names the
// generation it measured, or has the race's entrants (a stage-1 start that
// won measured generation 0, which is omitted).
func final(v *tuner.RecordValidation) bool {
	return v.Generation > 0 || v.Race != nil && len(v.Race.Entrants) > 0
}

// winner returns the index of the final race's winner among its
// entrants, -1 without a race: the record's winner, which is omitted where
// it is 0 (the start, the first entrant) and in the records of the builds
// before it. Then the start is told by its flag (no other entrant has its
// generation); the average and the latest mean, which share a
// generation, by the validation's average.
func winner(v *tuner.RecordValidation) int {
	if v.Race == nil {
		return -1
	}
	es := v.Race.Entrants
	if w := v.Race.Winner; w > 0 && w < len(es) {
		return w
	}
	for i, e := range es {
		if e.Start && e.Generation == v.Race.Recommends {
			return i
		}
	}
	for i, e := range es {
		if !e.Start && e.Generation == v.Race.Recommends && (e.Average > 0) == (v.Average > 0) && (e.Model > 0) == (v.Model > 0) {
			return i
		}
	}
	return -1
}

// endedEarly says a final race ended before its last block: when one
// entrant was left. The record does not say so; it shows as fewer games
// than validation.select, as a run plays them (only a tuner told to
// finish within a budget of games, which writes no run directory, plays
// fewer).
func (r *Run) endedEarly(race *tuner.RecordRace) bool {
	return race.Games < r.Config.Validation.Select
}

// stopped says the i-th entrant of decision d's final race was stopped
// as worse than the leader: as its record says, or, in records from
// before it said so, where it played fewer games than the race, or, in a
// race that ended early because it alone was left beside the winner (or
// they all were stopped at the same look), as many.
func (r *Run) stopped(d decision, i int) bool {
	race := d.V.Race
	e := race.Entrants[i]
	if e.Stopped {
		return true
	}
	return i != d.Winner && (e.Games < race.Games || r.endedEarly(race))
}

// figure returns the figure a validation is drawn at: the mean score with
// its interval for mean_score, the metric's value without one otherwise.
func (r *Run) figure(fitness, mean, ci float64) (y, err float64) {
	if r.Metric.String() == "mean_score" {
		return mean, ci
	}
	return fitness, 0
}

// decisions returns the history's validations in order, each with what
// the run recommended after it.
func (r *Run) decisions() []decision {
	known := map[int]float64{} // an older evotune's validated figures, by generation
	var ds []decision
	for i := range r.History {
		g := &r.History[i]
		v := g.Validation
		if v == nil {
			continue
		}
		d := decision{Generation: g.Generation, Stage: g.Stage, V: v, Winner: -1}
		y, _ := r.figure(v.Fitness, v.Mean, v.CI95)
		if final(v) {
			d.Final, d.Of, d.Recommends = true, v.Generation, v.Generation
			d.Winner = winner(v)
			if v.Race != nil {
				d.Recommends = v.Race.Recommends
			}
			// The line's figure is the winner's, whatever it is.
			d.Y, d.HaveY = y, true
			ds = append(ds, d)
			continue
		}
		d.Of, d.Recommends = g.Generation, g.Generation
		known[g.Generation] = y
		switch {
		case v.Race != nil:
			d.Recommends, d.Fallback = v.Race.Recommends, v.Race.Fallback
		case v.Recommended > 0:
			d.Recommends = v.Recommended
		}
		if v.Fallback > 0 {
			d.Fallback = true
		}
		if f, ok := known[d.Recommends]; ok {
			d.Y, d.HaveY = f, true
		} else if d.Recommends == 0 {
			d.Y, d.HaveY = r.startFigure(d.Stage)
		}
		ds = append(ds, d)
	}
	return ds
}

// legacy says the history holds validations of an evotune before the
// final race.
func legacy(ds []decision) bool {
	for _, d := range ds {
		if !d.Final {
			return true
		}
	}
	return false
}

// storySeries returns the fitness chart's series of the recommendation's
// story: the validated points, the final races' entrants, the recommended
// point's validated figure at each generation, and the fallbacks.
func (r *Run) storySeries() []series {
	ds := r.decisions()
	m := r.Metric.String()
	withErr := m == "mean_score"
	var out []series

	// An older evotune's validations: won or lost their race, or plain
	// where it had no races.
	raced := false
	for _, d := range ds {
		if !d.Final && d.V.Race != nil {
			raced = true
		}
	}
	plain := series{Name: "validated mean ± 95% CI", Kind: points, Color: 3}
	won := series{Name: "validated, won its race", Kind: points, Color: 3}
	lost := series{Name: "validated, lost its race", Kind: points, Color: 3, Shape: ring}
	// The final races': the winners validated, and every entrant on the
	// race's games.
	winners := series{Name: "race winner, validated", Kind: points, Color: 3}
	entrants := series{Name: "race entrant", Kind: points, Color: 4, Shape: ring}
	stopped := series{Name: "race entrant, stopped", Kind: points, Color: 4, Shape: cross}
	if !anyRace(ds) {
		winners.Name = "average of last means, validated"
	}
	if !withErr {
		plain.Name = "validated mean (" + m + ")"
	} else {
		won.Name += " ± 95% CI"
		winners.Name += " ± 95% CI"
	}
	for _, d := range ds {
		y, e := r.figure(d.V.Fitness, d.V.Mean, d.V.CI95)
		if !d.Final {
			s := &plain
			if raced {
				s = &won
				if !d.Won() {
					s = &lost
				}
			}
			s.add(float64(d.Generation), y, 0, e, withErr)
			continue
		}
		x, xe := span(d.Of, max(d.V.Average, d.V.Model))
		if d.Winner >= 0 && d.V.Race.Entrants[d.Winner].Start {
			// The start that won keeps its own figure: drawn where the
			// start races.
			x, xe = float64(d.V.Race.Entrants[d.Winner].Generation), 0
		}
		winners.add(x, y, xe, e, withErr)
		if d.V.Race == nil {
			continue
		}
		for i, en := range d.V.Race.Entrants {
			x, xe := span(en.Generation, max(en.Average, en.Model))
			s := &entrants
			if r.stopped(d, i) {
				s = &stopped
			}
			s.add(x, en.Fitness, xe, 0, false)
		}
	}
	for _, s := range []series{plain, won, lost, winners, entrants, stopped} {
		if len(s.X) > 0 {
			out = append(out, s)
		}
	}
	if rec := r.recommendedLine(ds); len(rec.X) > 0 {
		out = append(out, rec)
	}
	out = append(out, r.fallbackMarks()...)
	return out
}

// fallbackMarks returns the vertical lines at an older evotune's
// fallbacks, or nil.
func (r *Run) fallbackMarks() []series {
	var xs []float64
	for _, d := range r.decisions() {
		if !d.Final && d.Fallback {
			xs = append(xs, float64(d.Generation))
		}
	}
	if xs == nil {
		return nil
	}
	return []series{{Name: "fallback", Kind: markers, X: xs, Color: 3, Faint: true}}
}

// add appends a point, with its horizontal half-width xe (the span of an
// average) and, when withErr, its interval e.
func (s *series) add(x, y, xe, e float64, withErr bool) {
	s.X, s.Y = append(s.X, x), append(s.Y, y)
	s.XErr = append(s.XErr, xe)
	if withErr {
		s.Err = append(s.Err, e)
	}
}

// recommendedLine is the validated figure of the recommended point at
// each generation, a step at each decision that changed it: the start's
// before the first, and a gap where the history does not hold the figure
// (an older line recommending a generation whose validation was skipped
// as damaged).
func (r *Run) recommendedLine(ds []decision) series {
	s := series{Name: "last validated", Kind: line, Color: 8, Band: true}
	if len(r.History) == 0 {
		return s
	}
	y, have := r.startFigure(r.History[0].Stage)
	if have {
		s.X, s.Y = []float64{float64(r.History[0].Generation - 1)}, []float64{y}
	}
	for _, d := range ds {
		if !d.HaveY {
			continue
		}
		x := float64(d.Generation)
		switch {
		case !have:
			s.X, s.Y = append(s.X, x), append(s.Y, d.Y)
		case d.Y != y:
			s.X, s.Y = append(s.X, x, x), append(s.Y, y, d.Y)
		}
		y, have = d.Y, true
	}
	if last := float64(r.History[len(r.History)-1].Generation); have && last > s.X[len(s.X)-1] {
		s.X, s.Y = append(s.X, last), append(s.Y, y)
	}
	return s
}

// startFigure returns the start's validated figure with stage's
// validation search (stage from 1; 0 without stages): the state's where it
// holds it (startHolds), else the one the history's first line of the
// stage with a race recorded (validation.start, written since the state
// keeps the latest only); false where neither has it.
func (r *Run) startFigure(stage int) (float64, bool) {
	if st := r.State.Start; st != nil && r.startHolds(stage) {
		y, _ := r.figure(st.Fitness, st.Mean, st.CI95)
		return y, true
	}
	for _, g := range r.History {
		if v := g.Validation; g.Stage == stage && v != nil && v.Start != nil {
			y, _ := r.figure(v.Start.Fitness, v.Start.Mean, v.Start.CI95)
			return y, true
		}
	}
	return 0, false
}

// startHolds says the start's validation the state holds is a figure of
// stage's (from 1; 0 without stages): measured with its validation
// search. A stage whose validation search is new measures the start again
// and the state keeps the latest, so an earlier stage's start figure is
// not in the run directory.
func (r *Run) startHolds(stage int) bool {
	st := r.State.Start
	stages := r.Config.StageList()
	k := max(stage-1, 0)
	if st == nil || k >= len(stages) || st.Stage >= len(stages) {
		return false
	}
	return r.Config.StageValidationSearch(k) == r.Config.StageValidationSearch(st.Stage)
}

// lastFinal returns the decision that chose the validated weights v, when
// it is a final race's (the history's last decision, naming v's
// generation); nil for an older evotune's recommendation or a history
// that does not hold it.
func (r *Run) lastFinal(v *tuner.Validation) *decision {
	ds := r.decisions()
	if len(ds) == 0 {
		return nil
	}
	d := ds[len(ds)-1]
	if !d.Final || d.Recommends != v.Generation || d.V.Average != v.Average || d.V.Model != v.Model {
		return nil
	}
	return &d
}

// recommendedName names the recommended point v: the mean of a
// generation, an average of means, or a start that won its race.
func (r *Run) recommendedName(v *tuner.Validation) string {
	if d := r.lastFinal(v); d != nil && d.Winner >= 0 {
		e := d.V.Race.Entrants[d.Winner]
		if e.Start {
			return r.entrantName(e, d.Stage) + ", winner of the final race"
		}
	}
	switch {
	case v.Model > 0:
		return modelName(v.Generation, v.Model)
	case v.Average > 1:
		return fmt.Sprintf("average of the means of generations %d–%d", v.Generation-v.Average+1, v.Generation)
	case v.Generation == 0:
		return "start " + r.vectorWord() + "s"
	}
	return fmt.Sprintf("mean of generation %d", v.Generation)
}

// span returns where a point of generations gen-k+1 to gen is drawn: its
// middle and half its width (a point of one generation for k ≤ 1).
func span(gen, k int) (x, xe float64) {
	if k > 1 {
		return float64(gen) - float64(k-1)/2, float64(k-1) / 2
	}
	return float64(gen), 0
}

// modelName names the model's point of a final race after generation gen,
// fitted to the candidates of the k generations ending there.
func modelName(gen, k int) string {
	return fmt.Sprintf("model's point (fitted to generations %d–%d)", gen-k+1, gen)
}

// meanText names the distribution mean, or the average of means, that v is,
// as a sentence begins.
func meanText(v *tuner.Validation) string {
	if v.Model > 0 {
		return fmt.Sprintf("The point of the model fitted to the candidates of generations %d to %d", v.Generation-v.Model+1, v.Generation)
	}
	if v.Average > 1 {
		return fmt.Sprintf("The average of the distribution means of generations %d to %d", v.Generation-v.Average+1, v.Generation)
	}
	return fmt.Sprintf("The distribution mean of generation %d", v.Generation)
}

// recommendedText says what the recommended weights v are and how the run
// chose them.
func (r *Run) recommendedText(v *tuner.Validation) string {
	d := r.lastFinal(v)
	if d == nil {
		if v.Race != nil && len(v.Race.Entrants) == 0 || legacy(r.decisions()) {
			return fmt.Sprintf("The distribution mean of generation %d, validated on %d held-out games, recommended by the rules of an evotune before the final race (the table under the fitness chart tells each validation): what evotune export writes.", v.Generation, v.Games)
		}
		return fmt.Sprintf("The distribution mean of generation %d, validated on %d held-out games: what evotune export writes.", v.Generation, v.Games)
	}
	what := meanText(v)
	if d.V.Race == nil {
		return fmt.Sprintf("%s, recommended without a race, validated on %d held-out games: what evotune export writes.", what, v.Games)
	}
	race := fmt.Sprintf("the final race after generation %d (%d entrants on up to %d games of their own; the table under the fitness chart tells it)", d.Generation, len(d.V.Race.Entrants), d.V.Race.Games)
	if d.Winner >= 0 && d.V.Race.Entrants[d.Winner].Start {
		if v.Generation == 0 {
			return fmt.Sprintf("The starting weights: they won %s and keep their own validation on %d held-out games: what evotune export writes.", race, v.Games)
		}
		return fmt.Sprintf("The stage's start, the winner of stage %d (generation %d): it won %s and keeps its validation on %d held-out games: what evotune export writes.", d.Stage-1, v.Generation, race, v.Games)
	}
	return fmt.Sprintf("%s, the winner of %s, validated on %d held-out games no race played: what evotune export writes.", what, race, v.Games)
}
