package natspool

import (
	"context"
	"fmt"

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
// or the reason it cannot: the worker runs no player, or one that
// declares something else than the job's.
func (w *Worker) preparePlayer(j *job, sl *workerSlot) (playFunc, string) {
	w.playerMu.Lock()
	fam, opts := w.player, w.playerOpts
	w.playerMu.Unlock()
	if fam == nil {
		return nil, fmt.Sprintf("this worker runs no external player, the job wants %s %s: start it with --player CMD", j.Player.ID, j.Player.Version)
	}
	if why := otherDeclaration(fam.Declaration(), j.Player); why != "" {
		return nil, why
	}
	if len(j.Weights) != len(fam.Params) {
		return nil, fmt.Sprintf("candidate %d: %d parameter values for the %d parameters of player %s %s", j.Candidate, len(j.Weights), len(fam.Params), fam.ID, fam.Version)
	}
	play := func(ctx context.Context) ([]engine.Result, error) {
		if sl.players == nil {
			opts.FirstSlot = sl.index
			sl.players = playerpool.New(1, opts)
		}
		// A batch of one candidate: the player pool's restarts after a
		// crash or a hang, and its limit on failures, apply to a job as
		// they do to a local run.
		b := &tuner.Batch{Generation: j.Generation, Players: *fam, Vectors: [][]float64{j.Weights}, Seeds: j.Seeds, MaxMoves: j.MaxMoves}
		res := [][]engine.Result{make([]engine.Result, len(j.Seeds))}
		if err := sl.players.Play(ctx, b, res, nil); err != nil {
			return nil, err
		}
		return res[0], nil
	}
	return play, ""
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
