package playerpool

import (
	"context"
	"testing"

	"github.com/evotune/evotune/engine"
)

// TestMovesAllocs: a move exchange allocates nothing on evotune's side
// once its buffers have grown: the timer is re-armed, the request written
// from a reused buffer and the reply read in the reader's.
func TestMovesAllocs(t *testing.T) {
	p, err := Open(context.Background(), playerCommand("serve", "1"), "", testOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.Set(p.Family().Defaults()); err != nil {
		t.Fatal(err)
	}
	boards := []engine.Board{0x0000100001000000, 0x1000000000100000}
	dst, err := p.Moves(boards, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(50, func() {
		if dst, err = p.Moves(boards, dst); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("%v allocations a move exchange, want 0", n)
	}
}
