package natspool

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/tuner"
	"github.com/evotune/evotune/tuner/playerpool"
)

var (
	// ErrConflict is wrapped by the error of a game with two different
	// results: some worker plays differently from the others.
	ErrConflict = errors.New("tuner/natspool: two different results for one game")
	// ErrMaxDeliver is wrapped by the error of a job handed out
	// MaxDeliver times without a result.
	ErrMaxDeliver = errors.New("tuner/natspool: a job was handed out too often without a result")
	// ErrBadResult is wrapped by errors about a result that does not fit
	// its batch (another seed, a game not asked for).
	ErrBadResult = errors.New("tuner/natspool: a result that does not fit its job")
)

// Options configure a Pool. Only Run is required; every other zero value
// means the documented default.
type Options struct {
	QueueOptions
	// Run identifies the run on the server (see RunID): letters, digits,
	// '-' and '_'.
	Run string
	// GamesPerJob is the most games of a candidate in one job; 0 means
	// 4. Larger jobs cost less per game in messages, smaller ones spread
	// a batch more evenly and lose less when a worker dies. Whatever it
	// says, a batch's jobs shrink to one game towards its end, as far as
	// the slots waiting for jobs when it starts need to share it out.
	GamesPerJob int
	// IdleWarning is how long jobs may wait with no worker taking any
	// before Notify is told; 0 means 30 s.
	IdleWarning time.Duration
	// Notify, if not nil, receives one-line notices for the user: no
	// worker is taking jobs, workers are back, a worker refuses jobs.
	Notify func(msg string)
	// Hint, if not empty, ends the notice that no worker takes jobs: how
	// to start one.
	Hint string
	// LocalSlots, if positive, plays that many games at once in this
	// process too, as a worker of the same queue named LocalName.
	LocalSlots int
	LocalName  string
	// LocalPlayer configures the local slots' player processes for a
	// batch of an external player, which they run with the batch's own
	// command (playerpool.Family.Command): time limits, and the folder
	// of their logs.
	LocalPlayer playerpool.Options
}

// Pool is a tuner.Pool whose games are played by workers through a NATS
// JetStream job queue. It plays one batch at a time.
type Pool struct {
	nc        *nats.Conn
	js        jetstream.JetStream
	jobs      jetstream.Stream
	results   jetstream.Stream
	consumer  jetstream.Consumer
	o         Options
	mu        sync.Mutex      // one batch at a time
	told      map[string]bool // refusals already noticed, once per worker and reason
	local     *Worker         // the LocalSlots, or nil
	stopLocal context.CancelFunc
	localDone chan struct{}
	fixedJobs bool // every job GamesPerJob games, as before jobs shrank; for measurements
}

var _ tuner.Pool = (*Pool)(nil)

// NewPool returns a pool publishing jobs on nc's server, creating (or
// updating) the streams and the workers' consumer there. The caller keeps
// nc and closes it after Close.
func NewPool(ctx context.Context, nc *nats.Conn, o Options) (*Pool, error) {
	if !validToken(o.Run) {
		return nil, fmt.Errorf("tuner/natspool: run id %q: want letters, digits, '-' or '_'", o.Run)
	}
	js, err := newJetStream(nc)
	if err != nil {
		return nil, err
	}
	p := &Pool{nc: nc, js: js, o: o, told: map[string]bool{}}
	if p.jobs, p.results, p.consumer, err = ensureQueue(ctx, js, o.QueueOptions); err != nil {
		return nil, err
	}
	if o.LocalSlots > 0 {
		w, err := NewWorker(nc, WorkerOptions{Name: o.LocalName, Slots: o.LocalSlots})
		if err != nil {
			return nil, err
		}
		p.local = w
		lctx, cancel := context.WithCancel(context.Background())
		p.stopLocal, p.localDone = cancel, make(chan struct{})
		go func() {
			defer close(p.localDone)
			w.Run(lctx)
		}()
	}
	return p, nil
}

// Close stops the local slots and removes the run's jobs and results from
// the server.
func (p *Pool) Close() error {
	if p.stopLocal != nil {
		p.stopLocal()
		<-p.localDone
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return p.purge(ctx)
}

// purge removes the run's waiting jobs and stored results: whatever an
// earlier batch, or an earlier coordinator of the run, left behind.
func (p *Pool) purge(ctx context.Context) error {
	if err := p.jobs.Purge(ctx, jetstream.WithPurgeSubject(jobsPrefix+"."+p.o.Run+".>")); err != nil {
		return fmt.Errorf("tuner/natspool: purging the run's jobs: %w", err)
	}
	if err := p.results.Purge(ctx, jetstream.WithPurgeSubject(resultsPrefix+"."+p.o.Run+".>")); err != nil {
		return fmt.Errorf("tuner/natspool: purging the run's results: %w", err)
	}
	return nil
}

func (p *Pool) notify(format string, args ...any) {
	if p.o.Notify != nil {
		p.o.Notify(fmt.Sprintf(format, args...))
	}
}

// Play implements tuner.Pool: it publishes b's games as jobs, waits for
// their results and puts each into its slot.
func (p *Pool) Play(ctx context.Context, b *tuner.Batch, results [][]engine.Result, done tuner.GameDone) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	key, err := batchKey(b)
	if err != nil {
		return err
	}
	pl, err := players(b)
	if err != nil {
		return err
	}
	if pl.family != nil && p.local != nil {
		// The local slots run the coordinator's own player.
		p.local.usePlayer(*pl.family, p.o.LocalPlayer)
	}
	if err := p.purge(ctx); err != nil {
		return err
	}
	n := p.o.GamesPerJob
	if n <= 0 {
		n = 4
	}
	st := newBatchState(b, results, done, n, p.slots(ctx))
	if st.pending == 0 {
		return ctx.Err()
	}

	// Listen before publishing, so that no result or advisory is missed.
	incoming := make(chan jetstream.Msg, 256)
	stop := make(chan struct{})
	defer close(stop)
	rcons, err := p.js.OrderedConsumer(ctx, ResultsStream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{resultSubject(p.o.Run, key)},
	})
	if err != nil {
		return fmt.Errorf("tuner/natspool: reading results: %w", err)
	}
	cc, err := rcons.Consume(func(m jetstream.Msg) {
		select {
		case incoming <- m:
		case <-stop:
		}
	})
	if err != nil {
		return fmt.Errorf("tuner/natspool: reading results: %w", err)
	}
	defer cc.Stop()
	advisories := make(chan *nats.Msg, 64)
	sub, err := p.nc.ChanSubscribe("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES."+JobsStream+"."+WorkersConsumer, advisories)
	if err != nil {
		return fmt.Errorf("tuner/natspool: %w", err)
	}
	defer sub.Unsubscribe()

	seqs, err := p.publish(ctx, st, template(b, pl, p.o.Run, key))
	if err != nil {
		return p.abandon(err)
	}

	idle := p.o.IdleWarning
	if idle <= 0 {
		idle = 30 * time.Second
	}
	tick := time.NewTicker(min(idle/4, 5*time.Second))
	defer tick.Stop()
	var stalledSince time.Time
	warned := false
	for st.pending > 0 {
		select {
		case <-ctx.Done():
			return p.abandon(fmt.Errorf("tuner/natspool: %w", ctx.Err()))
		case m := <-incoming:
			if err := p.take(st, m); err != nil {
				return p.abandon(err)
			}
		case a := <-advisories:
			var adv struct {
				StreamSeq  uint64 `json:"stream_seq"`
				Deliveries uint64 `json:"deliveries"`
			}
			if json.Unmarshal(a.Data, &adv) != nil {
				continue
			}
			i, ok := seqs[adv.StreamSeq]
			if !ok {
				continue // another run's job
			}
			// A result may be on its way from the last delivery.
			for drained := false; !drained; {
				select {
				case m := <-incoming:
					if err := p.take(st, m); err != nil {
						return p.abandon(err)
					}
				default:
					drained = true
				}
			}
			if err := st.undelivered(i, adv.Deliveries); err != nil {
				return p.abandon(err)
			}
		case <-tick.C:
			info, err := p.consumer.Info(ctx)
			if err != nil {
				continue // the server may be away; the connection reconnects
			}
			switch {
			case info.NumAckPending > 0:
				if warned {
					p.notify("workers are taking jobs again")
				}
				stalledSince, warned = time.Time{}, false
			case info.NumPending > 0 && stalledSince.IsZero():
				stalledSince = time.Now()
			case info.NumPending > 0 && !warned && time.Since(stalledSince) >= idle:
				msg := fmt.Sprintf("no worker has taken a job for %v; %d games are waiting", time.Since(stalledSince).Round(time.Second), st.pending)
				if p.o.Hint != "" {
					msg += " (" + p.o.Hint + ")"
				}
				p.notify("%s", msg)
				warned = true
			}
		}
	}
	return nil
}

// slots estimates how many games the workers play at once: the slots
// waiting for a job, and those playing one (of another run; this run's
// jobs were purged), or 0 if the server cannot say.
func (p *Pool) slots(ctx context.Context) int {
	if p.fixedJobs {
		return 0
	}
	info, err := p.consumer.Info(ctx)
	if err != nil {
		return 0
	}
	return info.NumWaiting + info.NumAckPending
}

// abandon removes the run's remaining jobs, so that workers stop spending
// time on a batch nobody waits for, and returns err.
func (p *Pool) abandon(err error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p.purge(ctx)
	return err
}

// publishWindow bounds the jobs awaiting the server's acknowledgement.
const publishWindow = 512

// publish sends st's jobs and returns the stream sequence of each.
func (p *Pool) publish(ctx context.Context, st *batchState, common job) (map[uint64]int, error) {
	nonce := rand.Text()[:12] // sets this Play's jobs apart from an earlier publication of the same batch
	seqs := make(map[uint64]int, len(st.blocks))
	for start := 0; start < len(st.blocks); start += publishWindow {
		var futures []jetstream.PubAckFuture
		for i := start; i < min(start+publishWindow, len(st.blocks)); i++ {
			bl := st.blocks[i]
			data, err := json.Marshal(st.job(i, common))
			if err != nil {
				return nil, fmt.Errorf("tuner/natspool: candidate %d: %w", bl.cand, err)
			}
			m := nats.NewMsg(jobSubject(p.o.Run, common.Batch))
			m.Data = data
			m.Header.Set(jetstream.MsgIDHeader, fmt.Sprintf("%s.%s.%s.%d.%d", p.o.Run, common.Batch, nonce, bl.cand, bl.games[0]))
			f, err := p.js.PublishMsgAsync(m)
			if err != nil {
				return nil, fmt.Errorf("tuner/natspool: publishing a job: %w", err)
			}
			futures = append(futures, f)
		}
		for k, f := range futures {
			select {
			case ack := <-f.Ok():
				seqs[ack.Sequence] = start + k
			case err := <-f.Err():
				return nil, fmt.Errorf("tuner/natspool: publishing a job: %w", err)
			case <-ctx.Done():
				return nil, fmt.Errorf("tuner/natspool: %w", ctx.Err())
			}
		}
	}
	return seqs, nil
}

// take hands one result message to the batch's bookkeeping and tells the
// user, once per worker and reason, of a refusal.
func (p *Pool) take(st *batchState, m jetstream.Msg) error {
	var r result
	if err := json.Unmarshal(m.Data(), &r); err != nil {
		return fmt.Errorf("%w: unreadable message on %s: %w", ErrBadResult, m.Subject(), err)
	}
	if r.Refused == "" {
		return st.add(&r)
	}
	st.refuse(&r)
	if key := r.Worker + "\x00" + r.Refused; !p.told[key] {
		p.told[key] = true
		p.notify("worker %s refuses jobs: %s", r.Worker, r.Refused)
	}
	return nil
}
