package tuner

import (
	"context"
	"fmt"
	"sync"

	"github.com/evotune/evotune/engine"
)

// LocalPool plays FeaturePlayers' games on goroutines of this process, one
// searcher each.
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
		if evals[c], err = fp.Set.CompileVector(v); err != nil {
			return fmt.Errorf("tuner: candidate %d: %w", c, err)
		}
	}
	searchers := p.searchers[fp.Search]
	for len(searchers) < p.workers {
		s, err := engine.NewSearcher(fp.Set.Default(), fp.Search)
		if err != nil {
			return fmt.Errorf("tuner: %w", err)
		}
		searchers = append(searchers, s)
	}
	p.searchers[fp.Search] = searchers
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
