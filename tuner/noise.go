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

// Noise handling. A game score has a coefficient of variation near 0.5, so
// a ranking of candidates on a few dozen games may be noise. Each
// generation the tuner measures that the way UH-CMA-ES does (Hansen,
// Niederberger, Guzzella and Koumoutsakos 2009, "A method for handling
// uncertainty in evolutionary optimization"; the measurement follows
// pycma's NoiseHandler.update_measure): a few candidates play a second time
// on fresh seeds, and the rank changes of the re-evaluated values in the
// joint ranking of old and new values, against the rank changes a random
// ranking would give, say whether the ranking is signal or noise. The
// smoothed measure s̄ then sets the games per candidate of the next
// generation: ×1.5 when s̄ > 0 (ranks are noise), ×1.5^(-1/4) when not,
// within the config's bounds (the original paper's factors: pycma's
// 1+2/(n+10) would take ten generations to double the games, more than a
// short run has). The step size is left alone: raising it when ranks are
// noise, as UH-CMA-ES may, makes σ climb without progress.
//
// Racing: candidates play their games a block of seeds at a time, all on
// the same seeds. After two blocks, a candidate that μ others beat on the
// paired games played so far (a one-sided paired t test at 1% per pair)
// cannot be among the μ parents and stops playing; it ranks below every
// candidate that played on, in the order it was dropped. Only positive
// differences in means can be significant, so the μ best by mean always
// play to the end.
//
// Every decision is a function of the run's state and the games' results
// (themselves functions of their seeds), never of time or arrival order:
// one worker or many, resumed or not, a run makes the same decisions.

// Constants of the measurement (pycma's) and the treatment (the paper's).
const (
	noiseTheta     = 0.5 // the rank-change limit is the θ·50th percentile of random rank changes
	noiseCum       = 0.3 // smoothing of the measure s
	noiseAlphaUp   = 1.5 // games per candidate grow by this when s̄ > 0
	raceMinBlocks  = 2   // blocks every candidate plays before racing
	raceAlpha      = 0.01
	defaultBlock   = 4
	maxReevaluated = 1 << 10
)

var noiseAlphaDown = math.Pow(noiseAlphaUp, -0.25)

// reevaluated chooses the candidates to play again, as pycma does: λ_r =
// 2 + λ/20 (or the config's number), rounded up with probability its
// fraction; the first ⌈λ_r/2⌉ candidates (a random sample: candidates are
// drawn independently) and the best of the rest by fitness (minimised).
// Only candidates in the race to the end (playing[c]) are chosen.
func reevaluated(fit []float64, playing []bool, lamReev float64, rng *rand.Rand) []int {
	var pool []int
	for c, ok := range playing {
		if ok {
			pool = append(pool, c)
		}
	}
	if lamReev == 0 {
		lamReev = 2 + float64(len(fit))/20
	}
	n := int(lamReev)
	if frac := lamReev - float64(n); frac > rng.Float64() {
		n++
	}
	n = min(n, len(pool), maxReevaluated)
	first := n - n/2
	idx := slices.Clone(pool[:first])
	rest := slices.Clone(pool[first:])
	slices.SortStableFunc(rest, func(a, b int) int { return cmp.Compare(fit[a], fit[b]) })
	return append(idx, rest[:n-first]...)
}

// nextEffort is the treatment: the games per candidate for the next
// generation from the smoothed measure, within [lo, hi].
func nextEffort(effort, sbar float64, lo, hi int) float64 {
	if sbar > 0 {
		effort *= noiseAlphaUp
	} else {
		effort *= noiseAlphaDown
	}
	return math.Min(math.Max(effort, float64(lo)), float64(hi))
}

// gamesFor rounds an effort to whole blocks within [lo, hi].
func gamesFor(effort float64, block, lo, hi int) int {
	n := block * int(math.Round(effort/float64(block)))
	return min(max(n, lo), hi)
}

// beaten reports, for each candidate still playing, whether at least mu
// other candidates still playing beat it significantly on the first n
// games (u[c][j] is candidate c's utility in game j, larger better): a
// one-sided paired t test per pair at level raceAlpha.
func beaten(u [][]float64, playing []bool, n, mu int) []bool {
	crit := stats.PairedTCritical(n, raceAlpha)
	out := make([]bool, len(u))
	for c := range u {
		if !playing[c] {
			continue
		}
		wins := 0
		for a := range u {
			if a == c || !playing[a] {
				continue
			}
			if stats.PairedT(u[a][:n], u[c][:n]) > crit {
				wins++
			}
		}
		out[c] = wins >= mu
	}
	return out
}

// NoiseConfig configures noise handling, under the key noise:. Its zero
// value means what a file that leaves the key out means: noise handling and
// racing on, with the defaults below, which Resolve fills in. To turn
// either off in a Config built in Go, set it false after Resolve (see
// Config). A run directory written before noise handling existed resumes
// without it.
type NoiseConfig struct {
	// Handling measures the noise of the ranking every generation and sets
	// the games per candidate from it; absent: true. With false every
	// candidate plays fitness.games games every generation.
	Handling bool `yaml:"handling"`
	// Block is the number of seeds in a block: games per candidate are
	// whole blocks, and racing drops candidates between blocks. At least
	// 1; absent: 4.
	Block int `yaml:"block"`
	// Games bounds the games per candidate, [least, most], multiples of
	// block with least ≥ block. Absent: [fitness.games/4, 4×fitness.games]
	// rounded up to whole blocks.
	Games []int `yaml:"games,omitempty"`
	// Reevaluate is the number of candidates replayed on fresh seeds each
	// generation to measure the noise; a fraction is rounded up with that
	// probability. 0 (the default) means pycma's 2 + λ/20.
	Reevaluate float64 `yaml:"reevaluate"`
	// Racing stops candidates that μ others already beat on the paired
	// games played (they cannot be parents) from playing their remaining
	// blocks; absent: true.
	Racing bool `yaml:"racing"`
}

// NoiseState is the part of a run's state noise handling carries from one
// generation to the next.
type NoiseState struct {
	// Effort is the games per candidate the treatment asks for, before
	// rounding to blocks.
	Effort float64 `json:"effort"`
	// SBar is the smoothed rank-change measure.
	SBar float64 `json:"s_bar"`
}

// RecordNoise is a generation's noise handling as history.jsonl shows it.
type RecordNoise struct {
	Games       int     `json:"games"`       // games per candidate this generation (for those that played to the end)
	Played      int     `json:"played"`      // tuning games played this generation, re-evaluations included
	Dropped     int     `json:"dropped"`     // candidates racing stopped before the end
	Reevaluated int     `json:"reevaluated"` // candidates replayed on fresh seeds
	S           float64 `json:"s"`           // this generation's rank-change measure (> 0: ranks are noise)
	SBar        float64 `json:"s_bar"`       // the smoothed measure the treatment uses
	Next        int     `json:"next_games"`  // games per candidate of the next generation
}

// bounds returns the block and the bounds of the games per candidate
// for a run whose candidates start at games games.
func (c *NoiseConfig) bounds(games int) (block, lo, hi int) {
	block = cmp.Or(c.Block, defaultBlock)
	if len(c.Games) == 2 {
		return block, c.Games[0], c.Games[1]
	}
	up := func(n int) int { return block * ((n + block - 1) / block) }
	lo = max(up(games/4), block)
	return block, lo, max(up(4*games), lo)
}

// parents is the number of candidates the optimizer's update uses with
// positive weight: what racing must not get wrong.
func parents(method string, lambda int, elite float64) int {
	if method == string(population.MethodCEM) {
		return max(1, int(math.Round(elite*float64(lambda))))
	}
	return max(1, lambda/2)
}

// evaluateNoisy plays the candidates of generation g with noise handling
// and returns their fitness (larger better; for a dropped candidate, over
// the games it played), the values to tell the optimizer (minimised; a
// dropped candidate is worse than every candidate that played on), and the
// record.
func (t *Tuner) evaluateNoisy(ctx context.Context, weights [][]float64) (fit, tell []float64, rec *RecordNoise, err error) {
	nc := &t.cfg.Noise
	lam := len(weights)
	block, lo, hi := nc.bounds(t.games())
	if t.state.Noise == nil { // the first generation of a stage
		t.state.Noise = &NoiseState{Effort: float64(min(max(t.games(), lo), hi))}
	}
	ns := t.state.Noise
	n := gamesFor(ns.Effort, block, lo, hi)
	seeds := t.takeSeeds(n)
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
	dropped := make([]int, lam) // the round a candidate was dropped in, 0 if never
	mu := parents(t.cfg.Optimizer.Method, lam, t.cfg.Optimizer.Elite)
	rec = &RecordNoise{Games: n}
	for round, from := 1, 0; from < n; round++ {
		to := min(n, from+block)
		if round == 1 {
			to = min(n, raceMinBlocks*block)
		}
		var jobs []Job
		for j := from; j < to; j++ {
			for c := range lam {
				if playing[c] {
					jobs = append(jobs, Job{Candidate: c, Game: j})
				}
			}
		}
		if err := t.playJobs(ctx, t.search, weights, seeds, jobs, results); err != nil {
			return nil, nil, nil, err
		}
		rec.Played += len(jobs)
		for _, jb := range jobs {
			u[jb.Candidate][jb.Game] = t.metric.utility(results[jb.Candidate][jb.Game])
			played[jb.Candidate]++
		}
		from = to
		if nc.Racing && from < n {
			for c, out := range beaten(u, playing, from, mu) {
				if out {
					playing[c], dropped[c] = false, round
					rec.Dropped++
				}
			}
		}
	}
	fit = make([]float64, lam)
	for c := range fit {
		fit[c] = t.fitness(results[c][:played[c]])
	}
	// Dropped candidates rank below the others: later drops first, then
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

	// The measurement: some candidates that played to the end play again
	// on fresh seeds, all on the same ones.
	rng := rand.New(rand.NewPCG(seedBase(t.cfg.Seed)^0x6e6f697365, uint64(t.state.Generation)))
	idx := reevaluated(tell, playing, nc.Reevaluate, rng)
	rec.Reevaluated = len(idx)
	if len(idx) > 0 {
		fresh := t.takeSeeds(n)
		re := make([][]float64, len(idx))
		reRes := make([][]engine.Result, len(idx))
		for k, c := range idx {
			re[k] = weights[c]
			reRes[k] = make([]engine.Result, n)
		}
		if err := t.playJobs(ctx, t.search, re, fresh, nil, reRes); err != nil {
			return nil, nil, nil, err
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
	return fit, tell, rec, nil
}

// playJobs plays jobs (nil: every candidate on every seed) into results
// and counts them.
func (t *Tuner) playJobs(ctx context.Context, search engine.SearchConfig, weights [][]float64, seeds []uint64, jobs []Job, results [][]engine.Result) error {
	var players Players = FeaturePlayers{Set: t.set, Search: search}
	if t.cfg.Player != nil {
		if t.players == nil {
			return fmt.Errorf("tuner: the run tunes player %s, and no players were given to play it", t.cfg.Player.Declared.ID)
		}
		players = t.players
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
