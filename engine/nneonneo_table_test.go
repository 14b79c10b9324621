package engine

import (
	"math/rand/v2"
	"testing"
)

// TestNNTable checks the table against a map through growth, clears and
// the wrap of its epoch counter.
func TestNNTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	var tab nnTable
	tab.init(2)
	for round := range 40 {
		if round == 20 {
			tab.epoch = nnEpochs - 2 // two clears from wrapping
		}
		tab.clear()
		want := map[Board][2]int{}
		// Few distinct keys, so that puts replace entries too.
		n := 1 + rng.IntN(300)
		for range n {
			b := Board(rng.Uint64N(uint64(2 * n)))
			if rng.IntN(2) == 0 {
				d, v := rng.IntN(15), rng.IntN(1000)
				tab.put(b, d, float32(v))
				want[b] = [2]int{d, v}
			}
			v, d, ok := tab.get(b)
			w, wok := want[b]
			if ok != wok || ok && (d != w[0] || v != float32(w[1])) {
				t.Fatalf("round %d: get(%x) = %v, %v, %v; want %v, %v", round, uint64(b), v, d, ok, w, wok)
			}
		}
		if tab.used != len(want) || 2*tab.used > len(tab.slots) {
			t.Fatalf("round %d: %d used of %d slots, %d keys", round, tab.used, len(tab.slots), len(want))
		}
	}
	if tab.epoch >= nnEpochs || tab.epoch < 1 {
		t.Errorf("epoch %d after wrapping", tab.epoch)
	}
}
