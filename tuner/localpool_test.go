package tuner

import (
	"context"
	"errors"
	"testing"

	"github.com/evotune/evotune/engine"
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
