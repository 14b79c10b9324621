package playerpool

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/tuner"
)

// TestSharedOrder plays three batches at once on one slot, which takes
// their candidates in the pool's order: the batches not Ahead in the
// order they came, then the Ahead one, whatever order they came in. Each
// batch's results are those it gets played alone.
func TestSharedOrder(t *testing.T) {
	fam := probe(t, playerCommand("serve", "1"))
	base := fam.Defaults()
	other := append([]float64{base[0] / 2}, base[1:]...)
	first := &tuner.Batch{Players: fam, Vectors: [][]float64{base}, Seeds: testSeeds(1), MaxMoves: 20}
	ahead := &tuner.Batch{Players: fam, Vectors: [][]float64{other, base}, Seeds: testSeeds(2), MaxMoves: 20, Ahead: true}
	second := &tuner.Batch{Players: fam, Vectors: [][]float64{other}, Seeds: testSeeds(3), MaxMoves: 20}
	p := New(1, testOptions(t))
	defer p.Close()
	var (
		mu    sync.Mutex
		order []string
	)
	record := func(name string) tuner.GameDone {
		return func(tuner.Job, engine.Result, bool) {
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
		}
	}
	results := map[*tuner.Batch][][]engine.Result{}
	for _, b := range []*tuner.Batch{first, ahead, second} {
		results[b] = newPlayResults(b)
	}
	// The first batch's game holds the slot until the others wait in the
	// queue.
	held, hold := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		err := p.Play(context.Background(), first, results[first], func(j tuner.Job, r engine.Result, replayed bool) {
			record("first")(j, r, replayed)
			close(held)
			<-hold
		})
		if err != nil {
			t.Error(err)
		}
	})
	<-held
	for b, name := range map[*tuner.Batch]string{ahead: "ahead", second: "second"} {
		wg.Go(func() {
			if err := p.Play(context.Background(), b, results[b], record(name)); err != nil {
				t.Error(err)
			}
		})
	}
	for {
		p.mu.Lock()
		n := len(p.queue)
		p.mu.Unlock()
		if n == 3 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	close(hold)
	wg.Wait()
	want := []string{"first", "second", "second", "second", "ahead", "ahead", "ahead", "ahead"}
	if !slices.Equal(order, want) {
		t.Errorf("games ended in the order %v, want %v", order, want)
	}
	for b, rs := range results {
		alone := New(1, testOptions(t))
		want := newPlayResults(b)
		err := alone.Play(context.Background(), b, want, nil)
		alone.Close()
		if err != nil {
			t.Fatal(err)
		}
		for c := range rs {
			if !slices.Equal(rs[c], want[c]) {
				t.Errorf("candidate %d: %v shared, %v alone", c, rs[c], want[c])
			}
		}
	}
}

// TestSharedCancel cancels an Ahead batch that waits in the queue behind
// another: it returns at once with the cancellation, and the other ends.
func TestSharedCancel(t *testing.T) {
	fam := probe(t, playerCommand("serve", "1"))
	fore := &tuner.Batch{Players: fam, Vectors: [][]float64{fam.Defaults()}, Seeds: testSeeds(2), MaxMoves: 30}
	ahead := &tuner.Batch{Players: fam, Vectors: [][]float64{fam.Defaults()}, Seeds: testSeeds(3), MaxMoves: 30, Ahead: true}
	p := New(1, testOptions(t))
	defer p.Close()
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := p.Play(context.Background(), fore, newPlayResults(fore), func(tuner.Job, engine.Result, bool) {
			once.Do(func() { close(started); <-release })
		}); err != nil {
			t.Error(err)
		}
	})
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- p.Play(ctx, ahead, newPlayResults(ahead), nil) }()
	time.Sleep(10 * time.Millisecond)
	cancel()
	select {
	case err := <-errc:
		if ctx.Err() == nil || err == nil {
			t.Errorf("cancelled batch: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a cancelled batch waiting in the queue did not return")
	}
	close(release)
	wg.Wait()
}

func newPlayResults(b *tuner.Batch) [][]engine.Result {
	rs := make([][]engine.Result, len(b.Vectors))
	for c := range rs {
		rs[c] = make([]engine.Result, len(b.Seeds))
	}
	return rs
}
