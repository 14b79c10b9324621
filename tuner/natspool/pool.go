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
// JetStream job queue. It is a tuner.SharedPool: several batches play at
// once, each on its own subjects. A batch not marked Ahead publishes its
// jobs at once; an Ahead batch keeps no more jobs published and not done
// than the fleet's slots that the other batches' jobs leave, and publishes
// another as each is done, so that a batch the tuner waits for finds at
// most a job per slot before its own, and its last games leave no slot
// idle while the Ahead batch has games.
type Pool struct {
	nc        *nats.Conn
	js        jetstream.JetStream
	jobs      jetstream.Stream
	results   jetstream.Stream
	consumer  jetstream.Consumer
	o         Options
	local     *Worker // the LocalSlots, or nil
	stopLocal context.CancelFunc
	localDone chan struct{}
	fixedJobs bool // every job GamesPerJob games, as before jobs shrank; for measurements

	mu      sync.Mutex
	told    map[string]bool // refusals already noticed, once per worker and reason
	playing int             // batches in Play
	foreOut int             // jobs of batches not Ahead published and not yet complete
	changed chan struct{}   // closed, and replaced, when foreOut falls
	uneven  bool            // the last batch measured had games of uneven lengths (see cutFor)
}

var _ tuner.SharedPool = (*Pool)(nil)

// Shared implements tuner.SharedPool.
func (p *Pool) Shared() bool { return true }

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
	p := &Pool{nc: nc, js: js, o: o, told: map[string]bool{}, changed: make(chan struct{})}
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
	return p.purgeSubjects(ctx, jobsPrefix+"."+p.o.Run+".>", resultsPrefix+"."+p.o.Run+".>")
}

func (p *Pool) purgeSubjects(ctx context.Context, jobs, results string) error {
	if err := p.jobs.Purge(ctx, jetstream.WithPurgeSubject(jobs)); err != nil {
		return fmt.Errorf("tuner/natspool: purging the run's jobs: %w", err)
	}
	if err := p.results.Purge(ctx, jetstream.WithPurgeSubject(results)); err != nil {
		return fmt.Errorf("tuner/natspool: purging the run's results: %w", err)
	}
	return nil
}

// begin counts a batch in, and purges what the run left on the server if
// no other batch is in play: the subjects of batches in play are theirs.
func (p *Pool) begin(ctx context.Context, ahead bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.playing == 0 {
		if err := p.purge(ctx); err != nil {
			return err
		}
	}
	p.playing++
	return nil
}

// end counts a batch out, with the jobs it left outstanding.
func (p *Pool) end(ahead bool, outstanding int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.playing--
	if !ahead {
		p.foreOut -= outstanding
		p.signal()
	}
}

// signal wakes the Ahead batches waiting for slots; p.mu held.
func (p *Pool) signal() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// addFore counts n more jobs of batches not Ahead outstanding (n < 0: fewer).
func (p *Pool) addFore(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.foreOut += n
	if n < 0 {
		p.signal()
	}
}

// room returns how many more of its left jobs an Ahead batch with out jobs
// outstanding may publish on a fleet of slots slots (0: unknown, then all),
// and the channel that says when that may change: as many as the slots
// that its jobs and the other batches' leave, so that a batch the tuner
// waits for, begun later, finds at most a job per slot before its own.
func (p *Pool) room(slots, out, left int) (int, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if slots == 0 {
		return left, p.changed
	}
	return min(left, max(0, slots-p.foreOut-out)), p.changed
}

func (p *Pool) notify(format string, args ...any) {
	if p.o.Notify != nil {
		p.o.Notify(fmt.Sprintf(format, args...))
	}
}

// Play implements tuner.Pool: it publishes b's games as jobs, waits for
// their results and puts each into its slot.
func (p *Pool) Play(ctx context.Context, b *tuner.Batch, results [][]engine.Result, done tuner.GameDone) (err error) {
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
	if err := p.begin(ctx, b.Ahead); err != nil {
		return err
	}
	outstanding := 0 // jobs published whose games have not all arrived, for end
	defer func() { p.end(b.Ahead, outstanding) }()
	n := p.o.GamesPerJob
	if n <= 0 {
		n = 4
	}
	slots, estimated := p.slots(ctx), time.Now()
	st := newBatchState(b, results, done, n, p.cutFor(slots))
	if st.pending == 0 {
		return ctx.Err()
	}
	abandon := func(err error) error { return p.abandon(err, key) }

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

	common := template(b, pl, p.o.Run, key)
	nonce := rand.Text()[:12] // sets this Play's jobs apart from an earlier publication of the same batch
	seqs := map[uint64]int{}
	published := 0
	// publish sends the next k jobs.
	publish := func(k int) error {
		if err := p.publish(ctx, st, common, nonce, published, published+k, seqs); err != nil {
			return err
		}
		published += k
		outstanding += k
		if !b.Ahead {
			p.addFore(k)
		}
		return nil
	}
	// complete counts the jobs whose games have all arrived since the last
	// call; an Ahead batch then publishes more if there is room.
	var changed <-chan struct{}
	complete := func() error {
		if k := st.newlyComplete(); k > 0 {
			outstanding -= k
			if !b.Ahead {
				p.addFore(-k)
			}
		}
		if !b.Ahead {
			return nil
		}
		if slots > 0 && time.Since(estimated) >= recountEvery {
			slots, estimated = max(slots, p.slots(ctx)), time.Now()
		}
		var k int
		k, changed = p.room(slots, outstanding, len(st.blocks)-published)
		if k == 0 {
			return nil
		}
		return publish(k)
	}
	if !b.Ahead {
		err = publish(len(st.blocks))
	} else {
		err = complete()
	}
	if err != nil {
		return abandon(err)
	}

	idle := p.o.IdleWarning
	if idle <= 0 {
		idle = 30 * time.Second
	}
	tick := time.NewTicker(min(idle/4, 5*time.Second))
	defer tick.Stop()
	var recount <-chan time.Time // an Ahead batch counts the fleet again
	if b.Ahead && slots > 0 {
		t := time.NewTicker(recountEvery)
		defer t.Stop()
		recount = t.C
	}
	var stalledSince time.Time
	warned := false
	for st.pending > 0 {
		select {
		case <-ctx.Done():
			return abandon(fmt.Errorf("tuner/natspool: %w", ctx.Err()))
		case <-recount:
			if err := complete(); err != nil {
				return abandon(err)
			}
		case m := <-incoming:
			if err := p.take(st, m); err != nil {
				return abandon(err)
			}
			if err := complete(); err != nil {
				return abandon(err)
			}
		case <-changed:
			if err := complete(); err != nil {
				return abandon(err)
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
						return abandon(err)
					}
				default:
					drained = true
				}
			}
			if err := st.undelivered(i, adv.Deliveries); err != nil {
				return abandon(err)
			}
			if err := complete(); err != nil {
				return abandon(err)
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
	p.measured(st)
	return nil
}
