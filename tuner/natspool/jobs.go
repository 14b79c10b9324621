package natspool

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

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

// abandon removes the batch's remaining jobs, so that workers stop
// spending time on a batch nobody waits for, and returns err.
func (p *Pool) abandon(err error, key string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p.purgeSubjects(ctx, jobSubject(p.o.Run, key), resultSubject(p.o.Run, key))
	return err
}

// recountEvery is how often an Ahead batch asks the server again how many
// slots the fleet has: a slot between two jobs when the batch began was
// not counted, and the fleet may grow.
const recountEvery = 250 * time.Millisecond

// publishWindow bounds the jobs awaiting the server's acknowledgement.
const publishWindow = 512

// publish sends st's jobs from to to and records the stream sequence of
// each in seqs.
func (p *Pool) publish(ctx context.Context, st *batchState, common job, nonce string, from, to int, seqs map[uint64]int) error {
	for start := from; start < to; start += publishWindow {
		var futures []jetstream.PubAckFuture
		for i := start; i < min(start+publishWindow, to); i++ {
			bl := st.blocks[i]
			data, err := json.Marshal(st.job(i, common))
			if err != nil {
				return fmt.Errorf("tuner/natspool: candidate %d: %w", bl.cand, err)
			}
			m := nats.NewMsg(jobSubject(p.o.Run, common.Batch))
			m.Data = data
			m.Header.Set(jetstream.MsgIDHeader, fmt.Sprintf("%s.%s.%s.%d.%d", p.o.Run, common.Batch, nonce, bl.cand, bl.games[0]))
			f, err := p.js.PublishMsgAsync(m)
			if err != nil {
				return fmt.Errorf("tuner/natspool: publishing a job: %w", err)
			}
			futures = append(futures, f)
		}
		for k, f := range futures {
			select {
			case ack := <-f.Ok():
				seqs[ack.Sequence] = start + k
			case err := <-f.Err():
				return fmt.Errorf("tuner/natspool: publishing a job: %w", err)
			case <-ctx.Done():
				return fmt.Errorf("tuner/natspool: %w", ctx.Err())
			}
		}
	}
	return nil
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
	key := r.Worker + "\x00" + r.Refused
	p.mu.Lock()
	told := p.told[key]
	p.told[key] = true
	p.mu.Unlock()
	if !told {
		p.notify("worker %s refuses jobs: %s", r.Worker, r.Refused)
	}
	return nil
}
