package natspool

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A job's life on a worker's slot: the message taken and read, the games
// played (with the waiting jobs joined to it), InProgress pings while
// they play, and the answer: results and an ack, a refusal and a delayed
// nak, or a nak on shutdown.

// A taken job is a job message a slot holds: the message, the subject of
// its answer, its stream sequence and the job it carries.
type taken struct {
	msg     jetstream.Msg
	subject string
	seq     uint64
	j       *job
}

// open reads a job message: ok is false, and the message dealt with, when
// it is not a job (terminated) or cannot be read (refused).
func (w *Worker) open(ctx context.Context, msg jetstream.Msg) (t *taken, ok bool) {
	t, err := readJob(msg)
	switch {
	case t == nil:
		msg.Term() // not a job of this program: never hand it out again
		return nil, false
	case err != nil:
		w.refuse(ctx, t, fmt.Sprintf("cannot read the job (a newer evotune?): %v", err))
		w.keepAway(ctx)
		return nil, false
	}
	return t, true
}

// readJob reads a job message without answering it: t is nil if msg is not
// a job, and t.j an empty job if err says why it cannot be read.
func readJob(msg jetstream.Msg) (t *taken, err error) {
	subject, ok := resultSubjectFor(msg.Subject())
	if !ok {
		return nil, nil
	}
	t = &taken{msg: msg, subject: subject, j: &job{}}
	if md, err := msg.Metadata(); err == nil {
		t.seq = md.Sequence.Stream
	}
	j, err := decodeJob(msg.Data())
	if err != nil {
		return t, err
	}
	t.j = j
	return t, nil
}

// handle plays the job msg and answers it: results then ack, or a refusal
// then a delayed nak, or (on shutdown) a nak so that another worker takes
// it now. With join, an external player's job may first gather waiting
// jobs to play with it (see gather), each answered as if played alone;
// handle returns the waiting job it took that could not join, which the
// slot plays next (with join false).
func (w *Worker) handle(ctx context.Context, cons jetstream.Consumer, msg jetstream.Msg, sl *workerSlot, join bool) (next jetstream.Msg) {
	if ctx.Err() != nil {
		msg.Nak()
		return nil
	}
	first, ok := w.open(ctx, msg)
	if !ok {
		return nil
	}
	pl, reason := w.prepare(first.j, sl)
	if reason != "" {
		w.refuse(ctx, first, reason)
		w.keepAway(ctx)
		return nil
	}
	defer pl.release()
	if w.beforePlay != nil {
		if err := w.beforePlay(first.j); err != nil {
			return nil
		}
	}
	group := []*taken{first}
	if join && pl.join != nil {
		group, next = w.gather(ctx, cons, group, pl.join)
	}
	held := make([]jetstream.Msg, 0, len(group)+1)
	for _, t := range group {
		held = append(held, t.msg)
	}
	if next != nil {
		held = append(held, next)
	}

	stop := w.ping(cons, held)
	began := time.Now()
	res, err := pl.play(ctx, group)
	w.busy.Add(int64(time.Since(began)))
	stop()
	switch {
	case ctx.Err() != nil:
		for _, m := range held {
			m.Nak() // stopping: another worker takes the jobs now
		}
		return nil
	case err != nil:
		// The player failed for good (see playerpool.MaxFailures): each
		// job played goes back with the player's error as the reason,
		// which ends the run if no other worker plays it; the job not
		// begun goes back as it came.
		for _, t := range group {
			w.refuse(ctx, t, err.Error())
		}
		if next != nil {
			next.Nak()
		}
		w.keepAway(ctx)
		return nil
	}
	for i, t := range group {
		w.jobs.Add(1)
		w.games.Add(int64(len(res[i])))
		j := t.j
		if err := w.answer(ctx, t, &result{Run: j.Run, Batch: j.Batch, Candidate: j.Candidate, Games: j.Games, Results: res[i], Worker: w.name}); err != nil {
			w.logf("cannot deliver the results of a job (it will be played again): %v", err)
			continue
		}
		t.msg.Ack()
	}
	return next
}

// ping tells the server, while the jobs of msgs are held, that they are
// alive, so that a long game is not taken for a dead worker; the function
// it returns stops it.
func (w *Worker) ping(cons jetstream.Consumer, msgs []jetstream.Msg) (stop func()) {
	every := time.Second
	if info := cons.CachedInfo(); info != nil && info.Config.AckWait > 0 {
		every = info.Config.AckWait / 3
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				for _, m := range msgs {
					m.InProgress()
				}
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

// refuse tells the coordinator and the log why t's job cannot be played
// here and hands it back for another worker.
func (w *Worker) refuse(ctx context.Context, t *taken, reason string) {
	w.once("refusing jobs: %s", reason)
	j := t.j
	w.answer(ctx, t, &result{Run: j.Run, Batch: j.Batch, Candidate: j.Candidate, Games: j.Games, Worker: w.name, Refused: reason})
	t.msg.NakWithDelay(refuseDelay)
}

// keepAway keeps a slot that refused a job away from the queue for a
// while (see refuseBackoff).
func (w *Worker) keepAway(ctx context.Context) { sleep(ctx, w.backoff) }

// answer publishes r for the job msg, with a message id naming this
// delivery, so that a publish retried by the client is stored once while
// the answers of two deliveries (two workers) both reach the coordinator.
func (w *Worker) answer(ctx context.Context, t *taken, r *result) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	id := w.name
	if md, err := t.msg.Metadata(); err == nil {
		id = fmt.Sprintf("%d.%d.%s", md.Sequence.Stream, md.NumDelivered, w.name)
	}
	m := nats.NewMsg(t.subject)
	m.Data = data
	m.Header.Set(jetstream.MsgIDHeader, id)
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_, err = w.js.PublishMsg(pctx, m)
	return err
}
