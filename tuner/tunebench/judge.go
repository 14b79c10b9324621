package tunebench

import (
	"context"
	"time"

	"github.com/evotune/evotune/engine/stats"
	"github.com/evotune/evotune/internal/cputime"
	"github.com/evotune/evotune/tuner"
)

// A judge records a run's points, the tuner's and a peer's alike: one at
// every grid line (every multiple of the grid's games the run has played),
// and one where the run ends off the grid. A point plays its weights on
// the held-out games unless the same weights were played before: identical
// weights play identical games, so their figures are reused.
type judge struct {
	b    *bench
	t    *tuner.Tuner // the feature set and search of the held-out games
	run  Run
	line int64 // the next grid line
	// figures are the held-out figures of every vector played, by
	// weightsKey; last is the key of the last point's.
	figures map[string]figures
	last    string
	// heldOutCPU is this process's CPU on held-out games, which a peer's
	// clock leaves out (the tuner's clock never sees it).
	heldOutCPU time.Duration
}

type figures struct {
	mean, ratio float64
	ci          [2]float64
}

func newJudge(b *bench, t *tuner.Tuner, seed uint64, start []float64) *judge {
	j := &judge{b: b, t: t, run: Run{Seed: seed}, line: b.grid, figures: map[string]figures{}}
	// The start against itself: ratio 1, nothing to play.
	j.figures[weightsKey(start)] = figures{stats.Summarize(b.start).Mean, 1, [2]float64{1, 1}}
	return j
}

// crossed reports whether a run that has played games has reached the
// next grid line.
func (j *judge) crossed(games int64) bool { return games >= j.line }

// grid adds a point for every grid line up to pt.Games, each judged on w:
// a run that passes two lines between two of its steps recommends the
// same weights at both.
func (j *judge) grid(ctx context.Context, pt Point, w []float64) error {
	for j.line <= pt.Games {
		p := pt
		p.Grid = j.line
		if err := j.add(ctx, p, w); err != nil {
			return err
		}
		j.line += j.b.grid
	}
	return nil
}

// end adds the run's end point, judged on w, unless the run ended where
// its last point was taken, on the same weights.
func (j *judge) end(ctx context.Context, pt Point, w []float64) error {
	if n := len(j.run.Points); n > 0 && j.run.Points[n-1].Games == pt.Games && j.last == weightsKey(w) {
		return nil
	}
	pt.Grid = 0
	return j.add(ctx, pt, w)
}

// add judges w, sets pt's figures and appends it.
func (j *judge) add(ctx context.Context, pt Point, w []float64) error {
	key := weightsKey(w)
	f, ok := j.figures[key]
	if !ok {
		before, _ := cputime.Process()
		rs, err := j.b.measure(ctx, j.t, w)
		after, _ := cputime.Process()
		j.heldOutCPU += after - before
		if err != nil {
			return err
		}
		c, err := stats.Compare(rs, j.b.start)
		if err != nil {
			return err
		}
		f = figures{c.A.Mean, c.Ratio, [2]float64{c.RatioCI95.Lo, c.RatioCI95.Hi}}
		j.figures[key] = f
	}
	pt.Mean, pt.Ratio, pt.RatioCI95 = f.mean, f.ratio, f.ci
	j.last = key
	j.run.Points = append(j.run.Points, pt)
	if o := j.b.o; o.Progress != nil {
		o.Progress(j.b.where(), j.b.name(), j.run.Seed, pt)
	}
	if j.run.Reached == nil && pt.Ratio >= j.b.p.Target {
		j.run.Reached = &pt // a copy: Points may grow
	}
	return nil
}

// done ends the run: its final point is its last, and its best is found.
func (j *judge) done(stop string) (Run, error) {
	run := j.run
	if len(run.Points) == 0 {
		return Run{}, errNeverJudged
	}
	run.Final, run.Stop = run.Points[len(run.Points)-1], stop
	run.best()
	return run, nil
}

// reachedStop reports whether a run should stop for its target: met, and
// not Options.Full.
func (j *judge) reachedStop() bool { return j.run.Reached != nil && !j.b.o.Full }

// addCPU adds d to the last point's CPU (and to Reached, if that is the
// point): what a peer's exit figure shows it spent beyond the live one.
func (j *judge) addCPU(d time.Duration) {
	n := len(j.run.Points)
	if n == 0 {
		return
	}
	last := &j.run.Points[n-1]
	if r := j.run.Reached; r != nil && r.Grid == last.Grid && r.Games == last.Games && r.Generation == last.Generation {
		r.CPU += d.Seconds()
	}
	last.CPU += d.Seconds()
}
