package tuner

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/evotune/evotune/engine"
)

// LocalPool plays FeaturePlayers' games on goroutines of this process, one
// searcher each. Its PlayerCache keeps the candidates' evaluators and the
// searchers, with their transposition tables, for each search a batch asks
// for (a run has one or two: the candidates' and the validation's), so
// switching between them reallocates nothing.
//
// It is a SharedPool: the batches in flight wait in one queue, those not
// marked Ahead first, each in the order its Play came, and a goroutine
// that finishes a game takes the next game of the first batch that has one
// left. So its workers play one batch's last games and the next batch's
// first ones at once, and an Ahead batch only has the workers no other
// batch needs.
type LocalPool struct {
	workers int
	cache   *PlayerCache

	mu      sync.Mutex
	queue   []*localBatch // batches with games not yet handed out, in the order they are
	running int           // goroutines playing
}

var _ SharedPool = (*LocalPool)(nil)

// A localBatch is a batch in flight on a LocalPool.
type localBatch struct {
	ctx     context.Context
	b       *Batch
	search  engine.SearchConfig
	evals   []engine.Evaluator // by candidate
	jobs    []Job
	results [][]engine.Result
	done    GameDone
	next    int           // the next job to hand out; pool.mu
	left    int           // jobs handed out or not, not yet over; pool.mu
	err     error         // a game that could not be played; pool.mu
	over    chan struct{} // closed when left reaches 0
}

// NewLocalPool returns a pool of workers goroutines (0 = one per core).
func NewLocalPool(workers int) *LocalPool {
	return &LocalPool{workers: engine.Workers(workers), cache: NewPlayerCache()}
}

// Workers returns the number of games the pool plays at once.
func (p *LocalPool) Workers() int { return p.workers }

// Shared implements SharedPool: Play may be called for several batches at
// once.
func (p *LocalPool) Shared() bool { return true }

// Play implements Pool. It refuses players of a kind other than
// FeaturePlayers with an error wrapping ErrPlayers.
func (p *LocalPool) Play(ctx context.Context, b *Batch, results [][]engine.Result, done GameDone) error {
	fp, err := featurePlayers(b, "the local pool")
	if err != nil {
		return err
	}
	lb := &localBatch{ctx: ctx, b: b, search: fp.Search, evals: make([]engine.Evaluator, len(b.Vectors)),
		jobs: b.jobs(), results: results, done: done, over: make(chan struct{})}
	for c, v := range b.Vectors {
		if lb.evals[c], err = p.cache.Evaluator(fp.Set, v); err != nil {
			return fmt.Errorf("tuner: candidate %d: %w", c, err)
		}
	}
	if len(lb.jobs) > 0 {
		lb.left = len(lb.jobs)
		p.enqueue(lb)
		<-lb.over
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("tuner: %w", err)
	}
	if lb.err != nil {
		return fmt.Errorf("tuner: %w", lb.err)
	}
	return nil
}

// enqueue puts lb in the queue, behind the batches that come before it,
// and starts goroutines up to the pool's workers.
func (p *LocalPool) enqueue(lb *localBatch) {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := len(p.queue)
	if !lb.b.Ahead {
		i = slices.IndexFunc(p.queue, func(q *localBatch) bool { return q.b.Ahead })
		if i < 0 {
			i = len(p.queue)
		}
	}
	p.queue = slices.Insert(p.queue, i, lb)
	for p.running < p.workers && p.running < p.queued() {
		p.running++
		go p.work()
	}
}

// queued counts the jobs not handed out yet; p.mu held.
func (p *LocalPool) queued() int {
	n := 0
	for _, lb := range p.queue {
		n += len(lb.jobs) - lb.next
	}
	return n
}

// take hands out the next job, or reports that none is left, in which
// case the calling goroutine ends. Jobs of a cancelled batch are dropped
// rather than handed out. p.mu is not held.
func (p *LocalPool) take() (*localBatch, Job, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.queue) > 0 {
		lb := p.queue[0]
		if lb.ctx.Err() != nil {
			lb.finish(len(lb.jobs) - lb.next)
			lb.next = len(lb.jobs)
		}
		if lb.next == len(lb.jobs) {
			p.queue = p.queue[1:]
			continue
		}
		j := lb.jobs[lb.next]
		lb.next++
		return lb, j, true
	}
	p.running--
	return nil, Job{}, false
}

// finish counts n jobs of lb over; p.mu held.
func (lb *localBatch) finish(n int) {
	lb.left -= n
	if lb.left == 0 && n > 0 {
		close(lb.over)
	}
}

// work plays jobs until none is left, with a searcher of each search it
// meets, borrowed from the cache and given back at the end.
func (p *LocalPool) work() {
	type player struct {
		search engine.SearchConfig
		s      engine.Searcher
		lb     *localBatch // whose candidate cand the searcher evaluates for
		cand   int
	}
	var players []player // one per search met: one or two
	defer func() {
		for _, pl := range players {
			p.cache.Return(pl.search, pl.s)
		}
	}()
	for {
		lb, j, ok := p.take()
		if !ok {
			return
		}
		k := slices.IndexFunc(players, func(pl player) bool { return pl.search == lb.search })
		var err error
		if k < 0 {
			var s engine.Searcher
			if s, err = p.cache.Searcher(lb.search, lb.evals[j.Candidate]); err == nil {
				players = append(players, player{lb.search, s, lb, j.Candidate})
				k = len(players) - 1
			}
		} else if pl := &players[k]; pl.lb != lb || pl.cand != j.Candidate {
			pl.s.SetEvaluator(lb.evals[j.Candidate])
			pl.lb, pl.cand = lb, j.Candidate
		}
		var r engine.Result
		if err == nil {
			r, err = engine.PlayContext(lb.ctx, lb.b.Seeds[j.Game], players[k].s, lb.b.MaxMoves)
		}
		if err == nil {
			lb.results[j.Candidate][j.Game] = r
			if lb.done != nil {
				lb.done(j, r, false)
			}
		}
		p.mu.Lock()
		if err != nil && lb.ctx.Err() == nil && lb.err == nil {
			lb.err = err // a search the engine refuses
		}
		lb.finish(1)
		p.mu.Unlock()
	}
}
