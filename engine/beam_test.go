package engine_test

import (
	"math"
	"testing"

	"github.com/evotune/evotune/engine"
)

// With an unlimited width, a beam of at most 3 plies keeps every state and
// its move ply reaches only leaves, so it must agree with exact expectimax.
func TestBeamMatchesExpectimaxShallow(t *testing.T) {
	e := classic
	for depth := 1; depth <= 3; depth++ {
		beam, err := engine.NewBeam(e, engine.BeamOptions{Width: 1 << 20, Depth: depth})
		if err != nil {
			t.Fatal(err)
		}
		exact, _ := engine.NewExpectimax(e, engine.ExpectimaxOptions{Depth: depth})
		for _, b := range searchBoards(uint64(200+depth), 200, 0, 10) {
			got, want := beam.Search(b), exact.Search(b)
			if got.HasMove != want.HasMove || len(got.Moves) != len(want.Moves) {
				t.Fatalf("depth %d %v: beam moves %v, expectimax %v", depth, b.Hex(), got.Moves, want.Moves)
			}
			for i := range got.Moves {
				g, w := got.Moves[i].Value, want.Moves[i].Value
				if got.Moves[i].Dir != want.Moves[i].Dir || math.Abs(g-w) > 1e-9*math.Max(1, math.Abs(w)) {
					t.Fatalf("depth %d %v move %v: beam %v, expectimax %v", depth, b.Hex(), got.Moves[i].Dir, g, w)
				}
			}
		}
	}
}

func TestBeamDeterministicAndLegal(t *testing.T) {
	e := classic
	for _, opts := range []engine.BeamOptions{{Width: 1, Depth: 4}, {Width: 4, Depth: 5}, {Width: 16, Depth: 6}} {
		a, _ := engine.NewBeam(e, opts)
		b, _ := engine.NewBeam(e, opts)
		for _, x := range searchBoards(uint64(opts.Width), 300, 0, 12) {
			if !x.CanMove() {
				continue
			}
			ra, rb := a.Search(x), b.Search(x)
			if ra.Value != rb.Value || ra.Best != rb.Best || ra.Nodes != rb.Nodes {
				t.Fatalf("%+v %v: two searchers disagree: %v/%v vs %v/%v", opts, x.Hex(), ra.Value, ra.Best, rb.Value, rb.Best)
			}
			d := a.Move(x)
			if d != ra.Best {
				t.Fatalf("%+v %v: Move %v, Search best %v", opts, x.Hex(), d, ra.Best)
			}
			if _, _, ok := x.Move(d); !ok {
				t.Fatalf("%+v %v: proposed illegal move %v", opts, x.Hex(), d)
			}
		}
	}
	// Whole games: Play panics on an illegal move, and replays must match.
	s, _ := engine.NewBeam(e, engine.BeamOptions{Width: 4, Depth: 4})
	for i := range uint64(3) {
		r1, r2 := engine.Play(i, s), engine.Play(i, s)
		if r1 != r2 {
			t.Fatalf("seed %d: beam game replay differs: %+v vs %+v", i, r1, r2)
		}
	}
}

func TestBeamOptionsValidate(t *testing.T) {
	for _, o := range []engine.BeamOptions{{Width: 0, Depth: 2}, {Width: 2, Depth: 0}, {Width: 2, Depth: 300}} {
		if _, err := engine.NewBeam(classic, o); err == nil {
			t.Errorf("NewBeam(%+v) succeeded, want an error", o)
		}
	}
}

func TestBeamMoveAllocs(t *testing.T) {
	s, _ := engine.NewBeam(classic, engine.BeamOptions{Width: 8, Depth: 5})
	b := searchBoards(5, 1, 6, 6)[0]
	s.Move(b) // grow the buffers
	if n := testing.AllocsPerRun(20, func() { s.Move(b) }); n != 0 {
		t.Errorf("Move allocates %v times per call, want 0", n)
	}
}
