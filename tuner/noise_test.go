package tuner

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestReevaluated(t *testing.T) {
	fit := []float64{5, 4, 3, 2, 1, 0, 6, 7}
	all := make([]bool, len(fit))
	for i := range all {
		all[i] = true
	}
	rng := rand.New(rand.NewPCG(1, 2))
	// 3 candidates: the first 2 and the best of the rest (index 5).
	if got := reevaluated(fit, all, 3, rng); !slices.Equal(got, []int{0, 1, 5}) {
		t.Errorf("reevaluated(3) = %v, want [0 1 5]", got)
	}
	// 2.4 (λ = 8's default, Tuner.reevaluations) is 2 or 3, 3 about 40%
	// of the time.
	lamReev := (&Tuner{cfg: &Config{}}).reevaluations(len(fit))
	if lamReev != 2.4 {
		t.Fatalf("λ_r of λ 8: %v, want pycma's 2 + 8/20", lamReev)
	}
	three := 0
	for range 1000 {
		switch got := reevaluated(fit, all, lamReev, rng); len(got) {
		case 3:
			three++
		case 2:
			if !slices.Equal(got, []int{0, 5}) {
				t.Fatalf("reevaluated(2) = %v, want [0 5]", got)
			}
		default:
			t.Fatalf("reevaluated(2.4) chose %d", len(got))
		}
	}
	if three < 330 || three > 470 {
		t.Errorf("3 of 2.4 chosen %d times in 1000, want about 400", three)
	}
	// Dropped candidates are never chosen.
	some := slices.Clone(all)
	some[0], some[5] = false, false
	if got := reevaluated(fit, some, 3, rng); !slices.Equal(got, []int{1, 2, 4}) {
		t.Errorf("reevaluated without 0 and 5 = %v, want [1 2 4]", got)
	}
}

func TestEffort(t *testing.T) {
	if got := nextEffort(16, 0.1, 8, 64); got != 24 {
		t.Errorf("noisy: %v, want 24", got)
	}
	if got := nextEffort(16, -0.1, 8, 64); math.Abs(got-16*math.Pow(1.5, -0.25)) > 1e-12 {
		t.Errorf("clear: %v", got)
	}
	if got := nextEffort(60, 1, 8, 64); got != 64 {
		t.Errorf("at the upper bound: %v, want 64", got)
	}
	if got := nextEffort(8, -1, 8, 64); got != 8 {
		t.Errorf("at the lower bound: %v, want 8", got)
	}
	for _, tc := range []struct {
		effort        float64
		block, lo, hi int
		want          int
	}{
		{16, 4, 8, 64, 16}, {17.9, 4, 8, 64, 16}, {18.1, 4, 8, 64, 20}, {3, 4, 8, 64, 8}, {100, 4, 8, 64, 64},
	} {
		if got := gamesFor(tc.effort, tc.block, tc.lo, tc.hi); got != tc.want {
			t.Errorf("gamesFor(%v, %d, %d, %d) = %d, want %d", tc.effort, tc.block, tc.lo, tc.hi, got, tc.want)
		}
	}
}

// TestBeaten: a candidate that every other beats on every paired game is
// dropped once μ others beat it; the μ best by mean never are.
func TestBeaten(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const lam, n, mu = 8, 12, 4
	u := make([][]float64, lam)
	for c := range u {
		u[c] = make([]float64, n)
		for j := range u[c] {
			u[c][j] = 1000*float64(c) + 300*rng.NormFloat64() // candidate c is better by 1000 per rank
		}
	}
	playing := make([]bool, lam)
	for c := range playing {
		playing[c] = true
	}
	got := beaten(u, playing, n, mu)
	for c := lam - mu; c < lam; c++ {
		if got[c] {
			t.Errorf("candidate %d, among the %d best, was dropped", c, mu)
		}
	}
	if !got[0] || !got[1] {
		t.Errorf("the two worst were not dropped: %v", got)
	}
	// Identical candidates never beat one another.
	same := make([][]float64, lam)
	for c := range same {
		same[c] = u[0]
	}
	if slices.Contains(beaten(same, playing, n, 1), true) {
		t.Error("identical candidates: one was dropped")
	}
}
