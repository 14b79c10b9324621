package players_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/internal/cputime"
)

// playerCPU reads a child's CPU time from /proc (Linux), so that a figure
// can leave out the player's start-up; ok is false elsewhere.
func playerCPU(p *proc) (time.Duration, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0, false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndex(s, ")")+2:])
	var user, sys int64
	if len(f) < 13 {
		return 0, false
	}
	fmt.Sscan(f[11], &user)
	fmt.Sscan(f[12], &sys)
	return time.Duration(user+sys) * 10 * time.Millisecond, true // USER_HZ is 100 on Linux
}

// reportCPU adds the CPU per move of the player and of this side of the
// protocol, since the start of the measured part.
func reportCPU(b *testing.B, p *proc, p0 time.Duration, ok bool, c0 time.Duration, moves int) {
	if moves == 0 {
		return
	}
	if c1, err := cputime.Process(); err == nil {
		b.ReportMetric(float64((c1-c0).Nanoseconds())/float64(moves), "driver-cpu-ns/move")
	}
	if p1, ok1 := playerCPU(p); ok && ok1 {
		b.ReportMetric(float64((p1-p0).Nanoseconds())/float64(moves), "player-cpu-ns/move")
	}
}

// playGames plays n games of evotune's seeded rules (seeds 1..n) through the
// player, k at a time in lockstep as a player pool does, and returns the moves.
func playGames(p *proc, n, k int) int {
	type game struct {
		rng interface{ Uint64() uint64 }
		b   engine.Board
	}
	var live []*game
	next, moves := 1, 0
	boards := make([]engine.Board, 0, k)
	for len(live) > 0 || next <= n {
		for len(live) < k && next <= n {
			rng := engine.NewGameRand(uint64(next))
			live = append(live, &game{rng, engine.NewGameBoard(rng)})
			next++
		}
		boards = boards[:0]
		for _, g := range live {
			boards = append(boards, g.b)
		}
		ds := p.moves(boards, k)
		keep := live[:0]
		for i, g := range live {
			nb, _, _ := g.b.Move(ds[i])
			g.b = nb.Spawn(g.rng.Uint64())
			moves++
			if g.b.CanMove() {
				keep = append(keep, g)
			}
		}
		live = keep
	}
	return moves
}

// BenchmarkNneonneoGames plays b.N games through the nneonneo adapter at cap
// 2, in version 1 of the protocol, k at a time (8, and 64 as a player pool's slot does by default): what a
// slot costs per game and per move, on the player's side and on this side of
// the pipes.
//
//	go test ./examples/players -run '^$' -bench NneonneoGames -benchtime 100x
func BenchmarkNneonneoGames(b *testing.B) {
	bin := buildNneonneo(b)
	for _, k := range []int{8, 64} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			p := start(b, bin, "--cap", "2", "--protocol", "1")
			if r := p.set(nil); r != "ok" {
				b.Fatalf("set: %q", r)
			}
			p0, ok := playerCPU(p)
			c0, _ := cputime.Process()
			b.ResetTimer()
			moves := playGames(p, b.N, k)
			b.StopTimer()
			b.ReportMetric(float64(moves)/float64(b.N), "moves/game")
			reportCPU(b, p, p0, ok, c0, moves)
			p.quit()
		})
	}
}

// BenchmarkNneonneoCap1Moves asks the nneonneo adapter at cap 1, where a
// board's search takes a few microseconds, for moves on boards of seeded
// games, 64 boards a request, b.N boards in all: in version 1, and in version
// 2 with the boards spread over 4 sets (each given the program's constants),
// so that what naming a set per board costs the player shows as the
// difference in player-cpu-ns/move.
//
//	go test ./examples/players -run '^$' -bench NneonneoCap1Moves -benchtime 200000x
func BenchmarkNneonneoCap1Moves(b *testing.B) {
	bin := buildNneonneo(b)
	benchMoves(b, testBoards(b, 2000), 64, func(b *testing.B, protocol string) *proc {
		return start(b, bin, "--cap", "1", "--protocol", protocol)
	})
}

// BenchmarkPythonMoves asks the Python player for moves on boards of seeded
// games at its default depth, 16 boards a request, b.N boards in all: in
// version 1, and in version 2 with the boards spread over 4 sets (each given
// the defaults), so that what naming a set per board costs the player shows
// as the difference in player-cpu-ns/move.
//
//	go test ./examples/players -run '^$' -bench PythonMoves -benchtime 20000x
func BenchmarkPythonMoves(b *testing.B) {
	benchMoves(b, testBoards(b, min(b.N, 2000)), 16, func(b *testing.B, protocol string) *proc {
		return start(b, pythonPlayer(b, "--protocol", protocol)...)
	})
}

// benchMoves asks the player that start starts in each protocol version
// for the moves of boards, k a request, b.N boards in all: in version 2
// spread over 4 sets, each given the defaults.
func benchMoves(b *testing.B, boards []engine.Board, k int, start func(b *testing.B, protocol string) *proc) {
	for _, protocol := range []string{"1", "2"} {
		b.Run("protocol="+protocol, func(b *testing.B) {
			p := start(b, protocol)
			var sets []int
			if protocol == "2" {
				sets = make([]int, len(boards))
				for s := 1; s <= 4; s++ {
					if r := p.setIn(s, nil); r != "ok" {
						b.Fatalf("set %d: %q", s, r)
					}
				}
				for i := range sets {
					sets[i] = 1 + i%4
				}
			} else if r := p.set(nil); r != "ok" {
				b.Fatalf("set: %q", r)
			}
			p0, ok := playerCPU(p)
			c0, _ := cputime.Process()
			b.ResetTimer()
			for done := 0; done < b.N; {
				n := min(b.N-done, len(boards))
				if sets != nil {
					p.movesIn(sets[:n], boards[:n], k)
				} else {
					p.moves(boards[:n], k)
				}
				done += n
			}
			b.StopTimer()
			reportCPU(b, p, p0, ok, c0, b.N)
			p.quit()
		})
	}
}
