package tuner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A ladder hands each stage's winner to the next, and its state keeps only
// the latest: after the 7-ply stage of a ladder has begun, the checkpoint
// that held the 5-ply winner is soon pruned. Yet that winner is what an
// engine searching 5 plies wants. The history keeps every generation's
// mean and every final race, and the race built its entrants from those
// means alone, so the winner is rebuilt from them, with the same sums in
// the same order (averageOf), bit for bit what the run handed on.

// ErrStage is wrapped by the errors of StageIndex and SelectStage: no such
// stage, or one whose winner the history does not give.
var ErrStage = errors.New("tuner: stage")

// StageIndex returns the 0-based index of the stage a user named by its
// name or its 1-based number.
func (t *Tuner) StageIndex(name string) (int, error) {
	if len(t.cfg.Stages) == 0 {
		return 0, fmt.Errorf("%w %q: the run %s has no stages", ErrStage, name, t.cfg.Name)
	}
	names := make([]string, len(t.stages))
	for i, st := range t.stages {
		names[i] = st.Name
		if st.Name == name {
			return i, nil
		}
	}
	if n, err := strconv.Atoi(name); err == nil && n >= 1 && n <= len(t.stages) {
		return n - 1, nil
	}
	return 0, fmt.Errorf("%w %q: the run %s has stages %s (a name, or a number from 1 to %d)", ErrStage, name, t.cfg.Name, strings.Join(names, ", "), len(t.stages))
}

// stageLine is what SelectStage reads of a history line.
type stageLine struct {
	Generation  int                `json:"generation"`
	Stage       int                `json:"stage"`
	Evaluations int                `json:"evaluations"`
	Weights     map[string]float64 `json:"weights"`
	Validation  *RecordValidation  `json:"validation"`
}

// SelectStage makes Handover, and so WeightsFile, PlayerFile and what
// export writes, the winner of stage i's final race (0-based) as the run's
// history (history.jsonl's bytes) records it: its weights, its validated
// figures, and the start's on the same games where the history has them.
// It refuses a stage that has not ended, and a history written before
// final races.
func (t *Tuner) SelectStage(history []byte, i int) error {
	if i < 0 || i >= len(t.stages) {
		return fmt.Errorf("%w %d: the run has %d", ErrStage, i+1, len(t.stages))
	}
	lines, err := stageLines(history, len(t.cfg.Stages) > 0)
	if err != nil {
		return err
	}
	from := t.init
	for j := 0; ; j++ {
		w, start, ev, err := t.stageWinner(lines, j, from)
		if err != nil {
			return err
		}
		if j == i {
			t.selected = &selection{winner: w, start: start, evaluations: ev}
			return nil
		}
		from = w.Weights
	}
}

// A selection is the stage winner SelectStage chose, with the start's
// figure on its validation games (nil where the history has none) and the
// candidates evaluated when its stage ended.
type selection struct {
	winner, start *Validation
	evaluations   int
}

// stageLines decodes the complete lines of a history; staged says the run
// has stages, whose lines carry their stage from 1 (a run without stages
// writes none: its one stage).
func stageLines(history []byte, staged bool) ([]stageLine, error) {
	var lines []stageLine
	for n, b := range bytes.SplitAfter(history, []byte("\n")) {
		if len(b) == 0 || b[len(b)-1] != '\n' {
			break // a line being written
		}
		var l stageLine
		if err := json.Unmarshal(b, &l); err != nil {
			return nil, fmt.Errorf("%w: %s:%d: %w", ErrStage, HistoryFile, n+1, err)
		}
		if !staged {
			l.Stage = 1
		}
		lines = append(lines, l)
	}
	return lines, nil
}

// stageWinner rebuilds the winner of stage j's race from its lines: the
// stage started from the weights from.
// It returns the winner, the start's figure on the same games (nil where
// the line has none) and the candidates evaluated when the stage ended.
func (t *Tuner) stageWinner(lines []stageLine, j int, from []float64) (v, start *Validation, evaluations int, err error) {
	name := t.stages[j].Name
	var mine []stageLine
	for _, l := range lines {
		if l.Stage == j+1 {
			mine = append(mine, l)
		}
	}
	if len(mine) == 0 || mine[len(mine)-1].Validation == nil {
		return nil, nil, 0, fmt.Errorf("%w %s: it has not ended yet (export without --stage gives what the run would hand over now)", ErrStage, name)
	}
	end := mine[len(mine)-1]
	rv := end.Validation
	if rv.Recommended != 0 || rv.Fallback != 0 || rv.Race != nil && len(rv.Race.Entrants) == 0 ||
		rv.Race == nil && rv.Generation == 0 && rv.Average == 0 {
		return nil, nil, 0, fmt.Errorf("%w %s: %s line %d was written by an older evotune, before final races: its winner's weights are in the checkpoint of generation %d, if it is still kept", ErrStage, name, HistoryFile, end.Generation, end.Generation)
	}
	gen, avg, isStart := rv.Generation, rv.Average, false
	var model *RaceEntrant
	if r := rv.Race; r != nil {
		if r.Winner < 0 || r.Winner >= len(r.Entrants) {
			return nil, nil, 0, fmt.Errorf("%w %s: %s line %d: race winner %d of %d entrants", ErrStage, name, HistoryFile, end.Generation, r.Winner, len(r.Entrants))
		}
		e := r.Entrants[r.Winner]
		gen, avg, isStart = e.Generation, e.Average, e.Start
		if e.Model > 0 {
			model = &e
		}
	}
	free, err := freeCoordinates(t.cfg, *t.stages[j].Search)
	if err != nil {
		return nil, nil, 0, err
	}
	var w []float64
	switch {
	case isStart:
		w = slices.Clone(from)
	case model != nil:
		// The model's point is in its entrant's record alone.
		if model.Weights == nil {
			return nil, nil, 0, fmt.Errorf("%w %s: %s line %d: the model's point won the race, and its weights are not in the line", ErrStage, name, HistoryFile, end.Generation)
		}
		if w, err = t.meanOf(stageLine{Generation: end.Generation, Weights: model.Weights.asMap()}); err != nil {
			return nil, nil, 0, err
		}
	case avg > 0:
		var ms []Finalist
		for _, l := range mine {
			if l.Generation > gen-avg && l.Generation <= gen {
				m, err := t.meanOf(l)
				if err != nil {
					return nil, nil, 0, err
				}
				ms = append(ms, Finalist{Generation: l.Generation, Weights: m})
			}
		}
		if len(ms) != avg {
			return nil, nil, 0, fmt.Errorf("%w %s: %s has %d of the %d means averaged up to generation %d", ErrStage, name, HistoryFile, len(ms), avg, gen)
		}
		w = averageOf(ms, from, free)
	default:
		i := slices.IndexFunc(mine, func(l stageLine) bool { return l.Generation == gen })
		if i < 0 {
			return nil, nil, 0, fmt.Errorf("%w %s: %s has no line for generation %d, the race's winner", ErrStage, name, HistoryFile, gen)
		}
		if w, err = t.meanOf(mine[i]); err != nil {
			return nil, nil, 0, err
		}
	}
	v = &Validation{Generation: gen, Weights: w, Fitness: rv.Fitness, Mean: rv.Mean, CI95: rv.CI95,
		Median: rv.Median, Games: rv.Games, Stage: j, Average: avg, Model: rv.Model, Race: rv.Race}
	if s := rv.Start; s != nil {
		start = &Validation{Weights: t.init, Fitness: s.Fitness, Mean: s.Mean, CI95: s.CI95, Median: s.Median, Games: s.Games, Stage: j}
	}
	return v, start, end.Evaluations, nil
}

// meanOf returns the mean a history line records, in the run's
// coordinate order.
func (t *Tuner) meanOf(l stageLine) ([]float64, error) {
	w := make([]float64, len(t.names))
	for k, n := range t.names {
		x, ok := l.Weights[n]
		if !ok {
			return nil, fmt.Errorf("%w: %s line %d has no weight %s", ErrStage, HistoryFile, l.Generation, n)
		}
		w[k] = x
	}
	return w, nil
}
