package tuner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// winnerLadderYAML is a ladder of three stages whose races, over a few run
// seeds, are won by each kind of entrant: the start, a finalist, the latest
// mean and the average. Its middle stage holds a coordinate (heuristic
// only: empty stays), which an average keeps exactly.
const winnerLadderYAML = `name: winners
seed: %d
sigma: %g
optimizer: {population: 4}
search: {depth: 1}
fitness: {games: 3}
noise: {handling: false, racing: false}
validation: {games: 4, select: 8, average: 3, finalists: 1, every: 2}
stages:
  - name: shallow
    generations: 10
  - name: held
    search: {heuristic_only: true}
    generations: 10
  - name: deep
    search: {depth: 2}
    generations: 5
`

// stageEnd is what a run held at the end of a stage: the winner it handed
// on, the start's figure on the same games and the evaluations so far.
type stageEnd struct {
	winner, start Validation
	evaluations   int
}

// runLadder runs the ladder of run seed seed to its end and returns its
// config, its history's bytes and what it held at each stage's end.
func runLadder(t *testing.T, seed uint64, sigma float64) (*Config, []byte, []stageEnd) {
	t.Helper()
	cfg := parseResolved(t, fmt.Sprintf(winnerLadderYAML, seed, sigma))
	tu := mustNew(t, cfg)
	ctx := context.Background()
	if err := tu.ValidateStart(ctx); err != nil {
		t.Fatal(err)
	}
	var history bytes.Buffer
	var ends []stageEnd
	for tu.Finished() == "" {
		// The start measured with this stage's validation search: the
		// step that ends a stage measures it again for the next.
		start := *tu.State().Start
		rec, err := tu.Step(ctx, func() time.Duration { return 0 })
		if err != nil {
			t.Fatal(err)
		}
		line, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		history.Write(append(line, '\n'))
		if rec.Validation != nil {
			ends = append(ends, stageEnd{*tu.State().Validated, start, rec.Evaluations})
		}
	}
	return cfg, history.Bytes(), ends
}

// TestSelectStageMatchesRun: the winner of every stage, rebuilt from the
// history, is bit for bit the vector the run handed on, with its figures,
// the start's figure on the same games and the evaluations at its stage's
// end; over the seeds every kind of entrant wins some stage.
func TestSelectStageMatchesRun(t *testing.T) {
	kinds := map[string]int{}
	for seed := uint64(1); seed <= 10; seed++ {
		sigma := []float64{0.05, 0.3, 1}[seed%3]
		cfg, history, ends := runLadder(t, seed, sigma)
		if len(ends) != 3 {
			t.Fatalf("seed %d: %d stage ends, want 3", seed, len(ends))
		}
		for j, end := range ends {
			want := end.winner
			r := want.Race
			e := r.Entrants[r.Winner]
			switch {
			case e.Start:
				kinds["start"]++
			case e.Average > 0:
				kinds["average"]++
			case e.Generation == r.Entrants[len(r.Entrants)-1].Generation:
				kinds["latest"]++
			default:
				kinds["finalist"]++
			}
			tu := mustNew(t, cfg)
			if err := tu.SelectStage(history, j); err != nil {
				t.Fatalf("seed %d stage %d: %v", seed, j+1, err)
			}
			got := tu.Handover()
			if !slices.Equal(got.Weights, want.Weights) {
				t.Errorf("seed %d stage %d: weights %v, the run handed on %v", seed, j+1, got.Weights, want.Weights)
			}
			if got.Generation != want.Generation || got.Average != want.Average || got.Fitness != want.Fitness ||
				got.CI95 != want.CI95 || got.Games != want.Games || got.Stage != j {
				t.Errorf("seed %d stage %d: got generation %d average %d fitness %v ± %v on %d games, stage %d; want %d %d %v ± %v on %d, stage %d",
					seed, j+1, got.Generation, got.Average, got.Fitness, got.CI95, got.Games, got.Stage,
					want.Generation, want.Average, want.Fitness, want.CI95, want.Games, j)
			}
			wf, err := tu.WeightsFile()
			if err != nil {
				t.Fatal(err)
			}
			p := wf.Provenance
			if p.Evaluations != end.evaluations || p.Stage == nil || p.Stage.Index != j+1 || p.Stage.Name != tu.stages[j].Name {
				t.Errorf("seed %d stage %d: provenance evaluations %d stage %+v, want %d and stage %d %s", seed, j+1, p.Evaluations, p.Stage, end.evaluations, j+1, tu.stages[j].Name)
			}
			if p.Baseline == nil || p.Baseline.Mean != end.start.Fitness || p.Baseline.Games != end.start.Games {
				t.Errorf("seed %d stage %d: baseline %+v, want the start's %v on %d games", seed, j+1, p.Baseline, end.start.Fitness, end.start.Games)
			}
		}
	}
	t.Logf("stages won, by kind of entrant: %v", kinds)
	for _, k := range []string{"start", "average", "latest", "finalist"} {
		if kinds[k] == 0 {
			t.Errorf("no stage was won by the %s (wins: %v): the test does not cover it", k, kinds)
		}
	}
}

// TestSelectStageRefuses: a stage that has not ended, a history from
// before final races, a damaged line, and names of no stage.
func TestSelectStageRefuses(t *testing.T) {
	cfg, history, _ := runLadder(t, 1, 0.3)
	lines := bytes.SplitAfter(history, []byte("\n"))
	// Generations 1-10 are the first stage, 11-20 the second.
	cut := bytes.Join(lines[:12], nil)
	tu := mustNew(t, cfg)
	if err := tu.SelectStage(cut, 1); !errors.Is(err, ErrStage) || !strings.Contains(err.Error(), "held: it has not ended yet") {
		t.Errorf("the second stage mid-way: %v", err)
	}
	if err := tu.SelectStage(cut, 0); err != nil {
		t.Errorf("the first stage, ended: %v", err)
	}
	if err := tu.SelectStage(append(cut, lines[12][:20]...), 0); err != nil {
		t.Errorf("a torn last line is being written, not damage: %v", err)
	}
	old := bytes.Replace(history, []byte(`"validation":{`), []byte(`"validation":{"recommended":3,`), 1)
	if err := mustNew(t, cfg).SelectStage(old, 2); !errors.Is(err, ErrStage) || !strings.Contains(err.Error(), "older evotune") {
		t.Errorf("an older history: %v", err)
	}
	bad := bytes.Replace(history, []byte(`"generation":2,`), []byte(`"generation":"2",`), 1)
	if err := mustNew(t, cfg).SelectStage(bad, 0); !errors.Is(err, ErrStage) || !strings.Contains(err.Error(), HistoryFile+":2:") {
		t.Errorf("a damaged line: %v", err)
	}
	for _, tc := range []struct {
		name string
		want int
		msg  string
	}{
		{"shallow", 0, ""}, {"held", 1, ""}, {"3", 2, ""}, {"1", 0, ""},
		{"4", 0, "stages shallow, held, deep (a name, or a number from 1 to 3)"},
		{"medium", 0, "stages shallow, held, deep"},
		{"0", 0, "a number from 1 to 3"},
	} {
		i, err := tu.StageIndex(tc.name)
		switch {
		case tc.msg == "" && (err != nil || i != tc.want):
			t.Errorf("StageIndex(%q) = %d, %v; want %d", tc.name, i, err, tc.want)
		case tc.msg != "" && (!errors.Is(err, ErrStage) || !strings.Contains(err.Error(), tc.msg)):
			t.Errorf("StageIndex(%q): %v, want an error saying %q", tc.name, err, tc.msg)
		}
	}
	if _, err := mustNew(t, smallConfig(t)).StageIndex("1"); !errors.Is(err, ErrStage) || !strings.Contains(err.Error(), "has no stages") {
		t.Errorf("a run without stages: %v", err)
	}
}

// TestAverageOfKeepsHeld: an average keeps a held coordinate at its value
// exactly, where summing it would not (0.1 three times, divided by three,
// is 0.10000000000000002), and averages the free ones in order.
func TestAverageOfKeepsHeld(t *testing.T) {
	ms := []Finalist{{Weights: []float64{0.1, 1}}, {Weights: []float64{0.1, 2}}, {Weights: []float64{0.1, 4}}}
	base := []float64{0.1, 3}
	if got := averageOf(ms, base, []int{1}); got[0] != 0.1 || got[1] != 7.0/3 {
		t.Errorf("averageOf = %v, want [0.1 %v]", got, 7.0/3)
	}
	if got := averageOf(ms, base, []int{0, 1}); got[0] == 0.1 {
		t.Errorf("the sum of three 0.1s divided by three is %v: the case above no longer tells a pinned coordinate from a summed one", got[0])
	}
}
