package eval

import (
	"math"
	"testing"

	"github.com/evotune/evotune/engine"
)

// TestNneonneoSearchMatchesProgram checks the compatible search with the nneonneo
// set against the program's own root move values on boards from its games
// (testdata/nneonneo_values.tsv). The goal is every legal move's value
// within 1e-5 relative at caps 1 and 2; heuristic and search are built as
// the program's, so the test asks for the values bit for bit, at caps 1 to
// 4 (the cutoff and the table's reuse of shallower entries act from cap 3
// on), and for the program's count of evaluated moves, which pins the
// shape of the tree.
func TestNneonneoSearchMatchesProgram(t *testing.T) {
	searchers := map[string]map[int]*engine.Nneonneo{}
	for name, k := range nnConstants {
		c, err := nneonneoSet.CompileParams(k[0], k[1])
		if err != nil {
			t.Fatal(err)
		}
		searchers[name] = map[int]*engine.Nneonneo{}
		for capMoves := range 5 {
			if searchers[name][capMoves], err = engine.NewNneonneo(c, engine.NneonneoOptions{Cap: capMoves}); err != nil {
				t.Fatal(err)
			}
		}
	}
	caps := map[int]int{}
	for _, r := range readNNValues(t) {
		caps[r.cap]++
		s := searchers[r.constants][r.cap]
		// The search's limit is max(3, distinct-2) more moves (capped; see
		// engine's TestNneonneoDepthLimit): the tiles it counts must be the program's.
		if got := r.board.DistinctTiles(); got != r.distinct {
			t.Fatalf("line %d: %s: %d distinct tiles, the program counts %d", r.line, r.board, got, r.distinct)
		}
		res := s.Search(r.board)
		var got [4]float64
		for i := range got {
			got[i] = math.NaN()
		}
		for _, m := range res.Moves {
			got[m.Dir] = m.Value
		}
		for i, want := range r.values {
			if math.IsNaN(float64(want)) != math.IsNaN(got[i]) {
				t.Fatalf("line %d: %s: %v legal: %v, in the program: %v", r.line, r.board, engine.Dirs[i], !math.IsNaN(got[i]), !math.IsNaN(float64(want)))
			}
			if math.IsNaN(got[i]) {
				continue
			}
			if w := float64(want); !(math.Abs(got[i]-w) <= 1e-5*math.Abs(w)) {
				t.Fatalf("line %d: %s cap %d: %v worth %v, in the program %v", r.line, r.board, r.cap, engine.Dirs[i], got[i], w)
			}
			if got[i] != float64(want) {
				t.Errorf("line %d: %s cap %d: %v worth %v, in the program %v: not bit for bit", r.line, r.board, r.cap, engine.Dirs[i], got[i], want)
			}
		}
		if s.Evaluated() != r.evaluated {
			t.Errorf("line %d: %s cap %d: %d moves evaluated, the program %d", r.line, r.board, r.cap, s.Evaluated(), r.evaluated)
		}
	}
	for _, capMoves := range []int{1, 2} {
		if caps[capMoves] < 250 {
			t.Errorf("cap %d: %d rows, want the whole table", capMoves, caps[capMoves])
		}
	}
}
