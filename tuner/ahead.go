package tuner

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/evotune/evotune/engine"
)

// Playing ahead. A validation of the mean after generation g and the
// games of generation g+1 do not depend on each other when the
// validation's result cannot change what generation g+1 plays: no
// fallback may restart the optimizer, no stage or run ends there, no
// patience runs out. The tuner then starts generation g+1's first batch
// (all of it, or noise handling's first racing round) as the validation
// begins, marked Ahead, on a pool that plays batches at once
// (SharedPool): the validation's games go first, and the slots its last
// games leave idle play the next generation's. Generation g+1 then finds
// its first batch played, or in play, and waits for it instead of playing
// it again. The start's validation and generation 1 share the slots the
// same way.
//
// Which batch generation g+1 plays first is found by running the step on
// a copy of the tuner, whose pool records the first batch asked of it
// and stops there: it is the batch the step itself will ask for, from the
// same state, so the two agree without a second description of the step.
// A batch that does not match (it cannot, but the check is cheap) is
// played again, and the one played ahead is dropped: the results are those
// of the batch asked for in any case; only the games played change.
//
// A game played ahead belongs to generation g+1's batch, so it is
// journalled under generation g, whose checkpoint generation g+1 is
// replayed from (see journalCache), and counted in State.Games when
// generation g+1 takes it, as if played then.

// errCaptured stops a copy of the tuner at the first batch it plays.
var errCaptured = errors.New("tuner: batch captured")

// capturePool records the first batch asked of it and plays nothing.
type capturePool struct{ b *Batch }

func (cp *capturePool) Play(_ context.Context, b *Batch, _ [][]engine.Result, _ GameDone) error {
	cp.b = b
	return errCaptured
}

// An aheadBatch is a batch in play ahead of its generation.
type aheadBatch struct {
	b       *Batch
	results [][]engine.Result
	cancel  context.CancelFunc
	over    chan struct{} // closed when Play returned; err is then set
	err     error
}

// aheadPool is the tuner's pool: it plays batches on p, and takes the batch
// played ahead (Tuner.ahead) for the batch that matches it.
type aheadPool struct {
	p Pool
	t *Tuner
}

func (ap *aheadPool) Play(ctx context.Context, b *Batch, results [][]engine.Result, done GameDone) error {
	a := ap.t.takeAhead(b)
	if a == nil {
		return ap.p.Play(ctx, b, results, done)
	}
	select {
	case <-a.over:
	case <-ctx.Done():
		a.cancel()
		<-a.over
		return ctx.Err()
	}
	if a.err != nil {
		return a.err
	}
	for _, j := range b.jobs() {
		results[j.Candidate][j.Game] = a.results[j.Candidate][j.Game]
	}
	return nil
}

// takeAhead returns the batch played ahead if it is b, and forgets it; nil
// if there is none or it is another.
func (t *Tuner) takeAhead(b *Batch) *aheadBatch {
	t.aheadMu.Lock()
	defer t.aheadMu.Unlock()
	a := t.ahead
	if a == nil || !sameBatch(a.b, b) {
		return nil
	}
	t.ahead = nil
	return a
}

// sameBatch reports whether a and b ask for the same games of the same
// players.
func sameBatch(a, b *Batch) bool {
	return a.Generation == b.Generation && a.MaxMoves == b.MaxMoves &&
		slices.EqualFunc(a.Vectors, b.Vectors, slices.Equal[[]float64]) &&
		slices.Equal(a.Seeds, b.Seeds) && slices.Equal(a.jobs(), b.jobs()) &&
		reflect.DeepEqual(a.Players, b.Players)
}

// awaitAhead waits until the batch played ahead, if any, is over, so that
// no game is in play when a step returns: the tuner's caller may measure
// its CPU, or save a checkpoint, between steps. The batch stays for the
// next step to take, failed or not.
func (t *Tuner) awaitAhead(ctx context.Context) error {
	t.aheadMu.Lock()
	a := t.ahead
	t.aheadMu.Unlock()
	if a == nil {
		return nil
	}
	select {
	case <-a.over:
		return nil
	case <-ctx.Done():
		t.dropAhead()
		return ctx.Err()
	}
}

// dropAhead stops the batch played ahead, if any, and waits for it.
func (t *Tuner) dropAhead() {
	t.aheadMu.Lock()
	a := t.ahead
	t.ahead = nil
	t.aheadMu.Unlock()
	if a != nil {
		a.cancel()
		<-a.over
	}
}

// playAhead starts the first batch of the generation after done completed
// generations, if the pool plays batches at once; the caller is about to
// validate, and knows the validation cannot change that generation (see
// independentValidation). now is the run's clock, as Step has it.
func (t *Tuner) playAhead(ctx context.Context, now func() time.Duration, done int) {
	t.dropAhead()
	if !shared(t.pool.p) {
		return
	}
	b, err := t.nextBatch(ctx, now, done)
	if err != nil || b == nil {
		return // nothing to play ahead; the generation plays as usual
	}
	b.Ahead = true
	results := make([][]engine.Result, len(b.Vectors))
	for c := range results {
		results[c] = make([]engine.Result, len(b.Seeds))
	}
	actx, cancel := context.WithCancel(ctx)
	a := &aheadBatch{b: b, results: results, cancel: cancel, over: make(chan struct{})}
	var game GameDone
	if t.events.Game != nil {
		game = func(_ Job, _ engine.Result, replayed bool) { t.events.Game(replayed) }
	}
	t.aheadMu.Lock()
	t.ahead = a
	t.aheadMu.Unlock()
	go func() {
		defer close(a.over)
		a.err = t.pool.p.Play(actx, b, results, game)
	}()
}

// nextBatch returns the first batch the step after done completed
// generations will play, from the state as that step will find it (the
// validation about to be played changes nothing it reads), by running the
// step on a copy of the tuner that stops at its first batch. It returns
// nil if the copy plays nothing.
func (t *Tuner) nextBatch(ctx context.Context, now func() time.Duration, done int) (*Batch, error) {
	st := t.state.clone()
	st.Generation, st.Finished = done, ""
	// The race after the validation takes its seeds before the next
	// generation takes its own.
	st.SeedCounter += t.raceSeeds()
	var err error
	if st.Optimizer, err = t.opt.MarshalBinary(); err != nil {
		return nil, err
	}
	cp := &capturePool{}
	c := &Tuner{cfg: t.cfg, set: t.set, players: t.players, metric: t.metric, stages: t.stages,
		names: t.names, init: t.init, pool: &aheadPool{p: cp}, stageBegan: t.stageBegan}
	c.pool.t = c
	if err := c.Restore(st); err != nil {
		return nil, err
	}
	if _, err := c.step(ctx, now); !errors.Is(err, errCaptured) {
		return nil, err
	}
	return cp.b, nil
}

// independentValidation reports whether the validation of the mean after
// generation done, in a step whose record says rec, leaves the next
// generation as it would be without it: the run and the stage go on, and
// the validation's figure decides nothing the optimizer sees. A fallback
// can restart the optimizer, and a validation that is not better may
// spend the stage's patience.
func (t *Tuner) independentValidation(rec *Record) bool {
	if rec.Stop != "" || rec.StageEnd != "" || t.cfg.Validation.Fallback > 0 {
		return false
	}
	if p := t.cfg.Validation.Patience; p > 0 && t.state.Stale+1 >= p {
		return false
	}
	return true
}

// aheadState is the Tuner's part of playing ahead.
type aheadState struct {
	aheadMu sync.Mutex
	ahead   *aheadBatch // the batch in play ahead of its generation, or nil
}
