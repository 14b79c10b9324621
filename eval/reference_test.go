package eval

// The slow, obviously correct twin of the feature sets: a board as a grid of
// ranks, each feature written straight from its definition, sharing no code
// with the line tables.

import (
	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/internal/refboard"
)

func refStandard(g refboard.Grid) []float64 {
	mono := 0
	for _, l := range g.Lines() {
		up, down := 0, 0
		for i := range 3 {
			up += max(0, l[i+1]-l[i])
			down += max(0, l[i]-l[i+1])
		}
		mono -= min(up, down)
	}
	smooth, merge := 0, 0
	g.Pairs(func(a, b int) {
		if a != 0 && b != 0 {
			smooth -= max(a-b, b-a)
			if a == b {
				merge++
			}
		}
	})
	empty, top := g.CountEmpty(), g.MaxRank()
	corner := 0
	if g[0][0] == top || g[0][3] == top || g[3][0] == top || g[3][3] == top {
		corner = top
	}
	return []float64{float64(mono), float64(smooth), float64(empty), float64(corner), float64(merge)}
}

func refClassic(g refboard.Grid) []float64 {
	var d [4]int
	for i, l := range g.Lines() {
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
	g.Pairs(func(a, b int) {
		if a != 0 && b != 0 {
			smooth -= max(a-b, b-a)
		}
	})
	return []float64{float64(g.CountEmpty()), float64(max(d[0], d[1]) + max(d[2], d[3])), float64(smooth)}
}

// reference maps each set to its twin.
var reference = map[string]func(refboard.Grid) []float64{
	"standard": refStandard,
	"classic":  refClassic,
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
				if v := float64(score) + classicSet.Default().Evaluate(nb); !ok || v > bestV {
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
