package natspool

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/tuner"
	"github.com/evotune/evotune/tuner/playerpool"
)

// WorkerOptions configure a Worker; zero values mean the defaults.
type WorkerOptions struct {
	// Name identifies the worker in results and messages; "" means
	// HOST-PID.
	Name string
	// Slots is the number of jobs played at once; 0 means one per core.
	Slots int
	// Logf, if not nil, receives one-line messages: refusals, waiting for
	// a queue, jobs handed back.
	Logf func(format string, args ...any)
	// Player, if not empty, is the command of an external player (the
	// program, then its arguments) whose jobs the worker plays: those of
	// runs of a player that declares what this one does. Without it the
	// worker refuses every job of an external player.
	Player []string
	// PlayerOptions configure the player's processes: time limits, boards
	// per request, and LogDir, where slot N's player writes slot-N.log
	// ("" means temporary files).
	PlayerOptions playerpool.Options
}

// refuseDelay is how long a refused job waits before it is handed out
// again.
const refuseDelay = time.Second

// refuseBackoff is how long a slot that refused a job waits before it asks
// for another: every delivery counts towards MaxDeliver, so a worker that
// cannot play a run's jobs must leave them to the workers that can rather
// than take each one back as soon as it is free.
const refuseBackoff = 10 * time.Second

// A Worker plays jobs from the queue of a server until stopped. Each of
// its slots pulls one job at a time, plays its games one after another on
// a searcher it keeps while the search stays the same, publishes the
// results and then acks the job.
//
// A slot of an external player may take more jobs at once, so that its
// player's move requests carry the boards of several (see gather and
// joiner.wants for the rule): without waiting, only while every other
// slot of the fleet still finds a job waiting, while the boards fit the
// player's batch (playerpool.Options.Batch) and the slot holds no more
// than its guided share of the batch's games not yet begun. A player of
// one parameter set joins only jobs of its batch and candidate; one that
// holds several, any of its run. The jobs play as one batch on the slot's
// player pool, and each is answered and acked as if played alone: the
// same results, since a player's move depends on its board and
// parameters only.
type Worker struct {
	js    jetstream.JetStream
	name  string
	slots int
	logf  func(format string, args ...any)

	rules      int              // the rules version this worker plays; tests fake others
	backoff    time.Duration    // refuseBackoff; tests shorten it
	beforePlay func(*job) error // test hook: an error drops the job unanswered

	cache *tuner.PlayerCache // evaluators and searchers, shared by the slots

	playerMu   sync.Mutex
	player     *playerpool.Family // the external player, or nil
	playerOpts playerpool.Options

	logMu  sync.Mutex
	logged map[string]bool

	jobs, games atomic.Int64
	joined      atomic.Int64 // jobs a slot gathered to another, to share its requests
	busy        atomic.Int64 // nanoseconds the slots spent playing, summed
}

// NewWorker returns a worker pulling jobs through nc. A worker with a
// Player starts it once, to read its declaration, and fails with the
// player's one-line error if it cannot.
func NewWorker(nc *nats.Conn, o WorkerOptions) (*Worker, error) {
	js, err := newJetStream(nc)
	if err != nil {
		return nil, err
	}
	name := o.Name
	if name == "" {
		host, _ := os.Hostname()
		name = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	w := &Worker{js: js, name: name, slots: engine.Workers(o.Slots), logf: logf,
		rules: engine.RulesVersion, backoff: refuseBackoff, cache: tuner.NewPlayerCache(), logged: map[string]bool{}}
	if len(o.Player) > 0 {
		// The handshake's own limit bounds the probe.
		fam, err := playerpool.Probe(context.Background(), o.Player, "", o.PlayerOptions)
		if err != nil {
			return nil, err
		}
		w.usePlayer(fam, o.PlayerOptions)
	}
	return w, nil
}

// Name returns the worker's name.
func (w *Worker) Name() string { return w.name }

// Slots returns the number of jobs the worker plays at once.
func (w *Worker) Slots() int { return w.slots }

// Played returns the jobs and games the worker has played to the end
// (counted before their results are sent).
func (w *Worker) Played() (jobs, games int64) { return w.jobs.Load(), w.games.Load() }

// Run plays jobs until ctx is done, then hands the jobs in flight back to
// the queue at once and returns nil. It waits for a queue that does not
// exist yet and outlives the server going away: the connection reconnects
// and the slots bind to the queue again.
func (w *Worker) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for i := range w.slots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sl := &workerSlot{index: i + 1}
			defer sl.close()
			w.slot(ctx, sl)
		}()
	}
	wg.Wait()
	return nil
}

// once logs a message the first time it is seen, so a refusal repeated
// for every job of a batch is one line.
func (w *Worker) once(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	w.logMu.Lock()
	seen := w.logged[msg]
	w.logged[msg] = true
	w.logMu.Unlock()
	if !seen {
		w.logf("%s", msg)
	}
}

func (w *Worker) slot(ctx context.Context, sl *workerSlot) {
	var cons jetstream.Consumer
	for ctx.Err() == nil && !w.js.Conn().IsClosed() {
		if cons == nil {
			c, err := w.js.Consumer(ctx, JobsStream, WorkersConsumer)
			if err != nil {
				if ctx.Err() == nil && !w.js.Conn().IsClosed() {
					w.once("waiting for a run to create the job queue (%v)", err)
				}
				sleep(ctx, time.Second)
				continue
			}
			cons = c
		}
		fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		msg, err := cons.Next(jetstream.FetchContext(fctx))
		cancel()
		switch {
		case ctx.Err() != nil:
			return
		case errors.Is(err, nats.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
			continue
		case err != nil:
			// The server went away or the queue was deleted (a new
			// embedded server, say): bind again once it is back.
			cons = nil
			sleep(ctx, time.Second)
			continue
		}
		// A job that could not join the others is the slot's next.
		for next := w.handle(ctx, cons, msg, sl, true); next != nil; {
			next = w.handle(ctx, cons, next, sl, false)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// A plan is how a slot plays a job it took: play plays the job, or the
// group of jobs gathered to it, and returns a result per game of each job
// in order; release, called once they are played, returns what play
// borrowed; join, if not nil, says which waiting jobs may join it.
type plan struct {
	play    func(ctx context.Context, group []*taken) ([][]engine.Result, error)
	release func()
	join    *joiner
}

// prepare returns how slot sl plays j, or the reason the worker cannot
// replay j exactly.
func (w *Worker) prepare(j *job, sl *workerSlot) (plan, string) {
	switch {
	case j.Format != JobFormat:
		return plan{}, fmt.Sprintf("job format %d, this worker reads format %d: run the same evotune version on coordinator and workers", j.Format, JobFormat)
	case j.Rules > w.rules:
		return plan{}, fmt.Sprintf("job wants rules version %d, this worker plays version %d: upgrade evotune on this worker", j.Rules, w.rules)
	case j.Rules != w.rules:
		return plan{}, fmt.Sprintf("job wants rules version %d, this worker plays version %d: run the coordinator's evotune version here", j.Rules, w.rules)
	}
	if j.Player != nil {
		return w.preparePlayer(j, sl)
	}
	searcher, reason := w.prepareFeatures(j)
	if reason != "" {
		return plan{}, reason
	}
	// A feature set's job is played alone: its games run one after
	// another on a searcher in this process, with no request to share.
	play := func(ctx context.Context, group []*taken) ([][]engine.Result, error) {
		res := make([]engine.Result, len(j.Seeds))
		for i, seed := range j.Seeds {
			var err error
			if res[i], err = engine.PlayContext(ctx, seed, searcher, j.MaxMoves); err != nil {
				return nil, err
			}
		}
		return [][]engine.Result{res}, nil
	}
	return plan{play: play, release: func() { w.cache.Return(j.Search, searcher) }}, ""
}

// prepareFeatures lends a searcher of j's search that evaluates with j's
// weights, or returns the reason the worker cannot replay j exactly.
func (w *Worker) prepareFeatures(j *job) (engine.Searcher, string) {
	set, err := eval.Set(j.Features)
	if err != nil {
		return nil, fmt.Sprintf("feature set %q unknown here: upgrade evotune on this worker", j.Features)
	}
	if v := set.Version(); v != j.FeaturesVersion {
		return nil, fmt.Sprintf("feature set %s computes differently here (version %s, the job wants %s): run the coordinator's evotune version here", j.Features, v, j.FeaturesVersion)
	}
	e, err := w.cache.Evaluator(set, j.Weights)
	if err != nil {
		return nil, fmt.Sprintf("candidate %d: %v", j.Candidate, err)
	}
	s, err := w.cache.Searcher(j.Search, e)
	if err != nil {
		return nil, err.Error()
	}
	return s, ""
}
