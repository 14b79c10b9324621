package tuner

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

// otherPlayers is a family of players of a kind the local pool does not
// play.
type otherPlayers struct{}

func (otherPlayers) VectorNames() []string { return []string{"x"} }

func TestLocalPoolRefusesOtherPlayers(t *testing.T) {
	for _, p := range []Players{otherPlayers{}, nil, FeaturePlayers{}} {
		b := &Batch{Players: p, Vectors: [][]float64{{1}}, Seeds: []uint64{1}}
		err := NewLocalPool(1).Play(context.Background(), b, [][]engine.Result{{{}}}, nil)
		if !errors.Is(err, ErrPlayers) {
			t.Errorf("%T: %v, want ErrPlayers", p, err)
		}
	}
}

// testBatch returns a batch of the standard set at 1 ply: candidates
// candidates on seeds seeds, games of at most moves moves.
func testBatch(t *testing.T, candidates int, seeds []uint64, moves int) *Batch {
	t.Helper()
	set, err := eval.Set("standard")
	if err != nil {
		t.Fatal(err)
	}
	b := &Batch{Players: FeaturePlayers{Set: set, Search: engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 1}},
		Seeds: seeds, MaxMoves: moves}
	for c := range candidates {
		v := set.DefaultVector()
		v[0] += float64(c)
		b.Vectors = append(b.Vectors, v)
	}
	return b
}

func newResults(b *Batch) [][]engine.Result {
	rs := make([][]engine.Result, len(b.Vectors))
	for c := range rs {
		rs[c] = make([]engine.Result, len(b.Seeds))
	}
	return rs
}

// TestLocalPoolOrder plays three batches at once on one worker, which
// takes their games in the pool's order: the batches not Ahead in the
// order they came, then the Ahead one, whatever order they came in. Each
// batch's results are those it gets played alone.
func TestLocalPoolOrder(t *testing.T) {
	p := NewLocalPool(1)
	first := testBatch(t, 1, []uint64{1, 2}, 20)
	ahead := testBatch(t, 2, []uint64{3, 4}, 20)
	ahead.Ahead = true
	second := testBatch(t, 1, []uint64{5}, 20)
	var (
		mu    sync.Mutex
		order []string
	)
	record := func(name string) GameDone {
		return func(Job, engine.Result, bool) {
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
		}
	}
	// The first batch's first game holds the worker until the others
	// wait in the queue.
	hold := make(chan struct{})
	held := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	results := map[*Batch][][]engine.Result{first: newResults(first), ahead: newResults(ahead), second: newResults(second)}
	wg.Go(func() {
		err := p.Play(context.Background(), first, results[first], func(j Job, r engine.Result, replayed bool) {
			record("first")(j, r, replayed)
			once.Do(func() { close(held); <-hold })
		})
		if err != nil {
			t.Error(err)
		}
	})
	<-held
	for _, b := range []*Batch{ahead, second} {
		wg.Go(func() {
			if err := p.Play(context.Background(), b, results[b], record(map[*Batch]string{ahead: "ahead", second: "second"}[b])); err != nil {
				t.Error(err)
			}
		})
	}
	for { // until both wait in the queue
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
	want := []string{"first", "first", "second", "ahead", "ahead", "ahead", "ahead"}
	if !slices.Equal(order, want) {
		t.Errorf("games ended in the order %v, want %v", order, want)
	}
	for b, rs := range results {
		alone := newResults(b)
		if err := NewLocalPool(1).Play(context.Background(), b, alone, nil); err != nil {
			t.Fatal(err)
		}
		for c := range rs {
			if !slices.Equal(rs[c], alone[c]) {
				t.Errorf("batch of seed %d, candidate %d: %v shared, %v alone", b.Seeds[0], c, rs[c], alone[c])
			}
		}
	}
}

// TestLocalPoolCancel cancels one of two batches in play: it returns the
// cancellation, the other finishes.
func TestLocalPoolCancel(t *testing.T) {
	p := NewLocalPool(2)
	long := testBatch(t, 4, []uint64{1, 2, 3, 4, 5, 6, 7, 8}, 0)
	short := testBatch(t, 1, []uint64{9, 10, 11}, 30)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var errLong error
	wg.Go(func() {
		errLong = p.Play(ctx, long, newResults(long), func(Job, engine.Result, bool) { cancel() })
	})
	rs := newResults(short)
	if err := p.Play(context.Background(), short, rs, nil); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if !errors.Is(errLong, context.Canceled) {
		t.Errorf("cancelled batch: %v, want context.Canceled", errLong)
	}
	for j, r := range rs[0] {
		if r.Moves == 0 {
			t.Errorf("game %d of the batch not cancelled was not played", j)
		}
	}
}
