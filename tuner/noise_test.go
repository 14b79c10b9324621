package tuner

import (
	"bufio"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestRankChangePycma checks the uncertainty measure against pycma's
// NoiseHandler.update_measure on 400 random generations (testdata/
// rankchange.py wrote the file with pycma 4.4.0).
func TestRankChangePycma(t *testing.T) {
	f, err := os.Open("testdata/rankchange.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	floats := func(s string) []float64 {
		var xs []float64
		for _, p := range strings.Split(s, ",") {
			x, err := strconv.ParseFloat(p, 64)
			if err != nil {
				t.Fatal(err)
			}
			xs = append(xs, x)
		}
		return xs
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		fit, fitre := floats(cols[1]), floats(cols[2])
		var idx []int
		for _, x := range floats(cols[3]) {
			idx = append(idx, int(x))
		}
		want := floats(cols[4])[0]
		if got := rankChange(fit, fitre, idx); math.Abs(got-want) > 1e-12 {
			t.Errorf("line %d: rankChange = %v, pycma %v", n+1, got, want)
		}
		n++
	}
	if n != 400 {
		t.Fatalf("read %d cases, want 400", n)
	}
}

// TestRankChangeExtremes: re-evaluations that reproduce the values exactly
// are clear ranking (s < 0); re-evaluations that reverse the ranking are
// noise (s > 0).
func TestRankChangeExtremes(t *testing.T) {
	lam := 12
	fit := make([]float64, lam)
	for i := range fit {
		fit[i] = float64(i)
	}
	idx := []int{0, 1, 11}
	same := slices.Clone(fit)
	for _, i := range idx {
		same[i] += 1e-9
	}
	if s := rankChange(fit, same, idx); s >= 0 {
		t.Errorf("reproduced values: s = %v, want < 0", s)
	}
	rev := slices.Clone(fit)
	for _, i := range idx {
		rev[i] = float64(lam-1-i) + 0.5
	}
	if s := rankChange(fit, rev, idx); s <= 0 {
		t.Errorf("reversed values: s = %v, want > 0", s)
	}
}

// TestPrctile compares pycma's percentile rule with values worked by hand.
func TestPrctile(t *testing.T) {
	for _, tc := range []struct {
		data []float64
		p    float64
		want float64
	}{
		{[]float64{3, 1, 2}, 50, 2},
		{[]float64{1, 2, 3, 4}, 50, 2.5},
		{[]float64{1, 2, 3, 4}, 25, 1.5},
		{[]float64{1, 2, 3, 4}, 10, 1},         // fi = -0.1: the first value
		{[]float64{1, 2, 3, 4}, 99, 4},         // fi = 3.46: the last value
		{[]float64{0, 10, 20, 30, 40}, 30, 10}, // fi = 1
	} {
		if got := prctile(tc.data, tc.p); got != tc.want {
			t.Errorf("prctile(%v, %v) = %v, want %v", tc.data, tc.p, got, tc.want)
		}
	}
}

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
	// 2.4 (λ = 8's default) is 2 or 3, 3 about 40% of the time.
	three := 0
	for range 1000 {
		switch got := reevaluated(fit, all, 0, rng); len(got) {
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

// TestPairedT checks the statistic against one computed by hand and its
// degenerate cases.
func TestPairedT(t *testing.T) {
	// differences 1, 2, 3: mean 2, sd 1, t = 2/(1/√3) = 2√3.
	if got := pairedT([]float64{2, 4, 6}, []float64{1, 2, 3}); math.Abs(got-2*math.Sqrt(3)) > 1e-12 {
		t.Errorf("pairedT = %v, want %v", got, 2*math.Sqrt(3))
	}
	if got := pairedT([]float64{2, 3}, []float64{1, 2}); !math.IsInf(got, 1) {
		t.Errorf("equal positive differences: %v, want +Inf", got)
	}
	if got := pairedT([]float64{2, 3}, []float64{2, 3}); got != 0 {
		t.Errorf("no differences: %v, want 0", got)
	}
	// The critical value for 8 games at 1%: Student's t with 7 degrees of
	// freedom, 2.998 (tables).
	if got := raceCritical(8); math.Abs(got-2.998) > 1e-3 {
		t.Errorf("raceCritical(8) = %v, want 2.998", got)
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
