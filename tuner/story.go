package tuner

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The story of the recommendation. At any moment a run hands over one
// vector (Handover), and everything that speaks of it tells why in the
// words of this file: the comments of an exported weights file, cpp block
// and set line, the line export prints, the report's recommended weights
// and fitness chart, tune's config line. The rule itself lives in race.go
// and validation.go; a change to it is told everywhere by changing
// RecommendationRule (story_rule.go) and the texts below, and the tests that render a
// report at each moment and compare it with what export writes hold the
// outputs together.

// A Moment is where a run stands with what it hands over.
type Moment int

const (
	// MomentUnmeasured: the start's validation has not finished, and
	// nothing is handed over.
	MomentUnmeasured Moment = iota
	// MomentStart: the start is measured and no generation has ended: the
	// start, validated.
	MomentStart
	// MomentStage: a stage is under way: what it would hand over were it
	// to end now, not yet validated.
	MomentStage
	// MomentBetween: a stage's final race has run and the run has played
	// no generation since: its winner, validated.
	MomentBetween
	// MomentEnd: the run has finished: its winner, validated.
	MomentEnd
	// MomentSelected: a stage's winner read back from the history
	// (SelectStage), validated.
	MomentSelected
)

// A Story is what a run hands over now and why (Tuner.Story).
type Story struct {
	Moment Moment
	// V is what an export writes (Handover); nil at MomentUnmeasured.
	V *Validation
	// Last is, where V is not validated, the latest validated vector (the
	// stage's start: the run's start, or the winner of the stage before).
	Last *Validation
	// Word is what a coordinate is called: "weights" or "parameters".
	Word string
	// What names V; Status says whether it is validated and where the run
	// stands; Next what the run does next with what it hands over (empty
	// once it has finished); LastText names Last with its figure; Start
	// what the run started from, with its figure; Held the coordinates V's
	// stage holds, and why.
	What, Status, Next, LastText, Start, Held string
	// Names are the coordinates, Starts their values at the run's start,
	// and IsHeld marks those V's stage holds at their start.
	Names  []string
	Starts []float64
	IsHeld []bool
}

// Validated says the vector handed over is measured on validation games.
func (s Story) Validated() bool { return s.V != nil && s.V.Games > 0 }

// Lines are the story as the comments of an exported file give it, one
// "key: text" line each.
func (s Story) Lines() []string {
	lines := []string{"status: " + s.Status}
	if s.What != "" {
		lines = append(lines, s.Word+": "+s.What)
	}
	if s.Next != "" {
		lines = append(lines, "next: "+s.Next)
	}
	if s.LastText != "" {
		lines = append(lines, "last validated: "+s.LastText)
	}
	lines = append(lines, "start: "+s.Start)
	if s.Held != "" {
		lines = append(lines, "held: "+s.Held)
	}
	return lines
}

// ValueNote is the note on coordinate i's line in an exported file: its
// start value, written by format, and whether it is held there.
func (s Story) ValueNote(i int, format func(float64) string) string {
	n := "start " + format(s.Starts[i])
	if s.IsHeld[i] {
		n += ", held"
	}
	return n
}

// Story says what the run hands over now (Handover) and why.
func (t *Tuner) Story() Story {
	s := Story{V: t.Handover(), Word: t.word(), Names: t.names, Starts: t.init}
	g := t.state.Generation
	switch {
	case t.selected != nil:
		s.Moment = MomentSelected
	case s.V == nil:
		s.Moment = MomentUnmeasured
	case t.state.Finished != "":
		s.Moment = MomentEnd
	case g == 0:
		s.Moment = MomentStart
	case g == t.state.StageGeneration || t.concludedAt(g):
		s.Moment = MomentBetween
	default:
		s.Moment = MomentStage
	}
	stage := t.state.Stage
	if s.V != nil {
		stage = s.V.Stage
	}
	s.IsHeld = make([]bool, len(t.names))
	if coords, err := Coordinates(t.cfg, *t.stages[stage].Search); err == nil {
		var held []string
		for i, c := range coords {
			if s.IsHeld[i] = c.Held; c.Held {
				held = append(held, c.Name)
			}
		}
		if len(held) > 0 {
			s.Held = strings.Join(held, ", ") + t.heldWhy()
		}
	}
	s.Start = t.startText()
	if s.V == nil {
		s.Status = "nothing to hand over yet: the start is not measured"
		s.Next = t.startWhen()
		return s
	}
	s.What = t.vectorName(s.V)
	validated := "validated"
	if !s.Validated() {
		validated = "not yet validated: what the run hands over were it to end now"
	}
	switch s.Moment {
	case MomentStart:
		s.Status = validated + "; run in progress: " + t.position()
		s.Next = fmt.Sprintf("once generation 1 ends, an export hands over %s, not yet validated, until the stage ends (%s)", t.pendingName(), t.stageEnds())
	case MomentStage:
		s.Status = validated + "; run in progress: " + t.position()
		if s.V.Games == 0 {
			s.Next = fmt.Sprintf("were %s to end now, %s; it ends %s", t.stageWord(t.state.Stage), t.raceText(t.entrantsAt(g)), t.stageEnds())
			if last := t.Recommended(); last != nil {
				s.Last = last
				s.LastText = t.vectorName(last) + ", " + t.figureText(last)
			}
		}
	case MomentBetween:
		s.Status = validated + "; run in progress: " + t.generationsText() + " done"
		if t.state.Stage > s.V.Stage {
			s.Status += fmt.Sprintf(", %s has ended and %s starts from these %s", t.stageWord(s.V.Stage), t.stageWord(t.state.Stage), s.Word)
		} else {
			s.Status += fmt.Sprintf(", continued after its final race after generation %d", g)
		}
		s.Next = fmt.Sprintf("once generation %d ends, an export hands over %s, not yet validated, until the stage ends (%s)", g+1, t.pendingName(), t.stageEnds())
	case MomentEnd:
		s.Status = fmt.Sprintf("%s; run finished after %s (%s)", validated, t.generationsText(), t.state.Finished)
	case MomentSelected:
		s.Status = fmt.Sprintf("%s; the winner of %s, read back from the run's history (the run: %s)", validated, t.stageWord(s.V.Stage), t.generationsText())
	}
	if s.Validated() {
		s.What += ", " + t.figureText(s.V)
	}
	return s
}

// word is what a coordinate of the run's vector is called.
func (t *Tuner) word() string {
	if t.set == nil {
		return "parameters"
	}
	return "weights"
}

// heldWhy says why the run holds the coordinates it holds.
func (t *Tuner) heldWhy() string {
	if t.set == nil {
		return ", fixed by the config or by its bounds"
	}
	return ", the set's reference weight, held at its start: the search adds no move scores, so only the weights' directions matter"
}

// startText says what the run started from, and the start's figure.
func (t *Tuner) startText() string {
	s := t.startOrigin()
	v := t.state.Start
	if v == nil {
		return s + ", not yet measured"
	}
	s += ", " + t.figureText(v)
	if v.Stage > 0 {
		s += fmt.Sprintf(", measured with %s's validation search", t.stageWord(v.Stage))
	}
	return s
}

// startOrigin names where the run's starting vector comes from.
func (t *Tuner) startOrigin() string {
	w := t.word()
	switch pc := t.cfg.Player; {
	case t.cfg.InitFrom != "":
		return "the " + w + " of " + t.cfg.InitFrom
	case pc != nil && pc.Declared != nil:
		for i, q := range pc.Declared.Params {
			if t.init[i] != q.Default {
				return "the config's player.init"
			}
		}
		return "the player's declared defaults"
	case t.set != nil && slices.Equal(t.init, append(slices.Clone(t.set.Defaults), t.set.DefaultParams()...)):
		return "the " + t.set.Name + " set's defaults"
	}
	return "the config's init"
}

// startWhen says when a run that has not measured its start will have.
func (t *Tuner) startWhen() string {
	done := ""
	if t.startGames >= 0 {
		done = fmt.Sprintf(" (%d finished, in the journal)", t.startGames)
	}
	return fmt.Sprintf("the run measures its start on its %d validation games%s before its first generation ends, and prints \"start validated\"; from then an export hands over the start, validated", t.cfg.Validation.Games, done)
}

// figureText is a validation's figure: the mean score with its interval,
// and the metric where it is another.
func (t *Tuner) figureText(v *Validation) string {
	s := fmt.Sprintf("mean score %s ± %s on %d validation games", figure(v.Mean), figure(v.CI95), v.Games)
	if m := t.metric.String(); m != "mean_score" {
		s = fmt.Sprintf("%s %s (%s)", m, figure(v.Fitness), s)
	}
	return s
}

// figure writes a score as the outputs do: whole above 100, 4 significant
// digits below.
func figure(x float64) string {
	if x >= 100 || x <= -100 {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// stageWord names stage i (0-based) of a ladder ("stage 2 (cap2)"), and
// the one stage of a run without stages "the run".
func (t *Tuner) stageWord(i int) string {
	if len(t.cfg.Stages) == 0 {
		return "the run"
	}
	s := fmt.Sprintf("stage %d", i+1)
	if name := t.stages[i].Name; name != strconv.Itoa(i+1) {
		s += " (" + name + ")"
	}
	return s
}

// generationsText is the generations done, of the run's limit.
func (t *Tuner) generationsText() string {
	g := t.state.Generation
	if n := t.cfg.Generations; n > 0 {
		return fmt.Sprintf("%d of %d generations", g, n)
	}
	return fmt.Sprintf("%d generations (no generation limit)", g)
}

// position says where a run in progress stands.
func (t *Tuner) position() string {
	s := t.generationsText() + " done"
	if len(t.cfg.Stages) > 0 {
		s += fmt.Sprintf(", stage %d of %d", t.state.Stage+1, len(t.stages))
		if name := t.stages[t.state.Stage].Name; name != strconv.Itoa(t.state.Stage+1) {
			s += " (" + name + ")"
		}
	}
	return s
}

// MeanName names the distribution mean of generation gen, or, for average
// above 1, the average of the average means ending there.
func MeanName(gen, average int) string {
	if average > 1 {
		return fmt.Sprintf("the average of the distribution means of generations %d-%d", gen-average+1, gen)
	}
	return fmt.Sprintf("the distribution mean of generation %d", gen)
}

// ModelName names the model's point (validation.model) after generation
// gen, fitted to the candidates of the span generations ending there.
func ModelName(gen, span int) string {
	return fmt.Sprintf("the point of the model fitted to the candidates of generations %d-%d", gen-span+1, gen)
}

// PointName names a point of a final race after generation gen: the
// model's point for model above 0 (ModelName), else the mean or the
// average of average means ending there (MeanName).
func PointName(gen, average, model int) string {
	if model > 0 {
		return ModelName(gen, model)
	}
	return MeanName(gen, average)
}

// vectorName names a vector the run hands over, and how it was chosen.
func (t *Tuner) vectorName(v *Validation) string {
	if v.Games == 0 {
		return MeanName(v.Generation, v.Average)
	}
	race := v.Race
	if race != nil && len(race.Entrants) == 0 {
		return MeanName(v.Generation, 0) + ", recommended by the rules of an evotune before the final race"
	}
	won := race != nil && race.Winner >= 0 && race.Winner < len(race.Entrants)
	after := ""
	if won {
		after = t.raceName(v.Stage, race)
	}
	switch {
	case v.Generation == 0 && v.Average == 0 && won:
		return fmt.Sprintf("the start %s (%s), which won %s", t.word(), t.startOrigin(), after)
	case v.Generation == 0 && v.Average == 0:
		return fmt.Sprintf("the start %s (%s)", t.word(), t.startOrigin())
	case won && race.Entrants[race.Winner].Start:
		return fmt.Sprintf("%s, the winner of %s, which as the start of %s won %s", PointName(v.Generation, v.Average, v.Model), t.stageWord(v.Stage-1), t.stageWord(v.Stage), after)
	case won:
		return PointName(v.Generation, v.Average, v.Model) + ", the winner of " + after
	}
	return PointName(v.Generation, v.Average, v.Model) + ", validated without a race"
}

// raceName names the final race of stage i that ran after the generation
// of its latest entrant.
func (t *Tuner) raceName(i int, race *RecordRace) string {
	after := 0
	for _, e := range race.Entrants {
		after = max(after, e.Generation)
	}
	if len(t.cfg.Stages) == 0 {
		return fmt.Sprintf("the final race after generation %d", after)
	}
	return fmt.Sprintf("the final race of %s after generation %d", t.stageWord(i), after)
}

// pendingName says what a stage under way hands over, in general.
func (t *Tuner) pendingName() string {
	if a := t.cfg.Validation.Average; a > 1 {
		return fmt.Sprintf("the average of the stage's last distribution means (up to %d, half of its generations at most)", a)
	}
	return "the stage's latest distribution mean"
}

// raceText says what happens to the entrants es of a final race.
func (t *Tuner) raceText(es []entrant) string {
	v := t.cfg.Validation
	if v.Select == 0 || len(es) == 1 {
		return fmt.Sprintf("%s would be validated on %d held-out games, without a race", t.entrantName(es[len(es)-1]), v.Games)
	}
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = t.entrantName(e)
		if !e.start && e.average == 0 && e.model == 0 && e.Generation < es[len(es)-1].Generation {
			names[i] += " (a finalist)"
		}
	}
	list := strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	return fmt.Sprintf("%s would race on up to %d games each, the same fresh seeds for all, and the winner would be validated on %d held-out games", list, v.Select, v.Games)
}

// entrantName names an entrant of a final race.
func (t *Tuner) entrantName(e entrant) string {
	switch {
	case e.start && t.state.Stage == 0:
		return "the start"
	case e.start:
		return "the stage's start (the previous stage's winner)"
	}
	return PointName(e.Generation, e.average, e.model)
}

// stageEnds says when the current stage ends by its limits and the run's.
func (t *Tuner) stageEnds() string {
	st := t.stages[t.state.Stage]
	var ends []string
	last := 0
	if st.Generations > 0 {
		last = t.state.StageGeneration + st.Generations
	}
	if n := t.cfg.Generations; n > 0 && (last == 0 || n < last) {
		last = n
	}
	if last > 0 {
		ends = append(ends, fmt.Sprintf("after generation %d", last))
	}
	if st.Duration > 0 {
		ends = append(ends, fmt.Sprintf("when its %v are spent", time.Duration(st.Duration)))
	}
	if d := t.cfg.Duration; d > 0 {
		ends = append(ends, fmt.Sprintf("when the run's %v are spent", time.Duration(d)))
	}
	ends = append(ends, "when its optimizer converges")
	if len(ends) == 1 {
		return ends[0] + " (no other limit)"
	}
	return strings.Join(ends[:len(ends)-1], ", ") + " or " + ends[len(ends)-1] + ", whichever comes first"
}
