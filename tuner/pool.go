package tuner

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"sync"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

// A Batch is a round of games for a Pool: candidates' weight vectors, the
// seeds they all play, and everything else a player needs to replay a game
// exactly, so that a pool on another machine can play it too.
type Batch struct {
	// Generation counts the run's completed generations when the batch was
	// made; a game cache keys its entries by it.
	Generation int
	// Features names the feature set the weights belong to (eval.Set).
	Features string
	// Weights holds one full vector per candidate: the set's weights in
	// order, then its shape parameters (eval.FeatureSet.CompileVector).
	Weights [][]float64
	// Seeds are the game seeds every candidate plays.
	Seeds []uint64
	// Search is the players' search.
	Search engine.SearchConfig
	// MaxMoves stops a game after this many moves; 0 means no limit.
	MaxMoves int
	// Jobs lists the games to play; nil means every candidate on every seed.
	Jobs []Job
}

// A Job is one game of a batch: candidate Candidate on seed Seeds[Game].
type Job struct {
	Candidate, Game int
}

// jobs returns the batch's games, in the order pools hand them out: game by
// game across the candidates, so no candidate waits for another.
func (b *Batch) jobs() []Job {
	if b.Jobs != nil {
		return b.Jobs
	}
	js := make([]Job, 0, len(b.Weights)*len(b.Seeds))
	for j := range b.Seeds {
		for c := range b.Weights {
			js = append(js, Job{Candidate: c, Game: j})
		}
	}
	return js
}

// GameDone is told about each finished game of a batch, possibly from
// another goroutine and in any order. replayed is true when the result was
// known (taken from a cache) rather than played.
type GameDone func(j Job, r engine.Result, replayed bool)

// A Pool plays the games of batches. Play stores the result of every job of
// b in results[j.Candidate][j.Game] (results has a row per candidate and a
// column per seed) and calls done, if not nil, as each game ends. Where a
// game is played must not change its result: a game is a pure function of
// its seed and player. On cancellation Play returns an error wrapping
// ctx's once the games in flight have stopped; results are then partial.
//
// LocalPool plays on this machine's cores; Cached wraps any pool with a
// game cache (the run's journal); a pool on many machines lives in
// tuner/natspool.
type Pool interface {
	Play(ctx context.Context, b *Batch, results [][]engine.Result, done GameDone) error
}

// LocalPool plays games on goroutines of this process, one searcher each.
// Searchers, with their transposition tables, are built on first use and
// kept for each search a batch asks for (a run has one or two: the
// candidates' and the validation's), so switching between them reallocates
// nothing.
type LocalPool struct {
	workers   int
	mu        sync.Mutex // one batch at a time: the searchers are shared
	searchers map[engine.SearchConfig][]engine.Searcher
}

var _ Pool = (*LocalPool)(nil)

// NewLocalPool returns a pool of workers goroutines (0 = one per core).
func NewLocalPool(workers int) *LocalPool {
	return &LocalPool{workers: engine.Workers(workers), searchers: map[engine.SearchConfig][]engine.Searcher{}}
}

// Workers returns the number of games the pool plays at once.
func (p *LocalPool) Workers() int { return p.workers }

// Play implements Pool.
func (p *LocalPool) Play(ctx context.Context, b *Batch, results [][]engine.Result, done GameDone) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	set, err := eval.Set(b.Features)
	if err != nil {
		return fmt.Errorf("tuner: %w", err)
	}
	evals := make([]engine.Evaluator, len(b.Weights))
	for c, w := range b.Weights {
		if evals[c], err = set.CompileVector(w); err != nil {
			return fmt.Errorf("tuner: candidate %d: %w", c, err)
		}
	}
	searchers := p.searchers[b.Search]
	for len(searchers) < p.workers {
		s, err := engine.NewSearcher(set.Default(), b.Search)
		if err != nil {
			return fmt.Errorf("tuner: %w", err)
		}
		searchers = append(searchers, s)
	}
	p.searchers[b.Search] = searchers
	players := make([]engine.Player, len(searchers))
	for w, s := range searchers {
		players[w] = s
	}
	current := make([]int, len(players)) // the candidate each player evaluates for
	for w := range current {
		current[w] = -1
	}
	jobs := b.jobs()
	err = engine.PlayOn(ctx, players, len(jobs), func(i, w int) uint64 {
		j := jobs[i]
		if current[w] != j.Candidate {
			searchers[w].SetEvaluator(evals[j.Candidate])
			current[w] = j.Candidate
		}
		return b.Seeds[j.Game]
	}, b.MaxMoves, func(i int, r engine.Result) {
		j := jobs[i]
		results[j.Candidate][j.Game] = r
		if done != nil {
			done(j, r, false)
		}
	})
	if err != nil {
		return fmt.Errorf("tuner: %w", err)
	}
	return nil
}

// A GameCache remembers finished games across interruptions, keyed by the
// generation they belong to (completed generations before them), the weight
// vector's fingerprint and the game's seed (see Fingerprint). Its methods
// are called from the goroutines that play.
type GameCache interface {
	Lookup(generation int, fingerprint, seed uint64) (engine.Result, bool)
	Record(generation int, fingerprint, seed uint64, r engine.Result)
}

// Cached returns a pool that takes the games c knows from c and plays the
// others on p, recording each in c as it ends.
func Cached(p Pool, c GameCache) Pool { return &cachedPool{p: p, c: c} }

type cachedPool struct {
	p Pool
	c GameCache
}

func (cp *cachedPool) Play(ctx context.Context, b *Batch, results [][]engine.Result, done GameDone) error {
	fps := make([]uint64, len(b.Weights))
	for c, w := range b.Weights {
		fps[c] = Fingerprint(w)
	}
	var misses []Job
	for _, j := range b.jobs() {
		r, ok := cp.c.Lookup(b.Generation, fps[j.Candidate], b.Seeds[j.Game])
		if !ok {
			misses = append(misses, j)
			continue
		}
		results[j.Candidate][j.Game] = r
		if done != nil {
			done(j, r, true)
		}
	}
	if len(misses) == 0 {
		return ctx.Err()
	}
	sub := *b
	sub.Jobs = misses
	return cp.p.Play(ctx, &sub, results, func(j Job, r engine.Result, replayed bool) {
		if !replayed {
			cp.c.Record(b.Generation, fps[j.Candidate], b.Seeds[j.Game], r)
		}
		if done != nil {
			done(j, r, replayed)
		}
	})
}

// Fingerprint identifies a weight vector: FNV-1a over the bits of its
// weights, so equal vectors (and only those, up to hash collisions) match.
func Fingerprint(w []float64) uint64 {
	h := fnv.New64a()
	var buf [8]byte
	for _, x := range w {
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(x))
		h.Write(buf[:])
	}
	return h.Sum64()
}
