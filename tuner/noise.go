package tuner

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

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
// Racing (noise.racing, on with noise handling unless turned off, and
// possible without it, on a fixed number of games): candidates play their
// games a block of seeds at a time, all on the same seeds. After two blocks, a candidate that μ others beat on the
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

// reevaluated chooses the candidates to play again, as pycma does: λ_r
// (Tuner.reevaluations), rounded up with probability its fraction; the first ⌈λ_r/2⌉ candidates (a random sample: candidates are
// drawn independently) and the best of the rest by fitness (minimised).
// Only candidates in the race to the end (playing[c]) are chosen.
func reevaluated(fit []float64, playing []bool, lamReev float64, rng *rand.Rand) []int {
	var pool []int
	for c, ok := range playing {
		if ok {
			pool = append(pool, c)
		}
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
	// candidate plays fitness.games games every generation, and games
	// and reevaluate may not be given (they would change nothing).
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
	// blocks, with noise handling or on a fixed fitness.games; absent: on
	// with noise handling, off without.
	Racing bool `yaml:"racing"`
}

// MarshalYAML leaves block out where neither noise handling nor racing
// plays blocks, where it would change nothing and a config that gave it
// would be refused.
func (c NoiseConfig) MarshalYAML() (any, error) {
	type noise struct {
		Handling   bool    `yaml:"handling"`
		Block      int     `yaml:"block,omitempty"`
		Games      []int   `yaml:"games,omitempty"`
		Reevaluate float64 `yaml:"reevaluate"`
		Racing     bool    `yaml:"racing"`
	}
	w := noise(c)
	if !c.Handling && !c.Racing {
		w.Block = 0
	}
	return w, nil
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
	// Fixed says the games per candidate are fitness.games (no noise
	// handling): the record is racing's alone.
	Fixed bool `json:"fixed,omitempty"`
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

// startGames is the games per candidate noise handling sets at the start
// of a stage that plays games a candidate: those cut to the bounds, in
// whole blocks.
func (c *NoiseConfig) startGames(games int) int {
	block, lo, hi := c.bounds(games)
	return gamesFor(float64(min(max(games, lo), hi)), block, lo, hi)
}

// parents is the number of candidates the optimizer's update uses with
// positive weight: what racing must not get wrong.
func parents(method string, lambda int, elite float64) int {
	if method == string(population.MethodCEM) {
		return max(1, int(math.Round(elite*float64(lambda))))
	}
	return max(1, lambda/2)
}
