package eval

// The slow, obviously correct twin of the feature sets: a board as a grid of
// ranks, each feature written straight from its definition, sharing no code
// with the line tables.

import (
	"math/rand/v2"

	"github.com/evotune/evotune/engine"
)

type grid = [4][4]int

// refLines returns the 8 lines: rows left to right, columns top to bottom.
func refLines(g grid) [8][4]int {
	var ls [8][4]int
	for i := range 4 {
		for j := range 4 {
			ls[i][j] = g[i][j]
			ls[4+i][j] = g[j][i]
		}
	}
	return ls
}

// refPairs calls f for every horizontally or vertically adjacent pair.
func refPairs(g grid, f func(a, b int)) {
	for r := range 4 {
		for c := range 4 {
			if c+1 < 4 {
				f(g[r][c], g[r][c+1])
			}
			if r+1 < 4 {
				f(g[r][c], g[r+1][c])
			}
		}
	}
}

func refStandard(g grid) []float64 {
	mono := 0
	for _, l := range refLines(g) {
		up, down := 0, 0
		for i := range 3 {
			up += max(0, l[i+1]-l[i])
			down += max(0, l[i]-l[i+1])
		}
		mono -= min(up, down)
	}
	smooth, merge := 0, 0
	refPairs(g, func(a, b int) {
		if a != 0 && b != 0 {
			smooth -= max(a-b, b-a)
			if a == b {
				merge++
			}
		}
	})
	empty, top := 0, 0
	for r := range 4 {
		for c := range 4 {
			if g[r][c] == 0 {
				empty++
			}
			top = max(top, g[r][c])
		}
	}
	corner := 0
	if g[0][0] == top || g[0][3] == top || g[3][0] == top || g[3][3] == top {
		corner = top
	}
	return []float64{float64(mono), float64(smooth), float64(empty), float64(corner), float64(merge)}
}

func refClassic(g grid) []float64 {
	var d [4]int
	for i, l := range refLines(g) {
		k := 0 // rows into d0, d1; columns into d2, d3
		if i >= 4 {
			k = 2
		}
		for j := range 3 {
			a, b := l[j], l[j+1]
			if a > b {
				d[k] += b - a
			} else {
				d[k+1] += a - b
			}
		}
	}
	smooth := 0
	refPairs(g, func(a, b int) {
		if a != 0 && b != 0 {
			smooth -= max(a-b, b-a)
		}
	})
	empty := 0
	for r := range 4 {
		for c := range 4 {
			if g[r][c] == 0 {
				empty++
			}
		}
	}
	return []float64{float64(empty), float64(max(d[0], d[1]) + max(d[2], d[3])), float64(smooth)}
}

// reference maps each set to its twin.
var reference = map[string]func(grid) []float64{
	"standard": refStandard,
	"classic":  refClassic,
}

// randomBoard draws a board of one of several shapes, so that every table
// entry and edge case is likely: uniform nibbles (rank 15 included), sparse
// early-game boards, and dense boards of neighbouring ranks, where merges
// and ties for the largest tile are common.
func randomBoard(rng *rand.Rand) engine.Board {
	var g grid
	switch rng.IntN(3) {
	case 0:
		return engine.Board(rng.Uint64())
	case 1:
		for r := range 4 {
			for c := range 4 {
				if rng.IntN(3) == 0 {
					g[r][c] = 1 + rng.IntN(4)
				}
			}
		}
	default:
		base := rng.IntN(14)
		for r := range 4 {
			for c := range 4 {
				if rng.IntN(8) != 0 {
					g[r][c] = min(15, base+rng.IntN(3))
				}
			}
		}
	}
	return engine.FromGrid(g)
}

// gameBoards returns the boards met in n seeded games played greedily with
// the classic evaluator (one ply): realistic positions, up to 512-2048 tiles.
func gameBoards(n int) []engine.Board {
	var out []engine.Board
	for seed := range uint64(n) {
		rng := engine.NewGameRand(seed)
		b := engine.NewGameBoard(rng)
		for {
			out = append(out, b)
			best, bestV, ok := b, 0.0, false
			for _, d := range engine.Dirs {
				nb, score, legal := b.Move(d)
				if !legal {
					continue
				}
				if v := float64(score) + (Classic{}).Evaluate(nb); !ok || v > bestV {
					best, bestV, ok = nb, v, true
				}
			}
			if !ok {
				break
			}
			b = best.Spawn(rng.Uint64())
		}
	}
	return out
}
