package engine_test

import (
	"errors"
	"math"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

// refNN is the twin of Nneonneo: 2048.cpp's score_toplevel_move,
// score_tilechoose_node and score_move_node transliterated, with a Go map
// for the program's unordered_map and cells found one by one.
type refNN struct {
	e      engine.Evaluator
	cutoff float32
	limit  int
	depth  int
	table  map[engine.Board]refNNEntry
	moves  uint64 // move layers
	hits   uint64
	nodes  uint64 // calls of chance and max, and the root
}

type refNNEntry struct {
	depth int
	value float32
}

func (r *refNN) chance(b engine.Board, prob float32) float32 {
	r.nodes++
	if prob < r.cutoff || r.depth >= r.limit {
		return float32(r.e.Evaluate(b))
	}
	if r.depth < 15 {
		if en, ok := r.table[b]; ok && en.depth <= r.depth {
			r.hits++
			return en.value
		}
	}
	var cells [][2]int
	for i := range 16 {
		if b.Cell(i/4, i%4) == 0 {
			cells = append(cells, [2]int{i / 4, i % 4})
		}
	}
	n := float32(len(cells))
	prob = prob / n
	res := float32(0)
	for _, c := range cells {
		v2 := r.max(b.SetCell(c[0], c[1], 1), float32(prob*0.9))
		res = res + float32(v2*0.9)
		v4 := r.max(b.SetCell(c[0], c[1], 2), float32(prob*0.1))
		res = res + float32(v4*0.1)
	}
	res = res / n
	if r.depth < 15 {
		r.table[b] = refNNEntry{r.depth, res}
	}
	return res
}

func (r *refNN) max(b engine.Board, prob float32) float32 {
	r.nodes++
	r.moves++
	r.depth++
	best := float32(0)
	for _, d := range engine.Dirs {
		if nb, _, ok := b.Move(d); ok {
			best = max(best, r.chance(nb, prob))
		}
	}
	r.depth--
	return best
}

// search returns the value of each root move (NaN if illegal).
func (r *refNN) search(b engine.Board, capMoves int) [4]float32 {
	seen := map[int]bool{}
	for i := range 16 {
		if k := b.Cell(i/4, i%4); k != 0 {
			seen[k] = true
		}
	}
	r.limit = max(3, len(seen)-2)
	if capMoves > 0 {
		r.limit = min(r.limit, capMoves)
	}
	r.moves, r.hits, r.nodes = 0, 0, 1
	var out [4]float32
	for i, d := range engine.Dirs {
		nb, _, ok := b.Move(d)
		if !ok {
			out[i] = float32(math.NaN())
			continue
		}
		r.table = map[engine.Board]refNNEntry{}
		r.depth = 0
		out[i] = float32(float64(r.chance(nb, 1)) + 1e-6)
	}
	return out
}

// shifted adds a constant to an evaluator's values.
type shifted struct {
	e engine.Evaluator
	k float64
}

func (s shifted) Evaluate(b engine.Board) float64 { return s.e.Evaluate(b) + s.k }

func TestNneonneoMatchesTwin(t *testing.T) {
	standard, err := eval.Lookup("standard")
	if err != nil {
		t.Fatal(err)
	}
	// The nneonneo set's evaluators are LineTable32s, whose table the
	// search reads itself at its leaves; the twin calls Evaluate. The second
	// has other constants (lower powers, a negative offset) so that
	// values of both signs meet the move layers' floor at 0.
	nnSet, err := eval.Set("nneonneo")
	if err != nil {
		t.Fatal(err)
	}
	nnOther, err := nnSet.CompileParams([]float64{-3000, 270, 400, 41.5, 20.9}, []float64{2.7, 2.37})
	if err != nil {
		t.Fatal(err)
	}
	evaluators := []engine.Evaluator{classic, standard, shifted{classic, 1e4}, nnSet.Default(), nnOther}
	for _, e := range evaluators[3:] {
		if l, ok := e.(engine.LineTable32); !ok || l.LineTable32() == nil {
			t.Fatalf("%T: not a LineTable32 with a table", e)
		}
	}
	for _, tc := range []struct {
		capMoves           int
		cutoff             float64
		n, minEmpty, maxEm int
	}{
		{1, 0, 120, 0, 14},
		{2, 0, 60, 0, 9},
		{3, 0, 20, 1, 4},
		{3, 0.002, 20, 3, 8},
		{4, 0.01, 15, 2, 8},
		{0, 0.004, 15, 2, 8}, // no cap: the adaptive limit, up to 6 moves on these boards
	} {
		boards := searchBoards(uint64(100+tc.capMoves), tc.n, tc.minEmpty, tc.maxEm)
		for ei, e := range evaluators {
			s, err := engine.NewNneonneo(e, engine.NneonneoOptions{Cap: tc.capMoves, ProbCutoff: tc.cutoff})
			if err != nil {
				t.Fatal(err)
			}
			cutoff := tc.cutoff
			if cutoff == 0 {
				cutoff = 1e-4
			}
			ref := &refNN{e: e, cutoff: float32(cutoff)}
			for _, b := range boards {
				want := ref.search(b, tc.capMoves)
				res := s.Search(b)
				got := [4]float32{}
				for i := range got {
					got[i] = float32(math.NaN())
				}
				for _, m := range res.Moves {
					got[m.Dir] = float32(m.Value)
				}
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("cap %d cutoff %v evaluator %d: %s: values %v, twin %v", tc.capMoves, tc.cutoff, ei, b, got, want)
					}
				}
				if s.Evaluated() != 4*ref.moves || res.TTHits != ref.hits || res.Nodes != ref.nodes {
					t.Fatalf("cap %d evaluator %d: %s: %d moves evaluated, %d hits and %d nodes, twin %d, %d and %d",
						tc.capMoves, ei, b, s.Evaluated(), res.TTHits, res.Nodes, 4*ref.moves, ref.hits, ref.nodes)
				}
				if res.HasMove {
					if d := s.Move(b); d != res.Best {
						t.Fatalf("%s: Move %v, Search's best %v", b, d, res.Best)
					}
				}
			}
		}
	}
}

// With the cutoff out of reach and an evaluator that is never negative, caps
// 1 and 2 are the exact heuristic-only expectimax at 3 and 5 plies, up to
// float32 rounding and the 1e-6 the program adds at the root.
func TestNneonneoMatchesExpectimax(t *testing.T) {
	e := shifted{classic, 1e4}
	for capMoves := 1; capMoves <= 2; capMoves++ {
		s, _ := engine.NewNneonneo(e, engine.NneonneoOptions{Cap: capMoves})
		x, _ := engine.NewExpectimax(e, engine.ExpectimaxOptions{Depth: 2*capMoves + 1, HeuristicOnly: true})
		for _, b := range searchBoards(7, 40, 0, 8) {
			got, want := s.Search(b), x.Search(b)
			if len(got.Moves) != len(want.Moves) {
				t.Fatalf("cap %d: %s: %+v, expectimax %+v", capMoves, b, got, want)
			}
			for i, m := range got.Moves {
				if w := want.Moves[i]; m.Dir != w.Dir || !(math.Abs(m.Value-w.Value) <= 1e-5*w.Value) {
					t.Fatalf("cap %d: %s: move %v worth %v, expectimax %v", capMoves, b, m.Dir, m.Value, w.Value)
				}
			}
		}
	}
}

func TestNneonneoDepthLimit(t *testing.T) {
	// 2 4 8 16 / 32 64 128 256 / 512 1024 _ _: 10 distinct tiles.
	b, _ := engine.ParseBoard("2 4 8 16/32 64 128 256/512 1024 0 0/0 0 0 0")
	small, _ := engine.ParseBoard("2 2 4 0/0 0 0 0/0 0 0 0/0 0 0 0")
	for _, tc := range []struct {
		capMoves int
		b        engine.Board
		want     int
	}{
		{0, b, 8}, {1, b, 1}, {2, b, 2}, {3, b, 3}, {9, b, 8}, {0, small, 3}, {5, small, 3}, {2, small, 2},
	} {
		s, _ := engine.NewNneonneo(classic, engine.NneonneoOptions{Cap: tc.capMoves})
		if got := s.DepthLimit(tc.b); got != tc.want {
			t.Errorf("cap %d, %s: limit %d, want %d", tc.capMoves, tc.b, got, tc.want)
		}
	}
}

func TestNneonneoRejects(t *testing.T) {
	for _, o := range []engine.NneonneoOptions{{Cap: -1}, {Cap: 256}, {ProbCutoff: -1e-4}, {ProbCutoff: 1}, {ProbCutoff: math.NaN()}} {
		if _, err := engine.NewNneonneo(classic, o); !errors.Is(err, engine.ErrSearch) {
			t.Errorf("%+v: err = %v, want ErrSearch", o, err)
		}
	}
	if _, err := engine.NewNneonneo(nil, engine.NneonneoOptions{}); !errors.Is(err, engine.ErrSearch) {
		t.Errorf("no evaluator: err = %v, want ErrSearch", err)
	}
}

// A dead board and a board whose moves all lead to negative values are
// worth 0 below the root, as in the program.
func TestNneonneoZeroFloor(t *testing.T) {
	neg := shifted{classic, -1e6}
	s, _ := engine.NewNneonneo(neg, engine.NneonneoOptions{Cap: 1})
	b, _ := engine.ParseBoard("2 4 2 4/4 2 4 2/2 4 2 4/4 2 4 0")
	res := s.Search(b)
	// Every spawn layer below the root move reaches a move layer floored
	// at 0, so each legal move is worth exactly float32(0 + 1e-6).
	for _, m := range res.Moves {
		if m.Value != float64(float32(1e-6)) {
			t.Errorf("%v: %v, want %v", m.Dir, m.Value, float32(1e-6))
		}
	}
	dead, _ := engine.ParseBoard("2 4 2 4/4 2 4 2/2 4 2 4/4 2 4 2")
	if res := s.Search(dead); res.HasMove || res.Value != 0 || len(res.Moves) != 0 {
		t.Errorf("dead board: %+v", res)
	}
}

func TestNneonneoMoveDoesNotAllocate(t *testing.T) {
	boards := midgame(8)
	s, _ := engine.NewNneonneo(classic, engine.NneonneoOptions{Cap: 3})
	for _, b := range boards { // warm-up: the table grows to what these need
		s.Move(b)
	}
	if n := testing.AllocsPerRun(3, func() {
		for _, b := range boards {
			s.Move(b)
		}
	}); n != 0 {
		t.Errorf("%v allocations per run", n)
	}
}

func BenchmarkNneonneo(b *testing.B) {
	boards := midgame(16)
	for _, capMoves := range []int{1, 2, 3} {
		b.Run("cap="+string(rune('0'+capMoves)), func(b *testing.B) {
			s, _ := engine.NewNneonneo(classic, engine.NneonneoOptions{Cap: capMoves})
			for _, x := range boards {
				s.Move(x)
			}
			b.ReportAllocs()
			var nodes uint64
			i := 0
			for b.Loop() {
				s.Move(boards[i%len(boards)])
				n, _ := s.Nodes()
				nodes += n
				i++
			}
			b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
			b.ReportMetric(float64(nodes)/float64(i), "nodes/op")
		})
	}
}
