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

// A slot is one player process and what it was last told.
type slot struct {
	index int
	stats *requestStats
	log   *logFile
	proc  *Process
	set   []float64 // the values last set
	isSet bool      // whether set holds anything
	// restart: the slot's last process failed, and the next one is a
	// restart; restartFails counts the restarts in a row whose handshake
	// or set failed.
	restart      bool
	restartFails int
	// A process of version 2's sets (by number; 0 unused), and the
	// process they were given to.
	held   []heldSet
	heldBy *Process
	// Buffers kept from request to request.
	live   []liveGame
	mixed  []mixedGame
	boards []engine.Board
	sets   []uint8
	dirs   []engine.Dir
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
		<-s.proc.tree.Exited()
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
		<-proc.tree.Exited()
		return err
	}
	s.proc = proc
	s.stats.sets.Store(int32(proc.Family().Sets))
	return nil
}

// A live game is a game of the candidate a slot plays, in flight.
type liveGame struct {
	index int // into the batch's seeds
	g     *engine.Game
}

// run plays the games of batch pl on the slot, a candidate at a time,
// until the batch has none left to start, ctx is done, a failure stops
// the batch, or a batch before it in the queue has games to start; it
// returns nil when ctx is done.
func (s *slot) run(ctx context.Context, p *Pool, pl *playing) error {
	fam, b, sc, results, done := pl.fam, pl.b, pl.sc, pl.results, pl.done
	k := p.batch()
	cur := -1
	for ctx.Err() == nil {
		if cur < 0 && p.first() != pl {
			return nil // between candidates: the slot goes where it is needed first
		}
		c, ok := sc.next(cur)
		if !ok {
			return nil
		}
		if ok, err := s.prepare(ctx, p, fam); !ok {
			if err != nil {
				return err
			}
			continue
		}
		if s.proc.Family().Sets > 0 {
			return s.runSets(ctx, p, pl)
		}
		cur = c
		live := s.live[:0]
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
			cur = -1
			continue // another slot took the last games meanwhile
		}
		var inMoves bool // the failure came from a move request, not set
		culprit, err := s.play(ctx, b, c, alone, &live, &s.boards, &s.dirs, &inMoves, sc, results, done)
		s.live = live[:0]
		if err == nil {
			if sc.leftOf(c) == 0 {
				cur = -1
			}
			continue
		}
		jobs := make([]tuner.Job, len(live))
		for i, l := range live {
			jobs[i] = tuner.Job{Candidate: c, Game: l.index}
		}
		if err := s.playerFailed(ctx, err, func() error {
			cur = -1 // a new process: set again
			if !inMoves {
				// set failed: no board was in flight, the games start
				// again as they were.
				sc.requeueJobs(jobs, alone)
				return s.restartFailed(err)
			}
			return charge(sc, jobs, culprit, err)
		}); err != nil {
			return err
		}
	}
	return nil
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
			var pe *Error
			if errors.As(err, &pe) {
				return pe.alone(), err
			}
			return -1, err
		}
		*dirs = d
		s.stats.add(len(*boards))
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
