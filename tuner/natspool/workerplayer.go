package natspool

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/tuner"
	"github.com/evotune/evotune/tuner/playerpool"
)

// A workerSlot is what one of a worker's slots keeps between jobs: for
// the jobs of an external player, a player pool of one slot numbered as
// this slot, so that its process lives from job to job (set is sent only
// when the candidate changes) and its log is slot-N.log.
type workerSlot struct {
	index   int
	players *playerpool.Pool
}

// close ends the slot's player process, if it has one.
func (sl *workerSlot) close() {
	if sl.players != nil {
		sl.players.Close()
	}
}

// usePlayer makes fam, run with opts, the worker's external player: the
// player a worker was started with, or the coordinator's own for its
// local slots.
func (w *Worker) usePlayer(fam playerpool.Family, opts playerpool.Options) {
	w.playerMu.Lock()
	defer w.playerMu.Unlock()
	w.player, w.playerOpts = &fam, opts
}

// preparePlayer returns how slot sl plays j, a job of an external player,
// and the waiting jobs it may gather to it, or the reason it cannot: the
// worker runs no player, or one that declares something else than the
// job's.
func (w *Worker) preparePlayer(j *job, sl *workerSlot) (plan, string) {
	w.playerMu.Lock()
	fam, opts := w.player, w.playerOpts
	w.playerMu.Unlock()
	if fam == nil {
		return plan{}, fmt.Sprintf("this worker runs no external player, the job wants %s %s: start it with --player CMD", j.Player.ID, j.Player.Version)
	}
	if why := otherDeclaration(fam.Declaration(), j.Player); why != "" {
		return plan{}, why
	}
	if len(j.Weights) != len(fam.Params) {
		return plan{}, fmt.Sprintf("candidate %d: %d parameter values for the %d parameters of player %s %s", j.Candidate, len(j.Weights), len(fam.Params), fam.ID, fam.Version)
	}
	play := func(ctx context.Context, group []*taken) ([][]engine.Result, error) {
		if sl.players == nil {
			opts.FirstSlot = sl.index
			sl.players = playerpool.New(1, opts)
		}
		// One batch for the group: the player pool's restarts after a
		// crash or a hang, and its limit on failures, apply to the jobs
		// as they do to a local run, and its games share the requests.
		b, where := joined(fam, group)
		res := make([][]engine.Result, len(b.Vectors))
		for c := range res {
			res[c] = make([]engine.Result, len(b.Seeds))
		}
		if err := sl.players.Play(ctx, b, res, nil); err != nil {
			return nil, err
		}
		out := make([][]engine.Result, len(group))
		for i, games := range where {
			out[i] = make([]engine.Result, len(games))
			for k, g := range games {
				out[i][k] = res[g.Candidate][g.Game]
			}
		}
		return out, nil
	}
	batch := opts.Batch
	if batch <= 0 {
		batch = playerpool.DefaultBatch
	}
	return plan{play: play, release: func() {}, join: &joiner{boards: batch, mixes: mixesSets(fam)}}, ""
}

// mixesSets reports whether fam's player holds several parameter sets at
// once (protocol version 2), so that a player pool mixes candidates'
// games in its requests; one that holds a single set, whatever its
// version, plays a candidate at a time.
func mixesSets(fam *playerpool.Family) bool { return fam.Sets > 1 }

// joined returns the batch that plays a group of jobs of player fam: a
// vector per distinct parameter vector, the union of their seeds and the
// (vector, seed) pairs they ask for, each once; where[i][k] is the pair
// that plays game k of job i.
func joined(fam *playerpool.Family, group []*taken) (b *tuner.Batch, where [][]tuner.Job) {
	first := group[0].j
	b = &tuner.Batch{Generation: first.Generation, Players: *fam, MaxMoves: first.MaxMoves}
	seeds := map[uint64]int{}
	asked := map[tuner.Job]bool{}
	where = make([][]tuner.Job, len(group))
	for i, t := range group {
		c := slices.IndexFunc(b.Vectors, func(v []float64) bool { return slices.Equal(v, t.j.Weights) })
		if c < 0 {
			c = len(b.Vectors)
			b.Vectors = append(b.Vectors, t.j.Weights)
		}
		where[i] = make([]tuner.Job, len(t.j.Seeds))
		for k, seed := range t.j.Seeds {
			g, ok := seeds[seed]
			if !ok {
				g = len(b.Seeds)
				seeds[seed] = g
				b.Seeds = append(b.Seeds, seed)
			}
			pair := tuner.Job{Candidate: c, Game: g}
			if !asked[pair] {
				asked[pair] = true
				b.Jobs = append(b.Jobs, pair)
			}
			where[i][k] = pair
		}
	}
	return b, where
}

// A joiner says which waiting jobs a slot may play with the jobs of an
// external player it holds, in the same move requests.
type joiner struct {
	boards int  // the most boards of a request: the player pool's batch
	mixes  bool // the player holds several parameter sets (mixesSets)
}

// wants reports whether a slot holding jobs of games games, the last of
// them with hint h, may take the job published after it, if that job is
// still the first waiting and at least h.Slots jobs wait (see gather):
// the job must be one the player can play in the same requests (of the
// same candidate, unless the player mixes them), its games must fit the
// player's requests, and the slot must hold no more than its share of
// the batch's games not yet begun, its own included, as guided
// self-scheduling cuts jobs (Pool's blocks), so that joining leaves the
// batch's end where it was.
func (jn *joiner) wants(games int, h *joinHint) bool {
	if h == nil || h.Slots <= 0 || h.Next <= 0 || !(h.Same || jn.mixes) {
		return false
	}
	n := games + h.Next
	return n <= jn.boards && n <= (games+h.Left+h.Slots-1)/h.Slots
}

// joins reports whether a slot playing job a may play job b in the same
// requests: both of the same run, player, rules and move limit, and, for
// a player that holds one parameter set, the same batch and candidate.
func (jn *joiner) joins(a, b *job) bool {
	if a.Run != b.Run || b.Player == nil || a.Format != b.Format || a.Rules != b.Rules || a.MaxMoves != b.MaxMoves || len(a.Weights) != len(b.Weights) {
		return false
	}
	if !jn.mixes {
		return a.Batch == b.Batch && a.Candidate == b.Candidate && slices.Equal(a.Weights, b.Weights)
	}
	return playerpool.DeclarationDiff(a.Player, b.Player, "") == ""
}

// gather takes, one at a time and without waiting, the jobs a slot may
// play with the jobs of group (an external player's): the first waiting,
// while joiner jn wants the job published after the group's last (see
// wants) and at least as many jobs wait as the fleet has slots, so that
// taking one leaves one for every other slot. For a player of one
// parameter set the first waiting must be that very job (the server has
// delivered none since the group's last), the one of the same candidate.
// A player that mixes candidates takes whichever job of its run waits
// first, since the slots of a fleet that come free together take each
// other's successors; that job's size is then known only once taken, so
// the share may be passed by that one job, and the next step judges by
// its hint. gather returns the group, grown, and the job it took that
// turned out not to join (another slot took the one expected, or it
// cannot be read), which the slot plays next.
func (w *Worker) gather(ctx context.Context, cons jetstream.Consumer, group []*taken, jn *joiner) ([]*taken, jetstream.Msg) {
	games := 0
	for _, t := range group {
		games += len(t.j.Games)
	}
	for ctx.Err() == nil {
		last := group[len(group)-1]
		h := last.j.Join
		if !jn.wants(games, h) {
			break
		}
		ictx, cancel := context.WithTimeout(ctx, time.Second)
		info, err := cons.Info(ictx)
		cancel()
		if err != nil || info.NumPending < uint64(h.Slots) || !jn.mixes && (last.seq == 0 || info.Delivered.Stream != last.seq) {
			break
		}
		batch, err := cons.FetchNoWait(1)
		if err != nil {
			break
		}
		var msg jetstream.Msg
		for m := range batch.Messages() {
			msg = m
		}
		if msg == nil {
			break
		}
		t, err := readJob(msg)
		if t == nil || err != nil || !jn.joins(group[0].j, t.j) || games+len(t.j.Games) > jn.boards {
			return group, msg
		}
		if w.beforePlay != nil && w.beforePlay(t.j) != nil {
			continue
		}
		group = append(group, t)
		games += len(t.j.Games)
		w.joined.Add(1)
	}
	return group, nil
}

// otherDeclaration describes how the declaration of this worker's player,
// have, differs from the one a job wants, or returns "" if they are the
// same.
func otherDeclaration(have, want *tuner.PlayerDeclaration) string {
	why := playerpool.DeclarationDiff(want, have, "the job")
	if why == "" {
		return ""
	}
	return fmt.Sprintf("this worker's player %s: run the coordinator's build of the player here", why)
}

// Player returns the worker's external player, if it runs one.
func (w *Worker) Player() (playerpool.Family, bool) {
	w.playerMu.Lock()
	defer w.playerMu.Unlock()
	if w.player == nil {
		return playerpool.Family{}, false
	}
	return *w.player, true
}
