package tuner

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"sync"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/population"
)

// errNoPlayers is the error of a run of a player given no players.
var errNoPlayers = errors.New("tuner: no players were given to play the run's player")

// Playing ahead. The start's validation and the first generation do not
// depend on each other: the validation's games are on seeds no generation
// plays, and its figure decides nothing the search does. So on a pool that
// plays batches at once (SharedPool) the first generation's first batch
// starts as the validation begins, marked Ahead: the validation's games go
// first, and the slots its last games leave idle play the generation's.
// Step then finds that batch played, or in play, and waits for it instead
// of playing it again.
//
// The batch is the generation's own plan (generation.go) made on a copy of
// the optimizer and the seed counter, so it is the batch the step will ask
// for, from the same state. A batch that does not match (it cannot, but
// the check is cheap) is played again, and the one played ahead is dropped:
// the results are those of the batch asked for in any case; only the games
// played change.
//
// A game played ahead belongs to the first generation's batch, so it is
// journalled under generation 0, whose checkpoint the first generation is
// replayed from (see journalCache), and counted in State.Games when the
// generation takes it, as if played then.

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

// playAhead starts the next generation's first batch, if the pool plays
// batches at once; the caller is about to validate the start.
func (t *Tuner) playAhead(ctx context.Context) {
	t.dropAhead()
	if !shared(t.pool.p) {
		return
	}
	b, err := t.nextBatch()
	if err != nil {
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

// nextBatch returns the first batch the next generation will play: its
// plan made on a copy of the optimizer and the seed counter, which it
// leaves as they are.
func (t *Tuner) nextBatch() (*Batch, error) {
	opt, err := t.optimizerCopy()
	if err != nil {
		return nil, err
	}
	at := t.state.SeedCounter
	g := t.plan(opt, &at)
	players := t.playersOf(t.search)
	if players == nil {
		return nil, errNoPlayers
	}
	return &Batch{Generation: t.state.Generation, Players: players, Vectors: g.weights, Seeds: g.seeds,
		MaxMoves: t.cfg.Fitness.MaxMoves, Jobs: g.firstJobs()}, nil
}

// optimizerCopy returns a copy of the tuner's optimizer: another of the
// current stage, holding its state.
func (t *Tuner) optimizerCopy() (population.Optimizer, error) {
	st := t.stages[t.state.Stage]
	opt, err := newOptimizer(t.cfg, st, optimizerSeed(t.cfg.Seed, t.state.Stage), t.set, t.names, t.free, t.base, t.init)
	if err != nil {
		return nil, err
	}
	data, err := t.opt.MarshalBinary()
	if err != nil {
		return nil, err
	}
	if err := opt.UnmarshalBinary(data); err != nil {
		return nil, err
	}
	return opt, nil
}

// aheadState is the Tuner's part of playing ahead.
type aheadState struct {
	aheadMu sync.Mutex
	ahead   *aheadBatch // the batch in play ahead of its generation, or nil
}
