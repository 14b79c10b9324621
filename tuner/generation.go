package tuner

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/engine/stats"
	"github.com/evotune/evotune/population"
)

// A generation is what one generation plays, decided before its first
// game from the state alone: the candidates the optimizer asks for, the
// games each plays at most and their seeds, and the blocks they are played
// in. Everything after its first batch (which candidates racing stops,
// which noise handling replays) depends on the games' results, which are
// functions of their seeds.
//
// The plan is the one description of a generation: Step plays it, and
// playing ahead (ahead.go) plays its first batch beside the start's
// validation, from a plan made on a copy of the optimizer, without a second
// description of the step that could drift from the first.
type generation struct {
	weights [][]float64 // the candidates, full vectors
	seeds   []uint64
	block   int  // games a block; the whole n without racing
	first   int  // the games of the first batch: racing's first round, or all
	racing  bool // candidates μ others beat stop between blocks
}

// plan makes the next generation's plan from optimizer opt (the tuner's,
// or a copy) and the seeds from the state's counter at, moving *at past
// them.
func (t *Tuner) plan(opt population.Optimizer, at *uint64) *generation {
	cands := opt.Ask()
	g := &generation{weights: make([][]float64, len(cands))}
	for c, x := range cands {
		g.weights[c] = t.vector(x)
	}
	n := t.NextGames()
	g.seeds = make([]uint64, n)
	for j := range g.seeds {
		g.seeds[j] = TuningSeedAt(t.cfg.Seed, *at+uint64(j))
	}
	*at += uint64(n)
	nc := &t.cfg.Noise
	g.racing = nc.Racing
	g.block, g.first = n, n
	if nc.Racing || nc.Handling {
		g.block = cmp.Or(nc.Block, defaultBlock)
	}
	if nc.Racing {
		g.first = min(n, raceMinBlocks*g.block)
	}
	return g
}

// firstBatch returns the generation's first batch: every candidate on the
// first g.first games.
func (g *generation) firstJobs() []Job {
	jobs := make([]Job, 0, len(g.weights)*g.first)
	for j := range g.first {
		for c := range g.weights {
			jobs = append(jobs, Job{Candidate: c, Game: j})
		}
	}
	return jobs
}

// evaluate plays generation g and returns the candidates' fitness (larger
// better; for a candidate racing stopped, over the games it played), the
// values to tell the optimizer (minimised; a stopped candidate is worse
// than every candidate that played on), which candidates played every
// game, and noise handling's record (nil without it).
func (t *Tuner) evaluate(ctx context.Context, g *generation) (fit, tell []float64, full []bool, rec *RecordNoise, err error) {
	lam, n := len(g.weights), len(g.seeds)
	results := make([][]engine.Result, lam)
	u := make([][]float64, lam)
	for c := range results {
		results[c] = make([]engine.Result, n)
		u[c] = make([]float64, n)
	}
	playing := make([]bool, lam)
	for c := range playing {
		playing[c] = true
	}
	played := make([]int, lam)  // games each candidate played
	dropped := make([]int, lam) // the round a candidate was stopped in, 0 if never
	mu := parents(t.cfg.Optimizer.Method, lam, t.cfg.Optimizer.Elite)
	var stopped, plays int
	for round, from := 1, 0; from < n; round++ {
		to := min(n, from+g.block)
		if round == 1 {
			to = g.first
		}
		var jobs []Job
		for j := from; j < to; j++ {
			for c := range lam {
				if playing[c] {
					jobs = append(jobs, Job{Candidate: c, Game: j})
				}
			}
		}
		if err := t.playJobs(ctx, t.search, g.weights, g.seeds, jobs, results); err != nil {
			return nil, nil, nil, nil, err
		}
		plays += len(jobs)
		for _, jb := range jobs {
			u[jb.Candidate][jb.Game] = t.metric.utility(results[jb.Candidate][jb.Game])
			played[jb.Candidate]++
		}
		from = to
		if g.racing && from < n {
			for c, out := range beaten(u, playing, from, mu) {
				if out {
					playing[c], dropped[c] = false, round
					stopped++
				}
			}
		}
	}
	fit = make([]float64, lam)
	for c := range fit {
		fit[c] = t.fitness(results[c][:played[c]])
	}
	// Stopped candidates rank below the others: later stops first, then
	// by their fitness on the games they played.
	tell = make([]float64, lam)
	worst := math.Inf(-1)
	var out []int
	for c := range lam {
		if playing[c] {
			tell[c] = -fit[c]
			worst = math.Max(worst, tell[c])
		} else {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b int) int {
		return cmp.Or(cmp.Compare(dropped[b], dropped[a]), cmp.Compare(fit[b], fit[a]))
	})
	for k, c := range out {
		tell[c] = worst + float64(k+1)
	}
	if !t.cfg.Noise.Handling {
		if g.racing {
			rec = &RecordNoise{Games: n, Played: plays, Dropped: stopped, Next: n, Fixed: true}
		}
		return fit, tell, playing, rec, nil
	}
	rec = &RecordNoise{Games: n, Played: plays, Dropped: stopped}
	if err := t.measureNoise(ctx, g, tell, playing, rec); err != nil {
		return nil, nil, nil, nil, err
	}
	return fit, tell, playing, rec, nil
}

// measureNoise is noise handling's measurement and treatment after
// generation g (see noise.go): some candidates that played to the end play
// again on fresh seeds, all on the same ones, and the rank changes set the
// games per candidate of the next generation.
func (t *Tuner) measureNoise(ctx context.Context, g *generation, tell []float64, playing []bool, rec *RecordNoise) error {
	block, lo, hi := t.GamesBounds()
	if t.state.Noise == nil { // the first generation of a stage
		t.state.Noise = &NoiseState{Effort: float64(min(max(t.games(), lo), hi))}
	}
	ns := t.state.Noise
	n := len(g.seeds)
	rng := rand.New(rand.NewPCG(seedBase(t.cfg.Seed)^0x6e6f697365, uint64(t.state.Generation)))
	idx := reevaluated(tell, playing, t.reevaluations(len(g.weights)), rng)
	rec.Reevaluated = len(idx)
	if len(idx) > 0 {
		fresh := t.takeSeeds(n)
		re := make([][]float64, len(idx))
		reRes := make([][]engine.Result, len(idx))
		for k, c := range idx {
			re[k] = g.weights[c]
			reRes[k] = make([]engine.Result, n)
		}
		if err := t.playJobs(ctx, t.search, re, fresh, nil, reRes); err != nil {
			return err
		}
		rec.Played += len(idx) * n
		fitre := slices.Clone(tell)
		for k, c := range idx {
			fitre[c] = -t.fitness(reRes[k])
		}
		rec.S = stats.RankChange(tell, fitre, idx, noiseTheta)
		ns.SBar += noiseCum * (rec.S - ns.SBar)
		ns.Effort = nextEffort(ns.Effort, ns.SBar, lo, hi)
	}
	rec.SBar = ns.SBar
	rec.Next = gamesFor(ns.Effort, block, lo, hi)
	return nil
}

// reevaluations is λ_r, the candidates noise handling replays in a
// generation of lam: the config's number, or pycma's 2 + λ/20; a fraction
// is rounded up with that probability (see reevaluated).
func (t *Tuner) reevaluations(lam int) float64 {
	if r := t.cfg.Noise.Reevaluate; r > 0 {
		return r
	}
	return 2 + float64(lam)/20
}

// playersOf is the family a batch of search plays: the set's searchers
// with that search, or the run's player, which searches as it does (nil
// where the run tunes a player and none was given).
func (t *Tuner) playersOf(search engine.SearchConfig) Players {
	if t.cfg.Player != nil {
		return t.players
	}
	return FeaturePlayers{Set: t.set, Search: search}
}

// playJobs plays jobs (nil: every candidate on every seed) into results
// and counts them.
func (t *Tuner) playJobs(ctx context.Context, search engine.SearchConfig, weights [][]float64, seeds []uint64, jobs []Job, results [][]engine.Result) error {
	players := t.playersOf(search)
	if players == nil {
		return fmt.Errorf("tuner: the run tunes player %s, and no players were given to play it", t.cfg.Player.Declared.ID)
	}
	b := &Batch{
		Generation: t.state.Generation,
		Players:    players,
		Vectors:    weights,
		Seeds:      seeds,
		MaxMoves:   t.cfg.Fitness.MaxMoves,
		Jobs:       jobs,
	}
	var done GameDone
	if t.events.Game != nil {
		done = func(_ Job, _ engine.Result, replayed bool) { t.events.Game(replayed) }
	}
	started := time.Now()
	err := t.pool.Play(ctx, b, results, done)
	t.gameTime += time.Since(started)
	if err != nil {
		return err
	}
	t.state.Games += int64(len(b.jobs()))
	return nil
}
