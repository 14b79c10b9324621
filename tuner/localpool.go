package tuner

import (
	"context"
	"fmt"
	"sync"

	"github.com/evotune/evotune/engine"
)

// LocalPool plays FeaturePlayers' games on goroutines of this process, one
// searcher each. Its PlayerCache keeps the candidates' evaluators and the
// searchers, with their transposition tables, for each search a batch asks
// for (a run has one or two: the candidates' and the validation's), so
// switching between them reallocates nothing.
type LocalPool struct {
	workers int
	mu      sync.Mutex // one batch at a time
	cache   *PlayerCache
}

var _ Pool = (*LocalPool)(nil)

// NewLocalPool returns a pool of workers goroutines (0 = one per core).
func NewLocalPool(workers int) *LocalPool {
	return &LocalPool{workers: engine.Workers(workers), cache: NewPlayerCache()}
}

// Workers returns the number of games the pool plays at once.
func (p *LocalPool) Workers() int { return p.workers }

// Play implements Pool. It refuses players of a kind other than
// FeaturePlayers with an error wrapping ErrPlayers.
func (p *LocalPool) Play(ctx context.Context, b *Batch, results [][]engine.Result, done GameDone) error {
	fp, err := featurePlayers(b, "the local pool")
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	evals := make([]engine.Evaluator, len(b.Vectors))
	for c, v := range b.Vectors {
		if evals[c], err = p.cache.Evaluator(fp.Set, v); err != nil {
			return fmt.Errorf("tuner: candidate %d: %w", c, err)
		}
	}
	if len(evals) == 0 {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("tuner: %w", err)
		}
		return nil
	}
	searchers := make([]engine.Searcher, 0, p.workers)
	defer func() {
		for _, s := range searchers {
			p.cache.Return(fp.Search, s)
		}
	}()
	players := make([]engine.Player, p.workers)
	current := make([]int, p.workers) // the candidate each searcher evaluates for
	for w := range p.workers {
		s, err := p.cache.Searcher(fp.Search, evals[0])
		if err != nil {
			return fmt.Errorf("tuner: %w", err)
		}
		searchers = append(searchers, s)
		players[w] = s
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
