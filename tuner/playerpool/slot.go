package playerpool

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/tuner"
)

// A slot is one player process and what it was last told. A player of
// version 1 is spoken to as one of version 2 holding one parameter set
// (Process hides the version), so one loop serves both: a slot's requests
// carry the games of as many candidates as its player holds sets, one
// for a player of version 1, whose requests then hold one candidate's
// games at a time. Which games share a request changes with the sets,
// never what a game returns: its seed and where its result lands are
// fixed by the batch.
type slot struct {
	index int
	stats *requestStats
	log   *logFile
	proc  *Process
	// restart: the slot's last process failed, and the next one is a
	// restart; restartFails counts the restarts in a row whose handshake
	// or set failed.
	restart      bool
	restartFails int
	// The process's parameter sets (by number; 0 unused), and the process
	// they were given to.
	held   []heldSet
	heldBy *Process
	// Buffers kept from request to request.
	live   []liveGame
	boards []engine.Board
	sets   []uint8
	dirs   []engine.Dir
}

// A heldSet is what a slot last gave one of its process's parameter sets.
type heldSet struct {
	vec   []float64
	given bool // the process took vec for this set
	users int  // live games under it
}

// A liveGame is a game in flight on a slot.
type liveGame struct {
	c, index int // candidate, and index into the batch's seeds
	set      uint8
	g        *engine.Game
}

// stop ends the slot's process, if any.
func (s *slot) stop() {
	if s.proc != nil {
		s.proc.Close()
		s.proc = nil
	}
}

// kill ends a failed process at once.
func (s *slot) kill() {
	if s.proc != nil {
		s.proc.Kill()
		s.proc.Close()
		s.proc = nil
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
	proc, err := start(ctx, fam.Command, s.log, p.opts, fam.Declaration(), "the run")
	if err != nil {
		return err
	}
	s.proc = proc
	s.stats.sets.Store(int32(proc.Family().Sets))
	return nil
}

// run plays the games of batch pl on the slot until the batch has none
// left to start, ctx is done, a failure stops the batch, or a batch
// before it in the queue has games to start; it returns nil when ctx is
// done.
//
// Each request holds the boards of the games in flight, each under the
// set holding its candidate's values. As games end, their places go to
// the games left of the candidate the slot plays, then of the next one
// (the one with the most left), given a set that holds its values
// already or one no game in flight uses, so that a request stays as full
// as k and the sets allow; near a batch's end the slot holds only its
// share of the games not yet ended (schedule.share). A game that failed
// in a request of several boards is played alone.
func (s *slot) run(ctx context.Context, p *Pool, pl *playing) error {
	fam, b, sc := pl.fam, pl.b, pl.sc
	k := p.batch()
	cur := -1 // the candidate whose games fill free places first
	live := s.live[:0]
	defer func() { s.live = live[:0] }()
	// A cancelled batch ends the exchange under way at once: one watch a
	// process, made when it is readied (the only place a process
	// changes), not one a request, which would cost each request a
	// registration with ctx.
	var (
		watched *Process
		unwatch = func() bool { return false }
	)
	defer func() { unwatch() }()
	add := func(c, j int, set uint8) {
		s.held[set].users++
		sc.started()
		live = append(live, liveGame{c, j, set, engine.NewGame(b.Seeds[j])})
	}
	// drop takes the games in flight off the slot, and returns their jobs
	// for the schedule to start again.
	drop := func() []tuner.Job {
		jobs := make([]tuner.Job, len(live))
		for i, l := range live {
			jobs[i] = tuner.Job{Candidate: l.c, Game: l.index}
			s.held[l.set].users--
		}
		sc.ended(len(live))
		live = live[:0]
		return jobs
	}
	alone := false // live holds one game, to be played alone
	fill := true   // places may have come free since the last request
	for ctx.Err() == nil {
		// Games in flight mean a live process of fam's, set to play them:
		// between runs of games only, the slot goes where it is needed
		// first, readies its process, and plays a game to be played alone.
		if len(live) == 0 {
			if p.first() != pl {
				return nil
			}
			if ok, err := s.prepare(ctx, p, fam); !ok {
				if err != nil {
					return err
				}
				continue
			}
			s.syncHeld()
			if watched != s.proc {
				unwatch()
				watched, unwatch = s.proc, s.proc.watch(ctx)
			}
			alone, fill = false, true
			if c, j, ok := sc.takeAlone(); ok {
				set, err := s.give(b.Vectors[c])
				if err != nil {
					sc.requeueJobs([]tuner.Job{{Candidate: c, Game: j}}, true)
					if err := s.playerFailed(ctx, err, func() error { return s.restartFailed(err) }); err != nil {
						return err
					}
					continue
				}
				add(c, j, set)
				alone = true
			}
		}
		// Free places take games while this batch comes first. Places
		// come free only as games end (the share only shrinks), so a
		// request that ended none leaves nothing to fill.
		for fill && !alone && p.first() == pl && len(live) < sc.share(k) {
			c := sc.next(cur)
			if c < 0 {
				break
			}
			set, err := s.give(b.Vectors[c])
			if err != nil {
				sc.requeueJobs(drop(), false)
				if err := s.playerFailed(ctx, err, func() error { return s.restartFailed(err) }); err != nil {
					return err
				}
				break
			}
			if set == 0 {
				break // every set is in use by games in flight
			}
			if j, ok := sc.take(c); ok {
				cur = c
				add(c, j, set)
			} // else another slot took it meanwhile
		}
		if len(live) == 0 {
			if sc.remaining() == 0 || p.first() != pl {
				return nil
			}
			continue // a failure emptied the slot: start again
		}
		ended, culprit, err := s.request(b, &live, sc, pl.results, pl.done)
		fill = ended > 0
		if err == nil {
			continue
		}
		jobs := drop()
		if err := s.playerFailed(ctx, err, func() error { return charge(sc, jobs, culprit, err) }); err != nil {
			return err
		}
	}
	return nil
}

// request asks for the moves of the live games' boards, each under its
// set, and plays them: a game that ends gives its result and frees its
// place. It returns how many games ended. On failure *live holds the
// games in flight and culprit is the index in *live of the game the
// failure names, or -1.
func (s *slot) request(b *tuner.Batch, live *[]liveGame, sc *schedule, results [][]engine.Result, done tuner.GameDone) (ended, culprit int, err error) {
	s.boards, s.sets = s.boards[:0], s.sets[:0]
	for _, l := range *live {
		s.boards, s.sets = append(s.boards, l.g.Board()), append(s.sets, l.set)
	}
	d, err := s.proc.MovesIn(s.boards, s.sets, s.dirs)
	if err != nil {
		var pe *Error
		if errors.As(err, &pe) {
			return 0, pe.alone(), err
		}
		return 0, -1, err
	}
	s.dirs = d
	s.stats.add(len(s.boards))
	kept := (*live)[:0]
	for i, l := range *live {
		if err := l.g.Play(d[i]); err != nil {
			// Every game of the request is in flight still (kept
			// overwrites only entries already seen): they all start
			// again from their seeds, and the failure is this one's.
			*live = append(kept, (*live)[i:]...)
			set := ""
			if s.proc.Family().Sets > 0 {
				set = fmt.Sprintf(" (set %d)", l.set)
			}
			return ended, len(kept), s.proc.fail(fmt.Sprintf("answered %v on board %s%s, an illegal move", d[i], s.boards[i].Hex(), set), err)
		}
		if !l.g.Over(b.MaxMoves) {
			kept = append(kept, l)
			continue
		}
		r := l.g.Result()
		results[l.c][l.index] = r
		if done != nil {
			done(tuner.Job{Candidate: l.c, Game: l.index}, r, false)
		}
		s.held[l.set].users--
		sc.ended(1)
		ended++
	}
	*live = kept
	return ended, -1, nil
}

// syncHeld forgets the sets given to an earlier process: a new one holds
// none.
func (s *slot) syncHeld() {
	if s.heldBy == s.proc {
		return
	}
	s.heldBy = s.proc
	s.held = s.held[:0]
	for range max(s.proc.Family().Sets, 1) + 1 {
		s.held = append(s.held, heldSet{})
	}
}

// give returns the number of a set holding vec: one that holds it
// already, else a set no live game uses, given vec now; 0 when every set
// is in use by live games.
func (s *slot) give(vec []float64) (uint8, error) {
	free := 0
	for i := 1; i < len(s.held); i++ {
		h := &s.held[i]
		if h.given && slices.Equal(h.vec, vec) {
			return uint8(i), nil
		}
		if h.users == 0 && (free == 0 || s.held[free].given && !h.given) {
			free = i // a set never given first: the others may be asked for again
		}
	}
	if free == 0 {
		return 0, nil
	}
	h := &s.held[free]
	h.given = false
	if err := s.proc.SetIn(free, vec); err != nil {
		return 0, err
	}
	h.vec, h.given = append(h.vec[:0], vec...), true
	s.restart, s.restartFails = false, 0
	return uint8(free), nil
}

// prepare readies the slot's process for fam (ready). It returns false
// when there is none: with the error that stops the batch, or with nil
// to try again (a restart that failed, fewer than MaxFailures in a row,
// or a done ctx, which ends the caller's loop). A player that cannot
// start, or starts declaring something else, will not do better on the
// next try; a restart that fails may be the fault that made the restart,
// passing.
func (s *slot) prepare(ctx context.Context, p *Pool, fam Family) (bool, error) {
	err := s.ready(ctx, p, fam)
	switch {
	case err == nil:
		return true, nil
	case ctx.Err() != nil:
		return false, nil
	}
	return false, s.restartFailed(err)
}

// playerFailed handles err, the failure of an exchange with the slot's
// player, and returns the error that stops the batch, or nil to go on. An
// error that is not the player's stops the batch (nil when ctx is done:
// the batch was stopped); one of the player's kills the process, and if
// it may be retried, requeue puts the games in flight back and says
// whether the batch stops.
func (s *slot) playerFailed(ctx context.Context, err error, requeue func() error) error {
	var pe *Error
	if !errors.As(err, &pe) {
		if ctx.Err() != nil {
			return nil
		}
		return err // a vector the player cannot take, say
	}
	s.kill()
	if !pe.retryable() {
		return err
	}
	s.restart = true
	return requeue()
}

// charge puts back jobs, the games of a move request that failed with
// err, charging the game culprit names (see schedule.failedJobs), and
// returns err if that game has now failed MaxFailures times.
func charge(sc *schedule, jobs []tuner.Job, culprit int, err error) error {
	j, n := sc.failedJobs(jobs, culprit)
	if n < MaxFailures {
		return nil
	}
	var pe *Error
	if errors.As(err, &pe) {
		pe.Did += fmt.Sprintf(" (game %d of candidate %d failed %d times, its board alone in the request or named: the batch stops)", j.Game, j.Candidate, n)
	}
	return err
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
