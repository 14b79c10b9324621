package playerpool

import (
	"context"
	"errors"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

// TestPinVerify: the boards Pin picks are the games' boards from the first
// move to the last, with the moves the in-process player makes on them;
// Verify asks them again and gets the same moves; a player declaring
// other parameters is refused.
func TestPinVerify(t *testing.T) {
	ctx := context.Background()
	fam, err := Probe(ctx, playerCommand("serve"), "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	seeds := []uint64{11, 12}
	checks, err := Pin(ctx, fam, fam.Defaults(), seeds, 0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != len(seeds)*PinBoards {
		t.Fatalf("%d checks, want %d", len(checks), len(seeds)*PinBoards)
	}
	if first := engine.NewGame(seeds[0]).Board(); checks[0].Board != first {
		t.Errorf("first check %s, want the first board of the game, %s", checks[0].Board.Hex(), first.Hex())
	}
	sp, err := NewSearchPlayer(must(eval.Set("standard")), standardSearch(2), nil)
	if err != nil {
		t.Fatal(err)
	}
	dirs := make([]engine.Dir, 1)
	for i, c := range checks {
		if err := sp.Moves([]engine.Board{c.Board}, dirs); err != nil {
			t.Fatal(err)
		}
		if dirs[0] != c.Move {
			t.Errorf("check %d: %s: pinned %v, the player in process chooses %v", i, c.Board.Hex(), c.Move, dirs[0])
		}
	}
	pf := &eval.PlayerFile{Player: eval.PlayerInfo{ID: fam.ID, Version: fam.Version, Command: fam.Command}, Checks: checks}
	for i, n := range fam.VectorNames() {
		pf.Params = append(pf.Params, eval.NamedValue{Name: n, Value: fam.Defaults()[i]})
	}
	got, err := Verify(ctx, pf, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range checks {
		if got[i] != c.Move {
			t.Errorf("verify %d: %v, want %v", i, got[i], c.Move)
		}
	}
	pf.Player.Version = "0"
	if _, err := Verify(ctx, pf, Options{}); !errors.Is(err, ErrMismatch) {
		t.Errorf("another version: %v, want ErrMismatch", err)
	}
	other := fam
	other.Command = playerCommand("set-error")
	if _, err := Pin(ctx, other, fam.Defaults(), seeds, 0, Options{}); !errors.Is(err, ErrMismatch) {
		t.Errorf("another player: %v, want ErrMismatch", err)
	}
}
