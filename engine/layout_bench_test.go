package engine_test

import (
	"fmt"
	"testing"

	"github.com/evotune/evotune/engine"
)

// BenchmarkLayout compares transposition-table entry layouts (see
// engine/layout_test.go) on the positions file at 5 to 7 plies, with the
// players' table size and lifetime, exact (cutoff=0) and with the players'
// cutoff (cutoff=play). layout=prod is the production searcher, the others
// the benchmark copy: 24 is the production entry in the copy, 16key the
// exact 16-byte entry with depth and tag in the key word, 16f32 the
// 16-byte entry with a float32 value, 24always the production entry with
// 16key's always-replace policy. diff/pass counts the positions whose
// chosen move differs from the production searcher's with the same options.
func BenchmarkLayout(b *testing.B) {
	pos := loadPositions(b)
	e := positionsEval(b)
	layouts := []struct {
		name   string
		layout engine.EntryLayout
	}{{"24", engine.Layout24}, {"16key", engine.Layout16Key}, {"16f32", engine.Layout16F32}, {"24always", engine.Layout24Always}}
	for _, depth := range []int{5, 6, 7} {
		for _, cut := range []string{"0", "play"} {
			opts := engine.ExpectimaxOptions{Depth: depth, TableBits: engine.PlayTableBits(depth), LossValue: engine.DefaultLossValue}
			if cut == "play" {
				opts.ProbCutoff = engine.PlayCutoff(depth)
			}
			ref, err := engine.NewExpectimax(e, opts)
			if err != nil {
				b.Fatal(err)
			}
			want := make([]engine.Dir, len(pos))
			for i, p := range pos {
				if i == 0 || p.seed != pos[i-1].seed || p.move != pos[i-1].move+1 {
					ref.Reset()
				}
				want[i] = ref.Move(p.board)
			}
			b.Run(fmt.Sprintf("plies=%d/cutoff=%s/layout=prod", depth, cut), func(b *testing.B) {
				benchPositions(b, e, opts, engine.ScopeGame, pos)
			})
			for _, l := range layouts {
				b.Run(fmt.Sprintf("plies=%d/cutoff=%s/layout=%s", depth, cut, l.name), func(b *testing.B) {
					s := engine.NewLayoutSearch(e, opts, l.layout)
					b.ReportAllocs()
					var nodes, hits uint64
					moves, diff := 0, 0
					cpu0 := engine.CPUTime(b)
					for b.Loop() {
						for i, p := range pos {
							if i == 0 || p.seed != pos[i-1].seed || p.move != pos[i-1].move+1 {
								s.Reset()
							}
							_, best := s.Search(p.board)
							if best != want[i] {
								diff++
							}
							n, h := s.Nodes()
							nodes += n
							hits += h
							moves++
						}
					}
					passes := float64(moves) / float64(len(pos))
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(moves), "ns/move")
					b.ReportMetric(float64((engine.CPUTime(b)-cpu0).Nanoseconds())/float64(moves), "cpu-ns/move")
					b.ReportMetric(float64(nodes)/float64(moves), "nodes/move")
					b.ReportMetric(float64(hits)/float64(moves), "hits/move")
					b.ReportMetric(float64(diff)/passes, "diff/pass")
				})
			}
		}
	}
}
