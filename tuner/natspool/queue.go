package natspool

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// QueueOptions shape the job queue a coordinator creates (or updates) on
// its server. The zero value means the defaults below.
type QueueOptions struct {
	// AckWait is how long a worker may hold a job without a sign of life
	// before the job goes to another worker; 0 means 30 s. Workers ping
	// every third of it while they play, so it bounds how long a dead
	// worker delays a job, not how long a game may take.
	AckWait time.Duration
	// MaxDeliver is how many times a job is handed out before the run
	// gives up on it with ErrMaxDeliver; 0 means 5.
	MaxDeliver int
}

func (o QueueOptions) ackWait() time.Duration {
	if o.AckWait > 0 {
		return o.AckWait
	}
	return DefaultAckWait
}

// DefaultAckWait is the AckWait of the zero QueueOptions.
const DefaultAckWait = 30 * time.Second

func (o QueueOptions) maxDeliver() int {
	if o.MaxDeliver > 0 {
		return o.MaxDeliver
	}
	return 5
}

// ensureQueue creates or updates the two streams and the workers'
// consumer, and returns them. The streams are shared by every run on the
// server.
func ensureQueue(ctx context.Context, js jetstream.JetStream, o QueueOptions) (jobs, results jetstream.Stream, workers jetstream.Consumer, err error) {
	jobs, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        JobsStream,
		Description: "evotune jobs: a candidate and a block of seeds each",
		Subjects:    []string{jobsPrefix + ".>"},
		Retention:   jetstream.WorkQueuePolicy,
		Storage:     jetstream.FileStorage,
		MaxAge:      24 * time.Hour,
		Duplicates:  2 * time.Minute,
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("tuner/natspool: stream %s: %w", JobsStream, err)
	}
	results, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        ResultsStream,
		Description: "evotune results: the games of a job, or a worker's refusal",
		Subjects:    []string{resultsPrefix + ".>"},
		Retention:   jetstream.LimitsPolicy,
		Storage:     jetstream.FileStorage,
		MaxAge:      24 * time.Hour,
		Duplicates:  2 * time.Minute,
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("tuner/natspool: stream %s: %w", ResultsStream, err)
	}
	workers, err = jobs.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
		Durable:       WorkersConsumer,
		Description:   "evotune workers, all runs",
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       o.ackWait(),
		MaxDeliver:    o.maxDeliver(),
		DeliverPolicy: jetstream.DeliverAllPolicy,
		MaxAckPending: -1,
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("tuner/natspool: consumer %s: %w", WorkersConsumer, err)
	}
	return jobs, results, workers, nil
}
