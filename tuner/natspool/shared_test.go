package natspool

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// TestAheadWaitsForSlots plays two batches at once on one slot: an Ahead
// batch, begun first, has one job in play when the other (which the tuner
// would wait for) begins; the slot then plays all of the other's jobs
// before the Ahead batch's next. Both get the local pool's results.
func TestAheadWaitsForSlots(t *testing.T) {
	s := startServer(t, Credentials{})
	rng := rand.New(rand.NewPCG(31, 32))
	ahead := testBatch(rng, 5, 4, 1, false)
	ahead.Ahead = true
	fore := testBatch(rng, 4, 3, 1, false)
	aheadKey, _ := batchKey(ahead)
	p := newPool(t, connect(t, s, "c"), Options{GamesPerJob: 1})
	w := newWorker(t, connect(t, s, "w"), "w", 1)
	var (
		mu    sync.Mutex
		order []string
	)
	foreOut := make(chan struct{}) // the fore batch's jobs wait in the queue
	var first sync.Once
	w.beforePlay = func(j *job) error {
		mu.Lock()
		if j.Batch == aheadKey {
			order = append(order, "ahead")
		} else {
			order = append(order, "fore")
		}
		mu.Unlock()
		first.Do(func() { <-foreOut })
		return nil
	}
	startWorker(t, w)
	waitSlots(t, p, 1) // the pool counts the slot
	var wg sync.WaitGroup
	var aheadGot = newResults(ahead)
	wg.Go(func() {
		var err error
		if aheadGot, err = playDist(t, p, ahead); err != nil {
			t.Error(err)
		}
	})
	for { // the ahead batch's first job is in the slot's hands
		mu.Lock()
		n := len(order)
		mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	var foreGot = newResults(fore)
	wg.Go(func() {
		var err error
		if foreGot, err = playDist(t, p, fore); err != nil {
			t.Error(err)
		}
	})
	for {
		info, err := p.consumer.Info(context.Background())
		if err == nil && info.NumPending >= 3 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	close(foreOut)
	wg.Wait()
	want := []string{"ahead", "fore", "fore", "fore", "ahead", "ahead", "ahead"}
	if len(order) != len(want) {
		t.Fatalf("jobs played in the order %v, want %v", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("jobs played in the order %v, want %v", order, want)
		}
	}
	sameResults(t, aheadGot, playLocal(t, ahead))
	sameResults(t, foreGot, playLocal(t, fore))
}

// waitSlots waits until the server counts n slots waiting for a job of
// p's queue.
func waitSlots(t testing.TB, p *Pool, n int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		info, err := p.consumer.Info(context.Background())
		if err == nil && info.NumWaiting >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server does not count %d slots waiting for a job: %+v, %v", n, info, err)
		}
	}
}
