package playerpool

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/tuner"
)

// DefaultBatch is the games a slot plays at once unless Options.Batch says
// otherwise: 64. A request's round trip costs both processes a few system
// calls and a wakeup each, tens of microseconds of CPU on a virtual machine,
// whatever it carries, so CPU per move falls as k grows: BenchmarkCPU (the
// built-in player at 1 ply, 64 games of 300 moves, one slot; evotune's CPU
// and the player's) gives 5.7, 1.7 and 1.2 µs a move for k = 8, 32 and 64,
// against 0.17 µs for the same games in process. A candidate's games are
// shared by fewer slots as k grows, but near the end of a batch a slot
// starting a candidate takes only its share of the games left (share), and
// a tuning run's candidates rarely have more than 64 games each. The
// request's limit is the per-board limit times its boards.
const DefaultBatch = 64

// MaxFailures is how many times one game may fail (its player crashed, hung
// or broke the protocol while the game was in flight) before the batch
// stops with the last failure.
const MaxFailures = 3

// Pool plays the games of Family players, one player process per slot.
// Processes are started on first use and kept between batches; Close ends
// them.
type Pool struct {
	opts  Options
	mu    sync.Mutex // one batch at a time
	slots []*slot
}

var _ tuner.Pool = (*Pool)(nil)

// New returns a pool of slots player processes (0 = one per core).
func New(slots int, opts Options) *Pool {
	p := &Pool{opts: opts, slots: make([]*slot, engine.Workers(slots))}
	first := max(opts.FirstSlot, 1)
	for i := range p.slots {
		p.slots[i] = &slot{index: first + i}
	}
	return p
}

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
	p.mu.Lock()
	defer p.mu.Unlock()
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
// sets its parameters and plays its games k at a time in lockstep until
// the candidate has none left, then takes the candidate with the most
// games left; results land by (candidate, game), so the number of slots
// and the order of play change no result. A failed player is killed and
// restarted and the games it had in flight start again from their seeds;
// a game failing MaxFailures times, a refusal (error) or a player that
// cannot start stops the batch with that failure.
func (p *Pool) Play(ctx context.Context, b *tuner.Batch, results [][]engine.Result, done tuner.GameDone) error {
	fam, ok := b.Players.(Family)
	if !ok {
		return fmt.Errorf("%w: the player pool plays external players, not %T", tuner.ErrPlayers, b.Players)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	sc := newSchedule(b)
	sc.slots = min(len(p.slots), max(sc.total, 1))
	stop, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg      sync.WaitGroup
		errOnce sync.Once
		failure error
	)
	for _, s := range p.slots[:min(len(p.slots), max(sc.total, 1))] {
		wg.Go(func() {
			if err := s.run(stop, p, fam, b, sc, results, done); err != nil {
				errOnce.Do(func() { failure = err })
				cancel() // the other slots stop between requests
			}
		})
	}
	wg.Wait()
	if failure != nil {
		return failure
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("playerpool: %w", err)
	}
	return nil
}

// A schedule hands a batch's games to the slots: per candidate, the games
// not yet started, in order; the games to be played alone; and how often
// each game failed.
//
// A failure is charged to a game only when it is the game's own: the
// failing request held its board alone, or the failure names its board (an
// illegal move). When a request of several boards fails otherwise (a
// crash, a hang, a malformed line), any of them may be the cause: none is
// charged, and each is played again from its seed alone in its requests,
// where a failure is its own. So MaxFailures counts the failures of one
// game's own boards, and which game reaches it does not depend on the
// number of slots, k or timing, only on the player.
type schedule struct {
	mu      sync.Mutex
	pending [][]int // by candidate: game indices to start, in order
	alone   [][]int // by candidate: games to start alone in their requests, first in line
	fails   map[tuner.Job]int
	total   int
	slots   int // the slots playing the batch
}

func newSchedule(b *tuner.Batch) *schedule {
	sc := &schedule{pending: make([][]int, len(b.Vectors)), alone: make([][]int, len(b.Vectors)), fails: map[tuner.Job]int{}}
	if b.Jobs == nil {
		for c := range sc.pending {
			for j := range b.Seeds {
				sc.pending[c] = append(sc.pending[c], j)
			}
		}
		sc.total = len(b.Vectors) * len(b.Seeds)
		return sc
	}
	for _, j := range b.Jobs {
		sc.pending[j.Candidate] = append(sc.pending[j.Candidate], j.Game)
	}
	sc.total = len(b.Jobs)
	return sc
}

// left is how many games of candidate c are still to start; sc.mu held.
func (sc *schedule) left(c int) int { return len(sc.pending[c]) + len(sc.alone[c]) }

// next returns the candidate a slot set to cur plays next: cur while it
// has games left, else the one with the most left (the first of equals),
// so that slots share the last candidates' games.
func (sc *schedule) next(cur int) (int, bool) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if cur >= 0 && sc.left(cur) > 0 {
		return cur, true
	}
	best := -1
	for c := range sc.pending {
		if n := sc.left(c); n > 0 && (best < 0 || n > sc.left(best)) {
			best = c
		}
	}
	return best, best >= 0
}

// share returns how many games a slot starting a candidate's games holds
// at once: k, or near the batch's end the slots' share of the games not
// yet started, so that the last candidate's games are played by every
// slot rather than by the one that came first.
func (sc *schedule) share(k int) int {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	left := 0
	for c := range sc.pending {
		left += len(sc.pending[c])
	}
	return max(1, min(k, (left+sc.slots-1)/sc.slots))
}

// takeAlone returns the next game of candidate c to be played alone.
func (sc *schedule) takeAlone(c int) (int, bool) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if len(sc.alone[c]) == 0 {
		return 0, false
	}
	g := sc.alone[c][0]
	sc.alone[c] = sc.alone[c][1:]
	return g, true
}

// take returns the next game of candidate c to start with others.
func (sc *schedule) take(c int) (int, bool) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if len(sc.pending[c]) == 0 {
		return 0, false
	}
	g := sc.pending[c][0]
	sc.pending[c] = sc.pending[c][1:]
	return g, true
}

// failed records a failure of a request of candidate c that held the
// boards of games: if it held one board, or culprit (an index into games,
// or -1) names the one that failed, that game is charged and played alone
// from now on, the others start again as before; otherwise every one is
// played alone, none charged. It returns the game charged and its count of
// failures, or -1, 0.
func (sc *schedule) failed(c int, games []int, culprit int) (game, fails int) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if culprit < 0 && len(games) == 1 {
		culprit = 0
	}
	if culprit < 0 {
		sc.alone[c] = append(slices.Clone(games), sc.alone[c]...)
		return -1, 0
	}
	g := games[culprit]
	j := tuner.Job{Candidate: c, Game: g}
	sc.fails[j]++
	sc.alone[c] = append([]int{g}, sc.alone[c]...)
	others := slices.Delete(slices.Clone(games), culprit, culprit+1)
	sc.pending[c] = append(others, sc.pending[c]...)
	return g, sc.fails[j]
}

// A slot is one player process and what it was last told.
type slot struct {
	index int
	log   *logFile
	proc  *Process
	set   []float64 // the values last set
	isSet bool      // whether set holds anything
	// restart: the slot's last process failed, and the next one is a
	// restart; restartFails counts the restarts in a row whose handshake
	// or set failed.
	restart      bool
	restartFails int
}

// stop ends the slot's process, if any.
func (s *slot) stop() {
	if s.proc != nil {
		s.proc.Close()
		s.proc, s.isSet = nil, false
	}
}

// kill ends a failed process at once.
func (s *slot) kill() {
	if s.proc != nil {
		s.proc.Kill()
		<-s.proc.exited
		s.proc, s.isSet = nil, false
	}
}

// ready makes sure the slot runs fam's player, started and checked.
func (s *slot) ready(ctx context.Context, p *Pool, fam Family) error {
	if s.proc != nil && !s.proc.Dead() && s.proc.command != nil && fam.sameProgram(s.proc.Family()) {
		return nil
	}
	s.stop()
	if s.log == nil {
		path := ""
		if p.opts.LogDir != "" {
			if err := os.MkdirAll(p.opts.LogDir, 0o755); err != nil {
				return fmt.Errorf("playerpool: %w", err)
			}
			path = filepath.Join(p.opts.LogDir, fmt.Sprintf("slot-%d.log", s.index))
		}
		log, err := openLog(path)
		if err != nil {
			return err
		}
		s.log = log
	}
	proc, err := start(ctx, fam.Command, s.log, p.opts)
	if err != nil {
		return err
	}
	if got := proc.Family(); !fam.sameDeclaration(got) {
		err := proc.fail(mismatch(fam, got), ErrMismatch)
		proc.Kill()
		<-proc.exited
		return err
	}
	s.proc = proc
	return nil
}

// A live game is a game of the candidate a slot plays, in flight.
type liveGame struct {
	index int // into the batch's seeds
	g     *engine.Game
}

// run plays games on the slot until the schedule has none left, ctx is
// done, or a failure stops the batch; it returns nil when ctx is done.
func (s *slot) run(ctx context.Context, p *Pool, fam Family, b *tuner.Batch, sc *schedule, results [][]engine.Result, done tuner.GameDone) error {
	k := p.batch()
	cur := -1
	var (
		live   []liveGame
		boards []engine.Board
		dirs   []engine.Dir
	)
	for ctx.Err() == nil {
		c, ok := sc.next(cur)
		if !ok {
			return nil
		}
		// A player that cannot start, or starts declaring something else,
		// will not do better on the next try; a restart that fails may be
		// the fault that made the restart, passing.
		if err := s.ready(ctx, p, fam); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if err := s.restartFailed(err); err != nil {
				return err
			}
			continue
		}
		cur = c
		live = live[:0]
		alone := false
		if j, ok := sc.takeAlone(c); ok {
			live, alone = append(live, liveGame{j, engine.NewGame(b.Seeds[j])}), true
		}
		n := sc.share(k)
		for !alone && len(live) < n {
			j, ok := sc.take(c)
			if !ok {
				break
			}
			live = append(live, liveGame{j, engine.NewGame(b.Seeds[j])})
		}
		if len(live) == 0 {
			continue // another slot took the last games meanwhile
		}
		var inMoves bool // the failure came from a move request, not set
		culprit, err := s.play(ctx, b, c, alone, &live, &boards, &dirs, &inMoves, sc, results, done)
		if err == nil {
			continue
		}
		var pe *Error
		if !errors.As(err, &pe) {
			if ctx.Err() != nil {
				return nil // the batch stops
			}
			return err // a vector the player cannot take, say
		}
		s.kill()
		if !pe.retryable() {
			return err
		}
		s.restart = true
		cur = -1 // a new process: set again
		if !inMoves {
			// set failed: no board was in flight, the games start
			// again as they were.
			sc.requeue(c, live, alone)
			if err := s.restartFailed(err); err != nil {
				return err
			}
			continue
		}
		games := make([]int, len(live))
		for i, l := range live {
			games[i] = l.index
		}
		if g, n := sc.failed(c, games, culprit); n >= MaxFailures {
			pe.Did += fmt.Sprintf(" (game %d of candidate %d failed %d times, its board alone in the request or named: the batch stops)", g, c, n)
			return err
		}
	}
	return nil
}

// restartFailed counts a failed handshake or set of a restarted process,
// and returns the error that stops the batch: err itself if it is not such
// a failure (a player that cannot start, a first start), or err after
// MaxFailures restarts in a row failed.
func (s *slot) restartFailed(err error) error {
	var pe *Error
	if !s.restart || !errors.As(err, &pe) || !pe.retryable() {
		return err
	}
	s.restartFails++
	if s.restartFails >= MaxFailures {
		pe.Did += fmt.Sprintf(" (after a failure, %d restarts in a row failed: the batch stops)", s.restartFails)
		return err
	}
	return nil
}

// requeue puts the games of a request that was never sent back first in
// line, as they were.
func (sc *schedule) requeue(c int, live []liveGame, alone bool) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	games := make([]int, len(live))
	for i, l := range live {
		games[i] = l.index
	}
	if alone {
		sc.alone[c] = append(games, sc.alone[c]...)
	} else {
		sc.pending[c] = append(games, sc.pending[c]...)
	}
}

// play sets candidate c's parameters, unless they are set already, and
// plays its live games to their end, refilling the list from c's games
// left (a game for each that ends) unless its game is to be played alone. On failure *live holds the
// games in flight, *inMoves says whether a move request failed (rather
// than set), and culprit is the index in *live of the game the failure
// names, or -1.
func (s *slot) play(ctx context.Context, b *tuner.Batch, c int, alone bool, live *[]liveGame, boards *[]engine.Board, dirs *[]engine.Dir, inMoves *bool, sc *schedule, results [][]engine.Result, done tuner.GameDone) (culprit int, err error) {
	defer s.proc.watch(ctx)() // a cancelled batch ends the exchange under way at once
	if !s.isSet || !slices.Equal(s.set, b.Vectors[c]) {
		s.isSet = false
		if err := s.proc.Set(b.Vectors[c]); err != nil {
			return -1, err
		}
		s.set, s.isSet = append(s.set[:0], b.Vectors[c]...), true
		s.restart, s.restartFails = false, 0
	}
	*inMoves = true
	for len(*live) > 0 {
		if err := ctx.Err(); err != nil {
			return -1, err
		}
		*boards = (*boards)[:0]
		for _, l := range *live {
			*boards = append(*boards, l.g.Board())
		}
		d, err := s.proc.Moves(*boards, *dirs)
		if err != nil {
			return -1, err
		}
		*dirs = d
		kept := (*live)[:0]
		for i, l := range *live {
			if err := l.g.Play(d[i]); err != nil {
				// Every game of the request is in flight still (kept
				// overwrites only entries already seen): they all start
				// again from their seeds, and the failure is this one's.
				*live = append(kept, (*live)[i:]...)
				return len(kept), s.proc.fail(fmt.Sprintf("answered %v on board %s, an illegal move", d[i], (*boards)[i].Hex()), err)
			}
			if !l.g.Over(b.MaxMoves) {
				kept = append(kept, l)
				continue
			}
			r := l.g.Result()
			results[c][l.index] = r
			if done != nil {
				done(tuner.Job{Candidate: c, Game: l.index}, r, false)
			}
			if alone {
				continue
			}
			if j, ok := sc.take(c); ok {
				kept = append(kept, liveGame{j, engine.NewGame(b.Seeds[j])})
			}
		}
		*live = kept
	}
	return -1, nil
}
