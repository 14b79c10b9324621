package engine_test

import (
	"fmt"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

// midgame returns boards from real games at move 300 or so: the positions
// the searchers spend their time on.
func midgame(n int) []engine.Board {
	s, _ := engine.NewExpectimax(classic, engine.ExpectimaxOptions{Depth: 2})
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
	s, err := engine.NewExpectimax(classic, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var nodes uint64
	i := 0
	cpu0 := engine.CPUTime(b)
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
	b.ReportMetric(float64(nodes)/(engine.CPUTime(b)-cpu0).Seconds(), "nodes/cpu-s")
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

// benchPositions searches every position of the positions file in order, as
// a player meets them (Reset at each new run), and reports per-move figures;
// one op is one pass over the file.
func benchPositions(b *testing.B, e engine.Evaluator, opts engine.ExpectimaxOptions, scope engine.TableScope, pos []position) {
	s, err := engine.NewExpectimax(e, opts)
	if err != nil {
		b.Fatal(err)
	}
	s.SetTableScope(scope)
	benchSearcherPositions(b, s, pos)
}

// benchSearcherPositions is benchPositions for a searcher already made.
func benchSearcherPositions(b *testing.B, s *engine.Expectimax, pos []position) {
	b.ReportAllocs()
	var nodes, hits uint64
	moves := 0
	cpu0 := engine.CPUTime(b)
	for b.Loop() {
		for i, p := range pos {
			if i == 0 || p.seed != pos[i-1].seed || p.move != pos[i-1].move+1 {
				s.Reset()
			}
			s.Move(p.board)
			n, h := s.Nodes()
			nodes += n
			hits += h
			moves++
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(moves), "ns/move")
	b.ReportMetric(float64((engine.CPUTime(b)-cpu0).Nanoseconds())/float64(moves), "cpu-ns/move")
	b.ReportMetric(float64(nodes)/float64(moves), "nodes/move")
	b.ReportMetric(float64(hits)/float64(moves), "hits/move")
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

// positionsEval is the evaluator the table benchmarks search with.
func positionsEval(b *testing.B) engine.Evaluator {
	set, err := eval.Set("standard")
	if err != nil {
		b.Fatal(err)
	}
	e, err := set.Compile(positionWeights)
	if err != nil {
		b.Fatal(err)
	}
	return e
}

var scopeNames = []struct {
	name  string
	scope engine.TableScope
}{{"search", engine.ScopeSearch}, {"rootmove", engine.ScopeRootMove}, {"game", engine.ScopeGame}}

// BenchmarkTable measures the table policy on positions from real games:
// sizes (log2 entries, 0 = no table) and scopes at 4 to 7 plies, exact
// values (no cutoff); every configuration gives the same moves.
func BenchmarkTable(b *testing.B) {
	pos := loadPositions(b)
	e := positionsEval(b)
	for _, depth := range []int{4, 5, 6, 7} {
		for _, bits := range []int{0, 12, 14, 16, 18, 20, 22} {
			for _, sc := range scopeNames {
				if bits == 0 && sc.scope != engine.ScopeSearch {
					continue
				}
				b.Run(fmt.Sprintf("plies=%d/bits=%d/scope=%s", depth, bits, sc.name), func(b *testing.B) {
					benchPositions(b, e, engine.ExpectimaxOptions{Depth: depth, TableBits: bits, LossValue: engine.DefaultLossValue}, sc.scope, pos)
				})
			}
		}
	}
}

// BenchmarkCutoff measures the probability cutoff at 5 and 7 plies with
// the players' table, on the same positions.
func BenchmarkCutoff(b *testing.B) {
	pos := loadPositions(b)
	e := positionsEval(b)
	cutoffs := map[int][]float64{5: {0, 0.003, 0.01, 0.02, 0.05}, 7: {0, 1e-4, 3e-4, 1e-3, 3e-3}}
	for _, depth := range []int{5, 7} {
		for _, cut := range cutoffs[depth] {
			b.Run(fmt.Sprintf("plies=%d/cutoff=%g", depth, cut), func(b *testing.B) {
				opts := engine.ExpectimaxOptions{Depth: depth, TableBits: engine.PlayTableBits(depth), ProbCutoff: cut, LossValue: engine.DefaultLossValue}
				benchPositions(b, e, opts, engine.ScopeGame, pos)
			})
		}
	}
}

// BenchmarkTableDeep measures table sizes at 8 and 9 plies with the
// players' lifetime, exact (cutoff=0) and with the players' cutoff
// (cutoff=play), on every position of the file (a pass takes about 4 CPU
// seconds at 9 plies exact).
func BenchmarkTableDeep(b *testing.B) {
	pos := loadPositions(b)
	e := positionsEval(b)
	for _, depth := range []int{8, 9} {
		for _, cut := range []string{"0", "play"} {
			for _, bits := range []int{12, 14, 16, 18, 20, 22} {
				opts := engine.ExpectimaxOptions{Depth: depth, TableBits: bits, LossValue: engine.DefaultLossValue}
				if cut == "play" {
					opts.ProbCutoff = engine.PlayCutoff(depth)
				}
				b.Run(fmt.Sprintf("plies=%d/cutoff=%s/bits=%d", depth, cut, bits), func(b *testing.B) {
					benchPositions(b, e, opts, engine.ScopeGame, pos)
				})
			}
		}
	}
}

// cornerPlayer plays the first legal move of down, left, right, up: a
// cheap player that makes long games with full boards near their end.
type cornerPlayer struct{}

func (cornerPlayer) Move(b engine.Board) engine.Dir {
	for _, d := range []engine.Dir{engine.Down, engine.Left, engine.Right, engine.Up} {
		if _, _, ok := b.Move(d); ok {
			return d
		}
	}
	panic("no legal move")
}

// BenchmarkGameSteps replays recorded games through Game, as a player pool
// does for a player in another process: per move, the move, the spawn and
// the test for the game's end; one op is one pass over 64 games.
func BenchmarkGameSteps(b *testing.B) {
	games := make([][]engine.Dir, 64)
	for i := range games {
		g := engine.NewGame(engine.GameSeed(7, uint64(i)))
		for !g.Over(0) {
			d := cornerPlayer{}.Move(g.Board())
			games[i] = append(games[i], d)
			if err := g.Play(d); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportAllocs()
	moves := 0
	for b.Loop() {
		for i, dirs := range games {
			g := engine.NewGame(engine.GameSeed(7, uint64(i)))
			for _, d := range dirs {
				if g.Over(0) {
					b.Fatal("game over early")
				}
				if err := g.Play(d); err != nil {
					b.Fatal(err)
				}
			}
			moves += len(dirs)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(moves), "ns/move")
}
