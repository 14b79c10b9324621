package engine_test

import (
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

// nnPositionsFile holds positions from the games of nneonneo/2048-ai
// itself at cap 3 (every 10th move of three games), the boards the
// compatible search is compared with that program on.
const nnPositionsFile = "testdata/nneonneo_positions.txt"

func loadNNPositions(tb testing.TB) []engine.Board {
	var out []engine.Board
	for _, p := range loadProgramPositions(tb, nnPositionsFile) {
		out = append(out, p.board)
	}
	return out
}

// BenchmarkNneonneoPositions searches the program's own positions with its
// heuristic, as the program does in play; one op is a pass over them all.
//
//	go test ./engine -run '^$' -bench NneonneoPositions -count 6
func BenchmarkNneonneoPositions(b *testing.B) {
	boards := loadNNPositions(b)
	set, err := eval.Set("nneonneo")
	if err != nil {
		b.Fatal(err)
	}
	e := set.Default()
	for _, capMoves := range []int{1, 2, 3} {
		b.Run("cap="+string(rune('0'+capMoves)), func(b *testing.B) {
			s, _ := engine.NewNneonneo(e, engine.NneonneoOptions{Cap: capMoves})
			for _, x := range boards {
				s.Move(x)
			}
			b.ReportAllocs()
			var nodes uint64
			moves := 0
			cpu0 := engine.CPUTime(b)
			for b.Loop() {
				for _, x := range boards {
					s.Move(x)
					n, _ := s.Nodes()
					nodes += n
				}
				moves += len(boards)
			}
			b.ReportMetric(float64((engine.CPUTime(b)-cpu0).Nanoseconds())/float64(moves), "cpu-ns/move")
			b.ReportMetric(float64(nodes)/float64(moves), "nodes/move")
		})
	}
}
