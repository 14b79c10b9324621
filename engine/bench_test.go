package engine_test

import (
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

// midgame returns boards from real games at move 300 or so: the positions
// the searchers spend their time on.
func midgame(n int) []engine.Board {
	s, _ := engine.NewExpectimax(eval.Classic{}, engine.ExpectimaxOptions{Depth: 2})
	out := make([]engine.Board, 0, n)
	for i := uint64(0); len(out) < n; i++ {
		r := engine.PlayLimit(engine.GameSeed(99, i), s, 200+int(i%7)*20)
		if r.Final.CanMove() {
			out = append(out, r.Final)
		}
	}
	return out
}

func BenchmarkMove(b *testing.B) {
	boards := searchBoards(1, 4096, 0, 10)
	b.ReportAllocs()
	var sink engine.Board
	n := 0
	for b.Loop() {
		for _, x := range boards {
			for _, d := range engine.Dirs {
				nb, _, _ := x.Move(d)
				sink ^= nb
			}
		}
		n += len(boards) * 4
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "moves/s")
	_ = sink
}

func benchSearch(b *testing.B, opts engine.ExpectimaxOptions, boards []engine.Board) {
	s, err := engine.NewExpectimax(eval.Classic{}, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var nodes uint64
	i := 0
	for b.Loop() {
		// A fresh table each time: the figure is a single search's, not one
		// helped by the same board searched before.
		s.Reset()
		s.Move(boards[i%len(boards)])
		n, _ := s.Nodes()
		nodes += n
		i++
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
	b.ReportMetric(float64(nodes)/float64(i), "nodes/op")
}

// The plies=8 cases compare nodes/op of the exact and table searches on the
// same mid-game boards.
func BenchmarkExpectimaxExact(b *testing.B) {
	boards := midgame(16)
	for _, depth := range []int{3, 5, 8} {
		b.Run("plies="+string(rune('0'+depth)), func(b *testing.B) {
			benchSearch(b, engine.ExpectimaxOptions{Depth: depth}, boards)
		})
	}
}

func BenchmarkExpectimaxTable(b *testing.B) {
	boards := midgame(16)
	for _, depth := range []int{3, 5, 8} {
		b.Run("plies="+string(rune('0'+depth)), func(b *testing.B) {
			benchSearch(b, engine.ExpectimaxOptions{Depth: depth, TableBits: 20}, boards)
		})
	}
}
