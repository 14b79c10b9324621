package tuner

import (
	"context"
	"fmt"
	"math"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/engine/stats"
)

// The race (validation.recommend: race). A validated mean is one draw of a
// wandering distribution mean: under noise its held-out strength swings
// from one validation to the next by more than the tuning gains between
// them, and a run that recommends its latest mean hands the user whichever
// draw its budget ended on. Recommending the best validated one instead
// chooses on the very games that report it, so its figure carries the luck
// of the choice (the winner's curse).
//
// So the recommendation is an incumbent that each newly validated mean, the
// challenger, must beat. The incumbent (the start, at first) and the
// challenger play up to Select games of their own, on the same seeds,
// taken from the tuning stream and so disjoint from the validation games;
// the one with the better fitness on them is recommended, the challenger on
// a tie (it is tuned further). The race plays in eight blocks and ends
// early once the paired t statistic of one over the other passes raceStop:
// a challenger far ahead of the start needs few games. Every race plays
// both on games neither has played, so an incumbent's earlier luck does
// not carry into the next race, and the choice is made on games that
// report nothing: the recommended mean's validated figure stays unbiased.
// Between two points of equal strength the race is a coin's toss, which
// costs nothing; a clearly worse challenger seldom wins it.
//
// The fallback (validation.fallback, a one-sided level). When the incumbent
// wins a race and is better than the challenger at that level, the search
// has wandered somewhere worse than a point it passed: the optimizer moves
// back to the incumbent, keeping the shape of its covariance, forgetting
// its evolution paths, with half its step size (σ·√eig(C) halves on every
// axis). It falls back to a given incumbent at most once: if the search
// wanders off again from there, the incumbent stays recommended and the
// search goes on. The decision rests on the race's own games, fresh for
// both points, never on the validation games the incumbent was chosen by.
// How often it acts on noise alone is measured on a flat objective
// (TestRaceFlat).
//
// Both depend on the validations and the race's games alone, all in the
// checkpoint, so a run is resume-exact.

const (
	// raceBlocks is the number of blocks a race plays its games in.
	raceBlocks = 8
	// raceStop is the paired t statistic, either way, at which a race
	// ends before its last block (from its second block on): far beyond
	// the 5% level of a single look, so that the early ends, eight looks,
	// seldom decide what the full race would not.
	raceStop = 3.0
)

// race decides validation.recommend: race after validated mean v: it runs
// the race of v against the incumbent, records the winner as the
// incumbent, falls back when validation.fallback says so, and returns the
// race's record (nil when v took over without a race).
func (t *Tuner) race(ctx context.Context, v *Validation) (*RecordRace, error) {
	t.state.Fallen = nil
	inc := t.state.Incumbent
	if inc == nil {
		inc = t.state.Start
	}
	// A figure of another validation search does not compare (a later
	// stage's that measures deeper, say): the first validation of such a
	// stage takes over without a race.
	if t.raceSeeds() == 0 {
		t.state.Incumbent = v
		return nil, nil
	}
	seeds := t.takeSeeds(t.cfg.Validation.Select)
	rs := [][]engine.Result{make([]engine.Result, len(seeds)), make([]engine.Result, len(seeds))}
	ws := [][]float64{inc.Weights, v.Weights}
	block := max(len(seeds)/raceBlocks, 1)
	n := 0
	for n < len(seeds) {
		to := min(len(seeds), n+block)
		jobs := make([]Job, 0, 2*(to-n))
		for j := n; j < to; j++ {
			jobs = append(jobs, Job{Candidate: 0, Game: j}, Job{Candidate: 1, Game: j})
		}
		if err := t.playJobs(ctx, t.valSearch, ws, seeds, jobs, rs); err != nil {
			return nil, err
		}
		n = to
		if n >= 2*block && n < len(seeds) && math.Abs(pairedT(t.metric, rs[1][:n], rs[0][:n])) >= raceStop {
			break
		}
	}
	rec := &RecordRace{
		Games:     n,
		Incumbent: inc.Generation,
		Against:   t.fitness(rs[0][:n]),
		Fitness:   t.fitness(rs[1][:n]),
	}
	if rec.Fitness >= rec.Against {
		t.state.Incumbent, rec.Recommends = v, v.Generation
		return rec, nil
	}
	t.state.Incumbent, rec.Recommends = inc, inc.Generation
	if a := t.cfg.Validation.Fallback; a > 0 && n >= 2 && !t.fellBackTo(inc) &&
		pairedT(t.metric, rs[0][:n], rs[1][:n]) > stats.PairedTCritical(n, a) {
		if err := t.fallBack(inc); err != nil {
			return nil, err
		}
		rec.Fallback = true
	}
	return rec, nil
}

// raceSeeds returns the tuning seeds the race after the next validation
// takes: validation.select under the race, none where there is no race or
// the validated mean takes over without one (see race).
func (t *Tuner) raceSeeds() uint64 {
	if t.cfg.Validation.Recommend != RecommendRace {
		return 0
	}
	inc := t.state.Incumbent
	if inc == nil {
		inc = t.state.Start
	}
	if inc == nil || t.cfg.StageValidationSearch(inc.Stage) != t.valSearch {
		return 0
	}
	return uint64(t.cfg.Validation.Select)
}

// fellBackTo says whether the run already fell back to validation a in
// its stage.
func (t *Tuner) fellBackTo(a *Validation) bool {
	f := t.state.FellBackTo
	return f != nil && f.Generation == a.Generation && f.Stage == a.Stage
}

// fallBack moves the optimizer's mean to a's weights with half its step
// size (see the fallback above).
func (t *Tuner) fallBack(a *Validation) error {
	x := make([]float64, len(t.free))
	for k, i := range t.free {
		x[k] = a.Weights[i]
	}
	if err := t.opt.Recenter(x, 0.5); err != nil {
		return fmt.Errorf("tuner: fallback to generation %d: %w", a.Generation, err)
	}
	t.state.Fallen = a
	t.state.FellBackTo = &ValidationMark{Generation: a.Generation, Stage: a.Stage}
	t.state.Fallbacks++
	return nil
}

// pairedT is the paired t statistic of a's games over b's under metric m
// (positive when a is better; NaN when every pair is equal).
func pairedT(m Metric, a, b []engine.Result) float64 {
	ua, ub := make([]float64, len(a)), make([]float64, len(b))
	for j := range a {
		ua[j], ub[j] = m.utility(a[j]), m.utility(b[j])
	}
	return stats.PairedT(ua, ub)
}
