package playerpool

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/tuner"
)

// DefaultBatch is the games a slot plays at once unless Options.Batch says
// otherwise: 128. A request's round trip costs both processes a few
// system calls and a wakeup each, about 15 µs of CPU on a virtual machine
// and more when its cores are idle, whatever it carries, so CPU per move
// falls as k grows: BenchmarkCPU (the built-in player at 1 ply, 128 games
// of 300 moves, one slot; evotune's CPU and the player's) gives 1.09,
// 0.40, 0.27 and 0.20 µs a move for k = 8, 32, 64 and 128, against 0.08 µs
// for the same games in process, and nneonneo/2048-ai's adapter at cap 1,
// 600 games, plays 4-7% more moves per CPU second of both processes at
// 128 than at 64. A request of 128 boards is 2,436 bytes (2,820 with set
// numbers), within the 4 KiB line buffer a player written in C is likely
// to have. A candidate's games are shared by fewer slots as k grows, but
// near the end of a batch a slot holds only its share of the games not
// yet ended (share). A request's limit grows with its boards by the
// player's own pace, not by the per-board limit (see Process.Moves).
const DefaultBatch = 128

// MaxFailures is how many times one game may fail (its player crashed, hung
// or broke the protocol while the game was in flight) before the batch
// stops with the last failure.
const MaxFailures = 3

// Pool plays the games of Family players, one player process per slot.
// Processes are started on first use and kept between batches; Close ends
// them.
//
// It is a tuner.SharedPool: the batches in play wait in one queue, those
// not marked Ahead first, each in the order its Play came, and a slot that
// has played a candidate's games takes its next candidate from the first
// batch in the queue with games left to start. So a slot that finds no
// game left of one batch plays the next batch's while the others finish.
type Pool struct {
	opts  Options
	slots []*slot

	stats requestStats

	mu      sync.Mutex
	queue   []*playing // batches in play, in the order slots serve them
	idle    []*slot    // slots no goroutine runs
	running sync.WaitGroup
}

var _ tuner.SharedPool = (*Pool)(nil)

// A playing is a batch in play on a Pool.
type playing struct {
	ctx     context.Context // cancelled when the batch fails
	cancel  context.CancelFunc
	fam     Family
	b       *tuner.Batch
	sc      *schedule
	results [][]engine.Result
	done    tuner.GameDone
	active  int   // slots playing its games; Pool.mu
	failure error // the failure that stops it; Pool.mu
	over    chan struct{}
}

// New returns a pool of slots player processes (0 = one per core).
func New(slots int, opts Options) *Pool {
	p := &Pool{opts: opts, slots: make([]*slot, engine.Workers(slots))}
	first := max(opts.FirstSlot, 1)
	for i := range p.slots {
		p.slots[i] = &slot{index: first + i, stats: &p.stats}
	}
	p.idle = append(p.idle, p.slots...)
	return p
}

// A requestStats counts the move requests answered and the boards they
// held, and the parameter sets the last process started declared.
type requestStats struct {
	requests, boards atomic.Int64
	sets             atomic.Int32
}

func (r *requestStats) add(boards int) {
	r.requests.Add(1)
	r.boards.Add(int64(boards))
}

// Requests returns how many move requests the pool's players answered
// since New, and the boards they held: boards/requests is how many games
// share a round trip.
func (p *Pool) Requests() (requests, boards int64) {
	return p.stats.requests.Load(), p.stats.boards.Load()
}

// Sets returns the parameter sets that the pool's last started player
// declared: 0 for a player of protocol version 1, or before any start.
func (p *Pool) Sets() int { return int(p.stats.sets.Load()) }

// Shared implements tuner.SharedPool: Play may be called for several
// batches at once.
func (p *Pool) Shared() bool { return true }

// Slots returns the number of player processes the pool runs at once.
func (p *Pool) Slots() int { return len(p.slots) }

// batch returns k.
func (p *Pool) batch() int {
	if p.opts.Batch > 0 {
		return p.opts.Batch
	}
	return DefaultBatch
}

// Close ends every player process (quit, then kill after the quit limit)
// and closes the logs.
func (p *Pool) Close() error {
	p.running.Wait() // no batch is in play: slots end as their batches do
	var wg sync.WaitGroup
	for _, s := range p.slots {
		wg.Go(s.stop)
	}
	wg.Wait()
	var errs []error
	for _, s := range p.slots {
		if s.log != nil {
			errs = append(errs, s.log.Close())
			s.log = nil
		}
	}
	return errors.Join(errs...)
}

// Play implements tuner.Pool for Family players; it refuses other kinds
// with an error wrapping tuner.ErrPlayers. Each slot takes a candidate,
// sets its parameters and plays its games k at a time in lockstep,
// taking the next candidate's (the one with the most games left) as its
// own run out, under another parameter set where the player holds
// several; results land by (candidate, game), so the number of slots and
// the order of play change no result. A failed player is killed and
// restarted and the games it had in flight start again from their seeds;
// a game failing MaxFailures times, a refusal (error) or a player that
// cannot start stops the batch with that failure.
func (p *Pool) Play(ctx context.Context, b *tuner.Batch, results [][]engine.Result, done tuner.GameDone) error {
	fam, ok := b.Players.(Family)
	if !ok {
		return fmt.Errorf("%w: the player pool plays external players, not %T", tuner.ErrPlayers, b.Players)
	}
	sc := newSchedule(b)
	sc.slots = min(len(p.slots), max(sc.total, 1))
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pl := &playing{ctx: pctx, cancel: cancel, fam: fam, b: b, sc: sc, results: results, done: done, over: make(chan struct{})}
	if sc.total > 0 {
		p.enqueue(pl)
		select {
		case <-pl.over:
		case <-pctx.Done():
			// No slot may be playing it, to end it when it returns.
			p.mu.Lock()
			p.finish(pl)
			p.mu.Unlock()
			<-pl.over
		}
	}
	if pl.failure != nil {
		return pl.failure
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("playerpool: %w", err)
	}
	return nil
}

// enqueue puts pl in the queue, behind the batches that come before it,
// and sets idle slots to work.
func (p *Pool) enqueue(pl *playing) {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := len(p.queue)
	if !pl.b.Ahead {
		i = slices.IndexFunc(p.queue, func(q *playing) bool { return q.b.Ahead })
		if i < 0 {
			i = len(p.queue)
		}
	}
	p.queue = slices.Insert(p.queue, i, pl)
	p.wake()
}

// wake starts a goroutine for each idle slot while some batch has games
// left to start; p.mu held.
func (p *Pool) wake() {
	for len(p.idle) > 0 && p.next() != nil {
		s := p.idle[len(p.idle)-1]
		p.idle = p.idle[:len(p.idle)-1]
		p.running.Add(1)
		go p.serve(s)
	}
}

// next returns the first batch in the queue with games left to start, or
// nil; p.mu held.
func (p *Pool) next() *playing {
	for _, pl := range p.queue {
		if pl.ctx.Err() == nil && pl.sc.remaining() > 0 {
			return pl
		}
	}
	return nil
}

// first returns the batch a slot between two candidates serves next: the
// first in the queue with games left to start.
func (p *Pool) first() *playing {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.next()
}

// serve runs slot s on the queue's batches until none has a game left to
// start.
func (p *Pool) serve(s *slot) {
	defer p.running.Done()
	for {
		p.mu.Lock()
		pl := p.next()
		if pl == nil {
			p.idle = append(p.idle, s)
			p.mu.Unlock()
			return
		}
		pl.active++
		p.mu.Unlock()
		err := s.run(pl.ctx, p, pl)
		p.mu.Lock()
		pl.active--
		if err != nil && pl.failure == nil {
			pl.failure = err
			pl.cancel() // the other slots leave it between requests
		}
		p.finish(pl)
		p.wake() // a failure may have put games back
		p.mu.Unlock()
	}
}

// finish ends pl once no slot plays it and it has no game left to start,
// or it stopped; p.mu held.
func (p *Pool) finish(pl *playing) {
	if pl.active > 0 || (pl.ctx.Err() == nil && pl.sc.remaining() > 0) {
		return
	}
	if i := slices.Index(p.queue, pl); i >= 0 {
		p.queue = slices.Delete(p.queue, i, i+1)
		close(pl.over)
	}
}
