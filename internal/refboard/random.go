package refboard

import "math/rand/v2"

// The generators are generic in the board type so that engine's tests get
// engine.Board values without this package importing engine; call them as
// Random[engine.Board](rng, 0.4, 11).

// Random draws a board whose cells are each empty with probability pEmpty
// and otherwise hold a rank in [1, maxRank], uniformly.
func Random[B ~uint64](rng *rand.Rand, pEmpty float64, maxRank int) B {
	var b B
	for i := range 16 {
		if rng.Float64() < pEmpty {
			continue
		}
		b |= B(1+rng.IntN(maxRank)) << (4 * i)
	}
	return b
}

// Mixed returns n boards from the stream seeded by seed that cycle through
// uniform nibbles, sparse boards of small ranks, scattered large ranks and
// full boards, so that merges, slides, blocked lines and 32768 pairs all
// occur often: the boards a move's differential test wants.
func Mixed[B ~uint64](seed uint64, n int) []B {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]B, n)
	for i := range out {
		switch i % 4 {
		case 0:
			out[i] = B(rng.Uint64())
		case 1:
			out[i] = Random[B](rng, 0.4, 3)
		case 2:
			out[i] = Random[B](rng, 0.2, 15)
		default:
			out[i] = Random[B](rng, 0, 2+rng.IntN(14))
		}
	}
	return out
}

// Shaped draws a board of one of three shapes, so that every entry of an
// evaluator's tables and its edge cases are likely: uniform nibbles (rank
// 15 included), sparse early-game boards, and dense boards of neighbouring
// ranks, where merges and ties for the largest tile are common.
func Shaped[B ~uint64](rng *rand.Rand) B {
	var g Grid
	switch rng.IntN(3) {
	case 0:
		return B(rng.Uint64())
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
	return B(g.Bits())
}
