package tunebench

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/evotune/evotune/tuner"
)

var errNeverJudged = errors.New("the run was never judged")

// RunProblem runs the tuner on problem p (with p.Text, tuner settings of
// one's own) on each run seed of o. A run that fails ends the row: the
// Result keeps the run seeds finished before it and says why
// (Result.Error), and the error is returned too. Options.Out keeps and
// reads back its results as Bench does; Options.Cells may name one cell.
func RunProblem(ctx context.Context, p Problem, o Options) (Result, error) {
	o.Peer = nil
	return runAlone(ctx, p, o)
}

// runAlone runs one row as Bench would, its failure returned as an error.
func runAlone(ctx context.Context, p Problem, o Options) (Result, error) {
	c, err := oneCell(p, o)
	if err != nil {
		return Result{}, err
	}
	o.cell = c
	if err := checkStored(p, o); err != nil {
		return Result{}, err
	}
	r, err := runRow(ctx, p, o)
	if err != nil {
		return r, err
	}
	return r, r.Err()
}

// run runs the tuner on the problem with run seed seed. It is judged at
// every grid line its games pass, on what it recommends once the
// generation that passed it is over (tuner.State.Recommended), and where
// it ends: at the target (without Full), at a budget, or where the tuner
// itself stops.
//
// The run plans its end as a user who gave the tuner a budget would: it
// plays a generation only if the generation and then the tuner's last word
// (tuner.Finish: its mean validated, and raced) fit the budgets, in games,
// and in CPU at the run's CPU per game so far (ahead). A generation that
// goes past a budget all the same is undone (tuner.Restore), its CPU and
// games not counted: the run ends with the last generation that fits, as a
// user's run stopped at its budget keeps the last generation it finished.
// At a budget the tuner is then asked for its last word, which is kept
// only if it fits too.
func (b *bench) run(ctx context.Context, seed uint64) (Run, error) {
	cfg, err := b.config(seed)
	if err != nil {
		return Run{}, err
	}
	// One batch at a time: the CPU clock charges each step with its own
	// games, none played ahead for the next step beside a validation.
	t, err := tuner.New(cfg, tuner.Options{Pool: tuner.Sequential(tuner.NewLocalPool(cfg.Workers))})
	if err != nil {
		return Run{}, err
	}
	clock := &cpuClock{}
	// No wall clock: a problem has no duration, and nothing of the run may
	// depend on time.
	never := func() time.Duration { return 0 }
	if err := clock.do(func() error { return t.ValidateStart(ctx) }); err != nil {
		return Run{}, err
	}
	if err := b.measureStart(ctx, t, t.State().Start.Weights); err != nil {
		return Run{}, err
	}
	j := newJudge(b, t, seed, t.State().Start.Weights)
	// The highest tuning-seed counter any step took, undone ones too: the
	// held-out games must be disjoint from every game the run played.
	counter := t.State().SeedCounter
	// fits runs f on the tuner and keeps what it did only if the run is
	// then within its budgets.
	fits := func(f func() error) (bool, error) {
		saved, used := t.State(), clock.used
		if err := clock.do(f); err != nil {
			return false, err
		}
		counter = max(counter, t.State().SeedCounter)
		if !b.over(t.State().Games, clock.used) {
			return true, nil
		}
		clock.used = used
		return false, t.Restore(saved)
	}
	stop := ""
	for stop == "" {
		if f := t.Finished(); f != "" {
			stop = f
			break
		}
		if b.spent(t.State().Games, clock.used) || !b.ahead(t, clock.used) {
			stop = "budget"
			break
		}
		kept, err := fits(func() error { _, err := t.Step(ctx, never); return err })
		if err != nil {
			return Run{}, err
		}
		if !kept {
			stop = "budget"
			break
		}
		if st := t.State(); j.crossed(st.Games) {
			if err := j.grid(ctx, b.point(t, clock.used), t.Recommendation()); err != nil {
				return Run{}, err
			}
			if j.reachedStop() {
				stop = "target" // even where the tuner stopped too: it says more
			}
		}
	}
	if stop == "budget" && t.Finished() == "" {
		// The tuner's last word: its final race, within the games left,
		// and the winner validated, unless they ran at this generation.
		left := int64(math.MaxInt64)
		if b.budgetGames > 0 {
			left = b.budgetGames - t.State().Games
		}
		if _, err := fits(func() error { return t.FinishWithin(ctx, "tunebench: budget spent", left) }); err != nil {
			return Run{}, err
		}
	}
	if stop != "target" {
		if err := j.end(ctx, b.point(t, clock.used), t.Recommendation()); err != nil {
			return Run{}, err
		}
	}
	if err := checkDisjoint(seed, counter, t.State().Generation, cfg.Validation.Games, b.p.HeldOut); err != nil {
		return Run{}, err
	}
	return j.done(stop)
}

// point is the tuner's point after used CPU time, its figures still to be
// measured: what it would hand over were it stopped there
// (tuner.Recommendation), its current mean until it has finished.
func (b *bench) point(t *tuner.Tuner, used time.Duration) Point {
	st := t.State()
	pt := Point{Generation: st.Generation, Games: st.Games, CPU: used.Seconds()}
	if st.Finished != "" {
		if g := t.Recommended().Generation; g != st.Generation {
			pt.Recommended = &g
		}
	}
	return pt
}

// ahead reports whether the tuner's next generation, and its last word
// after it, fit the budgets: in games as the tuner foresees them (the
// generation's most, and its last word's fewest: the final race then
// plays the games left, up to its full length), in CPU at the run's CPU
// per game so far (the last word's most). A tuner stopped by its budget
// then races and validates the means of its latest generations.
func (b *bench) ahead(t *tuner.Tuner, used time.Duration) bool {
	games := t.State().Games
	step, least, most := t.StepGames()
	if b.budgetGames > 0 && games+step+least > b.budgetGames {
		return false
	}
	if games > 0 {
		perGame := float64(used) / float64(games)
		if float64(used)+perGame*float64(step+most) > float64(b.p.Budget) {
			return false
		}
	}
	return true
}
