package playerpool

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/tuner"
)

// A slot whose player speaks version 2 holds several parameter sets, so
// its requests carry the games of several candidates: when the candidate
// it plays has no game left to start, the next candidate's games take the
// places of those that end, under another set, and a request stays as
// full as the batch size allows however few games a candidate has. The
// games, their seeds and where their results land are those of a slot of
// version 1: only which games share a request changes, never what a game
// returns.

// A heldSet is what a slot last gave one of its process's parameter sets.
type heldSet struct {
	vec   []float64
	given bool // the process took vec for this set
	users int  // live games under it
}

// A mixedGame is a game in flight on a slot of version 2.
type mixedGame struct {
	c, index int // candidate, and index into the batch's seeds
	set      uint8
	g        *engine.Game
}

// runSets is run for a process of version 2: it plays the games of batch
// pl, several candidates' games in each request, until the batch has none
// left to start, ctx is done, a failure stops the batch, or a batch
// before it in the queue has games to start; it returns nil when ctx is
// done.
func (s *slot) runSets(ctx context.Context, p *Pool, pl *playing) error {
	fam, b, sc := pl.fam, pl.b, pl.sc
	k := p.batch()
	cur := -1 // the candidate whose games fill free places first
	live := s.mixed[:0]
	defer func() { s.mixed = live[:0] }()
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
		live = append(live, mixedGame{c, j, set, engine.NewGame(b.Seeds[j])})
	}
	alone := false // live holds one game, to be played alone
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
			alone = false
			if c, j, ok := sc.takeAnyAlone(); ok {
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
		// Free places take games while this batch comes first: near its
		// end only the slot's share, so that every slot plays the last
		// games.
		for !alone && p.first() == pl && len(live) < sc.mixedShare(k) {
			c := sc.nextPending(cur)
			if c < 0 {
				break
			}
			set, err := s.give(b.Vectors[c])
			if err != nil {
				sc.requeueJobs(jobsOf(live), false)
				sc.ended(len(live))
				live = live[:0]
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
		culprit, err := s.request(b, &live, sc, pl.results, pl.done)
		if err == nil {
			continue
		}
		jobs := jobsOf(live)
		sc.ended(len(live))
		live = live[:0]
		if err := s.playerFailed(ctx, err, func() error { return charge(sc, jobs, culprit, err) }); err != nil {
			return err
		}
	}
	return nil
}

// request asks for the moves of the live games' boards, each under its
// set, and plays them: a game that ends gives its result and frees its
// place. On failure *live holds the games in flight and culprit is the
// index in *live of the game the failure names, or -1.
func (s *slot) request(b *tuner.Batch, live *[]mixedGame, sc *schedule, results [][]engine.Result, done tuner.GameDone) (culprit int, err error) {
	s.boards, s.sets = s.boards[:0], s.sets[:0]
	for _, l := range *live {
		s.boards, s.sets = append(s.boards, l.g.Board()), append(s.sets, l.set)
	}
	d, err := s.proc.MovesIn(s.boards, s.sets, s.dirs)
	if err != nil {
		var pe *Error
		if errors.As(err, &pe) {
			return pe.alone(), err
		}
		return -1, err
	}
	s.dirs = d
	s.stats.add(len(s.boards))
	kept := (*live)[:0]
	for i, l := range *live {
		if err := l.g.Play(d[i]); err != nil {
			*live = append(kept, (*live)[i:]...)
			return len(kept), s.proc.fail(fmt.Sprintf("answered %v on board %s (set %d), an illegal move", d[i], s.boards[i].Hex(), l.set), err)
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
	}
	*live = kept
	return -1, nil
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

// jobsOf returns the jobs of games in flight.
func jobsOf(live []mixedGame) []tuner.Job {
	jobs := make([]tuner.Job, len(live))
	for i, l := range live {
		jobs[i] = tuner.Job{Candidate: l.c, Game: l.index}
	}
	return jobs
}
