package tuner

import (
	"context"
	"math"
	"slices"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/engine/stats"
)

// The final race. Under noise the distribution mean wanders: its held-out
// strength moves from one generation to the next by more than the tuning
// gains between them, so a run that recommends whichever mean its budget
// ended on hands over a draw. Measuring means along the way (on the
// validation games, and racing each against the one recommended before)
// protected against that, at a price: at 5,000 games on a cheap problem a
// third of the run's games decided nothing the user received.
//
// So no game is spent on a mean while a stage searches, and what a stage
// hands over is the average of its last distribution means (State.Means):
// up to validation.average of them, from the last half of its generations
// at most (averaged). Late in a run the mean wanders about the optimum
// with the noise of each generation's ranking, and the average of its
// last positions sits nearer the optimum than any one of them (on
// nneonneo-cap1 at 5,000 games, the average of the last 5 scored 0.01 to
// 0.03 more than the last mean, in median over 8 runs, on held-out games;
// docs/tunebench-tried.md; with settling, the average of the last half
// lifted standard-3 and snake16-2 further: docs/tunebench-tried-settle.md).
// Not always: in one run of the 8 the average of points that each scored
// ×1.54 to ×1.60 scored ×1.50, as the average of points along a curved
// ridge falls off it.
//
// So when the stage ends, the average races its latest mean (where it is
// an average of more than one) and the stage's start (and, under
// validation.finalists, the means kept every validation.every
// generations before the end: State.Finalists; under validation.model,
// the point of a quadratic fitted to the stage's candidates: model.go),
// on validation.select
// fresh seeds of the race's own (RaceSeed: disjoint from every tuning and
// validation seed, and apart from the tuning seeds' counter), all on the
// same games: a stage whose search went nowhere, or somewhere worse,
// hands on its start. The race plays in raceBlocks blocks; from the
// second block on, an entrant that the leader (the best fitness so far)
// beats by a one-sided paired t test at raceLevel, with its degrees of
// freedom, stops playing: a point far behind costs two blocks. The best
// fitness among those that played to the end wins, the later entrant on a
// tie (the average is last). Only the winner is then measured on the
// validation games, so the race chooses on games that report nothing and
// the winner's validated figure carries no luck of the choice.
//
// Everything depends on the race's games alone, in the journal and then in
// the checkpoint, so a run is resume-exact. How often the race picks a
// worse entrant on a flat objective, where every pick is a coin's toss,
// and how often it stops an entrant that is not worse, is measured in
// TestRaceFlat.

const (
	// raceBlocks is the number of blocks a race plays its games in.
	raceBlocks = 8
	// raceLevel is the one-sided level at which an entrant shown worse
	// than the leader stops playing. Each look at each entrant is a test
	// at this level; a stop costs a point that is behind anyway.
	raceLevel = 0.01
	// maxFinalists bounds validation.finalists, maxAverage
	// validation.average.
	maxFinalists = 16
	maxAverage   = 1024
	// averageShare is the largest share of a stage's generations whose
	// means are averaged: the last half (see averaged).
	averageShare = 0.5
)

// An entrant is a point in the final race.
type entrant struct {
	Finalist
	// start marks the stage's start.
	start bool
	// average is, for the average of the stage's last means, how many it
	// averages (ending at Generation); 0 for a single mean.
	average int
	// model is, for the model's point (model.go), the generations its fit
	// spans (ending at Generation); 0 for every other entrant. Its
	// weights are set by entrantsAt.
	model int
}

// entrants returns the entrants of the race at the end of the stage after
// done completed generations (entrantsAt), with their weights, and what
// the model's fit was (nil without validation.model).
func (t *Tuner) entrants(done int) ([]entrant, *RecordModel) {
	es, info := t.entrantsModel(done)
	for i := range es {
		switch e := &es[i]; {
		case e.start:
			e.Weights = t.base
		case e.average > 0:
			e.Weights = t.average()
		case e.model > 0:
		case e.Generation == done:
			e.Weights = t.vector(t.opt.Mean())
		}
	}
	return es, info
}

// entrantsAt returns the entrants of the race after done completed
// generations (as entrants does, the finalists' and the model's weights
// only): the stage's start, its latest validation.finalists finalists
// before done, under validation.model the model's point where its fit
// gives one, its latest mean, and the average of its last means, which
// ends at done (one entrant where the average is of the latest mean
// alone); only the start where the stage has played no generation.
func (t *Tuner) entrantsAt(done int) []entrant {
	es, _ := t.entrantsModel(done)
	return es
}

// entrantsModel is entrantsAt, with what the model's fit was (nil
// without validation.model).
func (t *Tuner) entrantsModel(done int) ([]entrant, *RecordModel) {
	es := []entrant{{Finalist: Finalist{Generation: t.stageFrom()}, start: true}}
	if done == t.state.StageGeneration {
		return es, nil
	}
	var before []entrant
	for _, f := range t.state.Finalists {
		if f.Generation < done {
			before = append(before, entrant{Finalist: f})
		}
	}
	if k := t.cfg.Validation.Finalists; len(before) > k {
		before = before[len(before)-k:]
	}
	es = append(es, before...)
	// The model comes before the latest mean and the average, so that
	// they win a tie with it, and the average stays last (the entrant
	// recommended without a race).
	w, info := t.modelAt(done)
	if w != nil {
		es = append(es, entrant{Finalist: Finalist{Generation: done, Weights: w}, model: done - info.First + 1})
	}
	latest := entrant{Finalist: Finalist{Generation: done}}
	if n := len(t.averaged()); n > 1 {
		// The latest mean races the average: on a curved ridge the
		// average of points along it can fall off it.
		return append(es, latest, entrant{Finalist: Finalist{Generation: done}, average: n}), info
	}
	return append(es, latest), info
}

// averaged returns the means the recommendation averages: the stage's
// last validation.average means, and no more than those of the last half
// of its generations (averageShare; rounded, one at least). Once a stage
// reaches its plateau its mean wanders on it, and the average of the whole
// plateau sits nearer the optimum than that of its last few positions; a
// stage that reaches its plateau within its first half averages nothing
// from its climb. A stage still climbing at its end averages points below
// its latest mean, but the race enters the latest mean too, so the stage
// still recommends it where it is better.
func (t *Tuner) averaged() []Finalist {
	ms := t.state.Means
	if len(ms) == 0 {
		return nil
	}
	played := ms[len(ms)-1].Generation - t.state.StageGeneration
	return ms[len(ms)-min(len(ms), t.averageWindow(played)):]
}

// averageWindow returns how many means a stage averages after played
// generations (averaged, where it has kept that many).
func (t *Tuner) averageWindow(played int) int {
	return max(1, min(t.cfg.Validation.Average, int(math.Round(averageShare*float64(played)))))
}

// average returns the average of the means averaged (averaged), the
// stage's start before its first generation. Held coordinates have the
// same value in every mean, and keep it.
func (t *Tuner) average() []float64 {
	ms := t.averaged()
	if len(ms) == 0 {
		return slices.Clone(t.base)
	}
	return averageOf(ms, t.base, t.free)
}

// averageOf returns the average of the means ms, in their order; the
// coordinates not in free keep base's value exactly, not through a sum.
func averageOf(ms []Finalist, base []float64, free []int) []float64 {
	w := make([]float64, len(ms[0].Weights))
	for _, m := range ms {
		for i, x := range m.Weights {
			w[i] += x
		}
	}
	for i := range w {
		w[i] /= float64(len(ms))
	}
	for i := range w {
		if !slices.Contains(free, i) {
			w[i] = base[i]
		}
	}
	return w
}

// stageFrom is the generation whose mean the current stage started from:
// 0 in the first stage, else the previous stage's winner's.
func (t *Tuner) stageFrom() int {
	if v := t.state.Validated; t.state.Stage > 0 && v != nil {
		return v.Generation
	}
	return 0
}

// raceGames returns the games each entrant of the race plays at most: the
// config's, or fewer, down to leastRace, where the tuner was told to finish
// within fewer (FinishWithin).
func (t *Tuner) raceGames(entrants int) int {
	n := t.cfg.Validation.Select
	if lim := t.finishLimit; lim > 0 {
		block := max(n/raceBlocks, 1)
		fit := (lim - int64(t.cfg.Validation.Games)) / int64(entrants)
		n = min(n, block*int(max(fit, 0)/int64(block)))
	}
	return max(n, t.leastRace())
}

// race runs the final race of the stage after done completed generations
// and returns the winner and the race's record; without a race
// (validation.select: 0) the average wins as it is.
func (t *Tuner) race(ctx context.Context, done int) (entrant, *RecordRace, error) {
	es, info := t.entrants(done)
	if t.cfg.Validation.Select == 0 || len(es) == 1 {
		return es[len(es)-1], nil, nil
	}
	n := t.raceGames(len(es))
	t.announce(Phase{Kind: PhaseRace, Generation: done, Games: len(es) * n})
	seeds := make([]uint64, n)
	for j := range seeds {
		seeds[j] = RaceSeed(t.cfg.Seed, done, j)
	}
	ws := make([][]float64, len(es))
	rs := make([][]engine.Result, len(es))
	for i, e := range es {
		ws[i], rs[i] = e.Weights, make([]engine.Result, n)
	}
	played := make([]int, len(es)) // games each entrant played
	alive := make([]bool, len(es))
	for i := range alive {
		alive[i] = true
	}
	block := max(n/raceBlocks, 1)
	for from := 0; from < n && count(alive) > 1; {
		to := min(n, from+block)
		var jobs []Job
		for j := from; j < to; j++ {
			for i := range es {
				if alive[i] {
					jobs = append(jobs, Job{Candidate: i, Game: j})
				}
			}
		}
		if err := t.playJobs(ctx, t.valSearch, ws, seeds, jobs, rs); err != nil {
			return entrant{}, nil, err
		}
		for i := range es {
			if alive[i] {
				played[i] = to
			}
		}
		from = to
		if from >= 2*block && from < n {
			t.dropBeaten(rs, alive, from)
		}
	}
	end := maxAlive(played, alive)
	w := t.leader(rs, alive, end)
	rec := &RecordRace{Games: end, Recommends: es[w].Generation, Winner: w, Model: info}
	for i, e := range es {
		re := RaceEntrant{
			Generation: e.Generation, Start: e.start, Average: e.average, Model: e.model, Games: played[i], Stopped: !alive[i],
			Fitness: t.fitness(rs[i][:played[i]]),
		}
		if e.model > 0 {
			// Its weights are nowhere else in the history.
			re.Weights = &WeightMap{Names: t.names, Values: e.Weights}
		}
		rec.Entrants = append(rec.Entrants, re)
	}
	return es[w], rec, nil
}

// leader returns the entrant still in the race with the best fitness on
// the first n games, the later one on a tie.
func (t *Tuner) leader(rs [][]engine.Result, alive []bool, n int) int {
	best, bestFit := -1, 0.0
	for i := range rs {
		if !alive[i] {
			continue
		}
		if f := t.fitness(rs[i][:n]); best < 0 || f >= bestFit {
			best, bestFit = i, f
		}
	}
	return best
}

// dropBeaten stops every entrant still in the race that the leader beats
// on the first n games, by a one-sided paired t test at raceLevel with
// n - 1 degrees of freedom.
func (t *Tuner) dropBeaten(rs [][]engine.Result, alive []bool, n int) {
	lead := t.leader(rs, alive, n)
	crit := stats.PairedTCritical(n, raceLevel)
	for i := range rs {
		if alive[i] && i != lead && pairedT(t.metric, rs[lead][:n], rs[i][:n]) > crit {
			alive[i] = false
		}
	}
}

// count returns how many of bs are true.
func count(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// maxAlive returns the games played by the entrants still in the race (all
// the same).
func maxAlive(played []int, alive []bool) int {
	n := 0
	for i, p := range played {
		if alive[i] {
			n = max(n, p)
		}
	}
	return n
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
