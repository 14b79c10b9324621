package engine_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/evotune/evotune/engine"
)

// refMax and refChance are the plain recursive twin of the exact search
// semantics of DESIGN.md: no table, no cutoff, loss value 0, every call a node.
func refMax(b engine.Board, d int, e engine.Evaluator, nodes *uint64) float64 {
	*nodes++
	if d == 0 {
		return e.Evaluate(b)
	}
	best, any := 0.0, false
	for _, dir := range engine.Dirs {
		nb, score, ok := b.Move(dir)
		if !ok {
			continue
		}
		v := float64(score) + refChance(nb, d-1, e, nodes)
		if !any || v > best {
			best, any = v, true
		}
	}
	if !any {
		return 0
	}
	return best
}

func refChance(b engine.Board, d int, e engine.Evaluator, nodes *uint64) float64 {
	*nodes++
	type cell struct{ r, c int }
	var empty []cell
	for r := range 4 {
		for c := range 4 {
			if b.Cell(r, c) == 0 {
				empty = append(empty, cell{r, c})
			}
		}
	}
	if d == 0 || len(empty) == 0 {
		return e.Evaluate(b)
	}
	sum := 0.0
	for _, x := range empty {
		sum += 0.9*refMax(b.SetCell(x.r, x.c, 1), d-1, e, nodes) + 0.1*refMax(b.SetCell(x.r, x.c, 2), d-1, e, nodes)
	}
	return sum / float64(len(empty))
}

// searchBoards draws boards with a few empty cells and a mix of ranks, the
// shape of positions in a real game.
func searchBoards(seed uint64, n, minEmpty, maxEmpty int) []engine.Board {
	rng := rand.New(rand.NewPCG(seed, 2))
	out := make([]engine.Board, 0, n)
	for len(out) < n {
		var b engine.Board
		empty := minEmpty + rng.IntN(maxEmpty-minEmpty+1)
		perm := rng.Perm(16)
		for _, i := range perm[empty:] {
			b = b.SetCell(i/4, i%4, 1+rng.IntN(10))
		}
		out = append(out, b)
	}
	return out
}

func TestExpectimaxExactMatchesTwin(t *testing.T) {
	e := classic
	for depth := 1; depth <= 5; depth++ {
		n, maxEmpty := 60, 8
		if depth == 5 {
			n, maxEmpty = 15, 5
		}
		s, err := engine.NewExpectimax(e, engine.ExpectimaxOptions{Depth: depth})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range searchBoards(uint64(depth), n, 0, maxEmpty) {
			var want uint64
			wantValue := refMax(b, depth, e, &want)
			got := s.Search(b)
			if got.Value != wantValue || got.Nodes != want {
				t.Fatalf("depth %d %v: value, nodes = %v, %d; twin %v, %d", depth, b.Hex(), got.Value, got.Nodes, wantValue, want)
			}
			var sum uint64 = 1
			for _, m := range got.Moves {
				nb, score, _ := b.Move(m.Dir)
				var n uint64
				v := float64(score) + refChance(nb, depth-1, e, &n)
				if m.Value != v || m.Nodes != n {
					t.Fatalf("depth %d %v move %v: value, nodes = %v, %d; twin %v, %d", depth, b.Hex(), m.Dir, m.Value, m.Nodes, v, n)
				}
				sum += m.Nodes
			}
			if sum != got.Nodes {
				t.Fatalf("move nodes + root = %d, want %d", sum, got.Nodes)
			}
			if !got.HasMove && len(got.Moves) != 0 || got.HasMove && got.Moves[0].Dir > got.Best {
				t.Fatalf("%v: best %v inconsistent with moves %v", b.Hex(), got.Best, got.Moves)
			}
		}
	}
}

func TestExpectimaxTableKeepsValues(t *testing.T) {
	for _, sc := range []engine.TableScope{engine.ScopeGame, engine.ScopeSearch, engine.ScopeRootMove} {
		for _, bits := range []int{4, 16} {
			testTableKeepsValues(t, sc, bits)
		}
	}
}

func testTableKeepsValues(t *testing.T, sc engine.TableScope, bits int) {
	e := classic
	for depth := 1; depth <= 5; depth++ {
		exact, _ := engine.NewExpectimax(e, engine.ExpectimaxOptions{Depth: depth})
		fast, _ := engine.NewExpectimax(e, engine.ExpectimaxOptions{Depth: depth, TableBits: bits})
		fast.SetTableScope(sc)
		var exactNodes, fastNodes uint64
		for _, b := range searchBoards(uint64(100+depth), 40, 2, 9) {
			want := exact.Search(b)
			// The table lives across searches, as in a game: search twice.
			for range 2 {
				got := fast.Search(b)
				if got.Value != want.Value || got.Best != want.Best || len(got.Moves) != len(want.Moves) {
					t.Fatalf("depth %d %v: table search %v best %v; exact %v best %v", depth, b.Hex(), got.Value, got.Best, want.Value, want.Best)
				}
				for i := range got.Moves {
					if got.Moves[i].Value != want.Moves[i].Value {
						t.Fatalf("depth %d %v: move %v value %v, exact %v", depth, b.Hex(), got.Moves[i].Dir, got.Moves[i].Value, want.Moves[i].Value)
					}
				}
				if got.Nodes > want.Nodes {
					t.Fatalf("depth %d %v: table search used %d nodes, exact %d", depth, b.Hex(), got.Nodes, want.Nodes)
				}
			}
			fast.Reset()
			got := fast.Search(b)
			exactNodes += want.Nodes
			fastNodes += got.Nodes
		}
		if depth >= 4 && fastNodes >= exactNodes {
			t.Errorf("scope %d, 2^%d entries, depth %d: table used %d nodes, exact %d: want fewer", sc, bits, depth, fastNodes, exactNodes)
		}
	}
}

func TestExpectimaxNoMove(t *testing.T) {
	b, _ := engine.ParseBoard("2 4 2 4/4 2 4 2/2 4 2 4/4 2 4 2")
	s, _ := engine.NewExpectimax(classic, engine.ExpectimaxOptions{Depth: 3, LossValue: -1e6})
	got := s.Search(b)
	if got.HasMove || got.Value != -1e6 || got.Nodes != 1 || len(got.Moves) != 0 {
		t.Errorf("Search(no move) = %+v; want no move, loss value -1e6, 1 node", got)
	}
}

func TestExpectimaxOptionsValidate(t *testing.T) {
	bad := []engine.ExpectimaxOptions{
		{Depth: 0}, {Depth: -1}, {Depth: 256}, {Depth: 2, TableBits: -1}, {Depth: 2, TableBits: 31},
		{Depth: 2, ProbCutoff: -0.1}, {Depth: 2, ProbCutoff: 1},
	}
	for _, o := range bad {
		if _, err := engine.NewExpectimax(classic, o); err == nil {
			t.Errorf("NewExpectimax(%+v) succeeded, want an error", o)
		}
	}
	if _, err := engine.NewExpectimax(nil, engine.ExpectimaxOptions{Depth: 1}); err == nil {
		t.Error("NewExpectimax(nil evaluator) succeeded")
	}
}

// TestExpectimaxCutoffPrunes checks that the probability cutoff only ever
// removes nodes and leaves shallow searches, where it cannot trigger, alone.
func TestExpectimaxCutoffPrunes(t *testing.T) {
	e := classic
	for _, b := range searchBoards(9, 10, 4, 8) {
		exact, _ := engine.NewExpectimax(e, engine.ExpectimaxOptions{Depth: 4})
		cut, _ := engine.NewExpectimax(e, engine.ExpectimaxOptions{Depth: 4, ProbCutoff: 0.05})
		w, g := exact.Search(b), cut.Search(b)
		if g.Nodes >= w.Nodes {
			t.Fatalf("%v: cutoff searched %d nodes, exact %d", b.Hex(), g.Nodes, w.Nodes)
		}
	}
}

func TestExpectimaxMoveAllocs(t *testing.T) {
	for _, opts := range []engine.ExpectimaxOptions{
		{Depth: 3, TableBits: 12},
		{Depth: 5, TableBits: engine.PlayTableBits(5), ProbCutoff: 0.01, Adaptive: true},
	} {
		s, _ := engine.NewExpectimax(classic, opts)
		b := searchBoards(5, 1, 6, 6)[0]
		if n := testing.AllocsPerRun(20, func() { s.Move(b) }); n != 0 {
			t.Errorf("%+v: Move allocates %v times per call, want 0", opts, n)
		}
	}
}

// TestExpectimaxAdaptive checks the adaptive depth rule against searches at
// the depth it names: min(Depth, max(3, 2(k-2)+1)) plies for k distinct
// tile values, the same values and nodes.
func TestExpectimaxAdaptive(t *testing.T) {
	e := classic
	for _, depth := range []int{1, 3, 5, 6} {
		ad, _ := engine.NewExpectimax(e, engine.ExpectimaxOptions{Depth: depth, TableBits: 12, Adaptive: true})
		for i, b := range searchBoards(uint64(40+depth), 40, 4, 13) {
			// Few distinct values on some boards, so that the rule lowers the depth.
			if i%2 == 0 {
				b = engine.Board(uint64(b) & 0x3333333333333333)
			}
			k := 0
			for r := 1; r < 16; r++ {
				for c := range 16 {
					if b.Cell(c/4, c%4) == r {
						k++
						break
					}
				}
			}
			want := min(depth, max(3, 2*(k-2)+1))
			exact, _ := engine.NewExpectimax(e, engine.ExpectimaxOptions{Depth: want})
			ad.Reset()
			got, w := ad.Search(b), exact.Search(b)
			if ad.Depth() != want || got.Value != w.Value || got.Best != w.Best {
				t.Fatalf("depth %d %v (%d distinct): adaptive searched %d plies, value %v best %v; want %d plies, %v, %v",
					depth, b.Hex(), k, ad.Depth(), got.Value, got.Best, want, w.Value, w.Best)
			}
		}
	}
}

// With move scores left out, scaling a linear evaluator scales every value
// and changes no decision. The factor is a power of two so that scaling is
// exact in floating point and ties stay ties.
func TestHeuristicOnlyScaleInvariant(t *testing.T) {
	scaled := scaledEval{k: 8}
	for _, depth := range []int{1, 2, 3} {
		a, _ := engine.NewExpectimax(classic, engine.ExpectimaxOptions{Depth: depth, HeuristicOnly: true})
		b, _ := engine.NewExpectimax(scaled, engine.ExpectimaxOptions{Depth: depth, HeuristicOnly: true})
		ba, _ := engine.NewBeam(classic, engine.BeamOptions{Width: 4, Depth: depth + 2, HeuristicOnly: true})
		bb, _ := engine.NewBeam(scaled, engine.BeamOptions{Width: 4, Depth: depth + 2, HeuristicOnly: true})
		for _, x := range searchBoards(uint64(depth), 100, 1, 10) {
			ra, rb := a.Search(x), b.Search(x)
			if ra.Best != rb.Best || rb.Value != 8*ra.Value {
				t.Fatalf("depth %d %v: scaled search %v/%v, plain %v/%v", depth, x.Hex(), rb.Value, rb.Best, ra.Value, ra.Best)
			}
			if ba.Move(x) != bb.Move(x) {
				t.Fatalf("depth %d %v: scaled beam moves differently", depth, x.Hex())
			}
		}
	}
}

type scaledEval struct{ k float64 }

func (s scaledEval) Evaluate(b engine.Board) float64 { return s.k * classic.Evaluate(b) }

// TestExpectimaxPlayersAgreeAcrossWorkers plays the same seeded games with
// the players' table and cutoff on 1 and 3 workers: a game must not depend
// on the games its player searched before.
func TestExpectimaxPlayersAgreeAcrossWorkers(t *testing.T) {
	opts := engine.ExpectimaxOptions{Depth: 6, TableBits: engine.PlayTableBits(6), ProbCutoff: engine.PlayCutoff(6), LossValue: engine.DefaultLossValue}
	play := func(workers int) []engine.Result {
		r, err := engine.PlayGames(context.Background(), 7, workers, func(i int) uint64 { return engine.GameSeed(5, uint64(i)) },
			func() (engine.Player, error) { return engine.NewExpectimax(classic, opts) }, 30, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	one, three := play(1), play(3)
	for i := range one {
		if one[i] != three[i] {
			t.Fatalf("game %d: 1 worker %+v, 3 workers %+v", i, one[i], three[i])
		}
	}
}
