package engine_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

// twin is the plain recursive search of DESIGN.md with the options the
// fast one takes: the loss value of a board without a move and whether
// move scores count. Every call is a node.
type twin struct {
	e        engine.Evaluator
	loss     float64
	scoreMul float64
	nodes    uint64
}

func (w *twin) max(b engine.Board, d int) float64 {
	w.nodes++
	if d == 0 {
		return w.e.Evaluate(b)
	}
	best, any := 0.0, false
	for _, dir := range engine.Dirs {
		nb, score, ok := b.Move(dir)
		if !ok {
			continue
		}
		v := w.scoreMul*float64(score) + w.chance(nb, d-1)
		if !any || v > best {
			best, any = v, true
		}
	}
	if !any {
		return w.loss
	}
	return best
}

func (w *twin) chance(b engine.Board, d int) float64 {
	w.nodes++
	n := b.CountEmpty()
	if d == 0 || n == 0 {
		return w.e.Evaluate(b)
	}
	sum := 0.0
	for i := range 16 {
		if b.Cell(i/4, i%4) == 0 {
			sum += 0.9*w.max(b.SetCell(i/4, i%4, 1), d-1) + 0.1*w.max(b.SetCell(i/4, i%4, 2), d-1)
		}
	}
	return sum / float64(n)
}

// plain hides an evaluator's tables: a search calls its Evaluate.
type plain struct{ e engine.Evaluator }

func (p plain) Evaluate(b engine.Board) float64 { return p.e.Evaluate(b) }

// leafEvaluators are evaluators of every form the leaf layer reads: one
// table for every line with a key read from the rows or the columns
// (the standard set's), a table per line with and without columns and
// keys, a key without its column form, and evaluators without tables.
func leafEvaluators(t *testing.T) []struct {
	name string
	e    engine.Evaluator
} {
	rng := rand.New(rand.NewPCG(55, 1))
	table := func() *[1 << 16]float64 {
		tab := new([1 << 16]float64)
		for i := range tab {
			tab[i] = (rng.Float64() - 0.4) * math.Pow(10, float64(rng.IntN(5)))
		}
		return tab
	}
	keyValue := func() *[256]float64 {
		kv := new([256]float64)
		for i := range kv {
			kv[i] = rng.Float64() * 1e3
		}
		return kv
	}
	randomKeys := new([1 << 16]uint8)
	for i := range randomKeys {
		randomKeys[i] = uint8(rng.IntN(256))
	}
	std, err := eval.Set("standard")
	if err != nil {
		t.Fatal(err)
	}
	w := make([]float64, len(std.Features))
	for i := range w {
		w[i] = (rng.Float64()*2 - 0.5) * math.Pow(10, float64(rng.IntN(4)))
	}
	standard, err := std.Compile(w)
	if err != nil {
		t.Fatal(err)
	}
	// The standard set's corner keys, read from the rows or the columns.
	corner := standard.(engine.LineEvaluator).Lines().Keys
	end, mid := corner[0], corner[1]
	u := table()
	perLine := [4]*[1 << 16]float64{table(), table(), table(), table()}
	perCol := [4]*[1 << 16]float64{table(), table(), table(), table()}
	return []struct {
		name string
		e    engine.Evaluator
	}{
		{"standard", standard},
		{"uniform, corner keys", &engine.Lines{Rows: [4]*[1 << 16]float64{u, u, u, u}, Cols: [4]*[1 << 16]float64{u, u, u, u}, Keys: corner, ColKeys: corner, KeyValue: keyValue()}},
		{"uniform, no keys", &engine.Lines{Rows: [4]*[1 << 16]float64{u, u, u, u}, Cols: [4]*[1 << 16]float64{u, u, u, u}}},
		{"per line, corner keys", &engine.Lines{Rows: perLine, Cols: perCol, Keys: corner, ColKeys: corner, KeyValue: keyValue()}},
		{"per line, row keys", &engine.Lines{Rows: perLine, Cols: perCol, Keys: [4]*[1 << 16]uint8{randomKeys, end, randomKeys, mid}, KeyValue: keyValue()}},
		{"uniform, row keys", &engine.Lines{Rows: [4]*[1 << 16]float64{u, u, u, u}, Cols: [4]*[1 << 16]float64{u, u, u, u}, Keys: [4]*[1 << 16]uint8{randomKeys, randomKeys, randomKeys, randomKeys}, KeyValue: keyValue()}},
		{"rows only", &engine.Lines{Rows: perLine}},
		{"rows and keys", &engine.Lines{Rows: perLine, Keys: corner, ColKeys: corner, KeyValue: keyValue()}},
		{"classic", classic},
		{"standard through Evaluate", plain{standard}},
	}
}

// TestLeafLayerMatchesTwin checks the search, the leaf layer included,
// against the recursive twin for every form of evaluator: every move's
// value and nodes equal (not close), on random boards at 1 to 5 plies,
// with and without move scores and loss values.
func TestLeafLayerMatchesTwin(t *testing.T) {
	for _, ev := range leafEvaluators(t) {
		for _, o := range []struct {
			loss  float64
			heur  bool
			plies []int
		}{{0, false, []int{1, 2, 3, 4, 5}}, {-1e6, false, []int{3}}, {-250, true, []int{3, 4}}} {
			for _, depth := range o.plies {
				n, maxEmpty := 80, 9
				if depth >= 4 {
					n, maxEmpty = 12, 5
				}
				s, err := engine.NewExpectimax(ev.e, engine.ExpectimaxOptions{Depth: depth, LossValue: o.loss, HeuristicOnly: o.heur})
				if err != nil {
					t.Fatal(err)
				}
				w := &twin{e: ev.e, loss: o.loss, scoreMul: 1}
				if o.heur {
					w.scoreMul = 0
				}
				for _, b := range searchBoards(uint64(depth)*7+uint64(len(ev.name)), n, 0, maxEmpty) {
					checkAgainstTwin(t, fmt.Sprintf("%s, loss %v, heuristic only %v, %d plies", ev.name, o.loss, o.heur, depth), s, w, b, depth)
				}
			}
		}
	}
}

func checkAgainstTwin(t *testing.T, what string, s *engine.Expectimax, w *twin, b engine.Board, depth int) {
	t.Helper()
	got := s.Search(b)
	w.nodes = 0
	if want := w.max(b, depth); got.Value != want || got.Nodes != w.nodes {
		t.Fatalf("%s, %v: value, nodes = %v, %d; twin %v, %d", what, b.Hex(), got.Value, got.Nodes, want, w.nodes)
	}
	for _, m := range got.Moves {
		nb, score, _ := b.Move(m.Dir)
		w.nodes = 0
		if want := w.scoreMul*float64(score) + w.chance(nb, depth-1); m.Value != want || m.Nodes != w.nodes {
			t.Fatalf("%s, %v, move %v: value, nodes = %v, %d; twin %v, %d", what, b.Hex(), m.Dir, m.Value, m.Nodes, want, w.nodes)
		}
	}
	if s.Move(b) != got.Best {
		t.Fatalf("%s, %v: Move %v, Search's best %v", what, b.Hex(), s.Move(b), got.Best)
	}
}

// TestLeafLayerPlayDefaults checks the leaf layer inside the players'
// search, with the table kept for the game and the probability cutoff, at
// 4 to 7 plies on positions from seeded games: the same values, moves,
// nodes and table hits as the same search reading the evaluator through
// Evaluate (itself checked against the twin above).
func TestLeafLayerPlayDefaults(t *testing.T) {
	pos := loadPositions(t)
	evs := leafEvaluators(t)
	for _, depth := range []int{4, 5, 6, 7} {
		step := 1
		if depth >= 6 {
			step = 4
		}
		for _, ev := range evs[:8] {
			opts := engine.ExpectimaxOptions{Depth: depth, TableBits: engine.PlayTableBits(depth), ProbCutoff: engine.PlayCutoff(depth), LossValue: engine.DefaultLossValue}
			fast, _ := engine.NewExpectimax(ev.e, opts)
			slow, _ := engine.NewExpectimax(plain{ev.e}, opts)
			for i := 0; i < len(pos); i += step {
				p := pos[i]
				if i == 0 || p.seed != pos[i-step].seed || p.move != pos[i-step].move+step {
					fast.Reset()
					slow.Reset()
				}
				got, want := fast.Search(p.board), slow.Search(p.board)
				if got.Value != want.Value || got.Best != want.Best || got.Nodes != want.Nodes || got.TTHits != want.TTHits {
					t.Fatalf("%s, %d plies, %v: value %v best %v nodes %d hits %d; through Evaluate %v, %v, %d, %d",
						ev.name, depth, p.board.Hex(), got.Value, got.Best, got.Nodes, got.TTHits, want.Value, want.Best, want.Nodes, want.TTHits)
				}
			}
		}
	}
}

// TestLinesValid checks that a malformed table form is refused, and that
// a searcher then calls Evaluate, which gives it the same values.
func TestLinesValid(t *testing.T) {
	tab := new([1 << 16]float64)
	keys := new([1 << 16]uint8)
	kv := new([256]float64)
	all := [4]*[1 << 16]float64{tab, tab, tab, tab}
	allKeys := [4]*[1 << 16]uint8{keys, keys, keys, keys}
	for _, tt := range []struct {
		l    engine.Lines
		want bool
	}{
		{engine.Lines{Rows: all}, true},
		{engine.Lines{Rows: all, Cols: all, Keys: allKeys, KeyValue: kv, ColKeys: allKeys}, true},
		{engine.Lines{Rows: [4]*[1 << 16]float64{tab, tab, tab}}, false},
		{engine.Lines{Rows: all, Cols: [4]*[1 << 16]float64{tab}}, false},
		{engine.Lines{Rows: all, Keys: allKeys}, false},
		{engine.Lines{Rows: all, KeyValue: kv}, false},
		{engine.Lines{Rows: all, ColKeys: allKeys}, false},
		{engine.Lines{Rows: all, Keys: allKeys, KeyValue: kv, ColKeys: [4]*[1 << 16]uint8{keys}}, false},
	} {
		if got := tt.l.Valid(); got != tt.want {
			t.Errorf("%+v: Valid() = %v, want %v", tt.l, got, tt.want)
		}
	}
}

// brokenLines claims tables that are not its values: a searcher must not
// take the claim on trust when the form is malformed.
type brokenLines struct{ engine.Lines }

func (b *brokenLines) Evaluate(x engine.Board) float64 { return float64(x.CountEmpty()) }

func TestMalformedLinesSearchedThroughEvaluate(t *testing.T) {
	tab := new([1 << 16]float64)
	bad := &brokenLines{engine.Lines{Rows: [4]*[1 << 16]float64{tab, tab, tab, tab}, KeyValue: new([256]float64)}}
	s, _ := engine.NewExpectimax(bad, engine.ExpectimaxOptions{Depth: 3})
	w := &twin{e: bad, scoreMul: 1}
	for _, b := range searchBoards(3, 20, 1, 8) {
		checkAgainstTwin(t, "malformed", s, w, b, 3)
	}
}

func TestLeafLayerAllocs(t *testing.T) {
	for _, ev := range leafEvaluators(t) {
		s, _ := engine.NewExpectimax(ev.e, engine.ExpectimaxOptions{Depth: 5, TableBits: engine.PlayTableBits(5), ProbCutoff: engine.PlayCutoff(5), LossValue: engine.DefaultLossValue})
		b := searchBoards(5, 1, 6, 6)[0]
		if n := testing.AllocsPerRun(20, func() { s.Move(b) }); n != 0 {
			t.Errorf("%s: Move allocates %v times per call, want 0", ev.name, n)
		}
	}
}
