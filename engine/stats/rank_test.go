package stats

import (
	"bufio"
	"math"
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
		if got := RankChange(fit, fitre, idx, 0.5); math.Abs(got-want) > 1e-12 {
			t.Errorf("line %d: RankChange = %v, pycma %v", n+1, got, want)
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
	if s := RankChange(fit, same, idx, 0.5); s >= 0 {
		t.Errorf("reproduced values: s = %v, want < 0", s)
	}
	rev := slices.Clone(fit)
	for _, i := range idx {
		rev[i] = float64(lam-1-i) + 0.5
	}
	if s := RankChange(fit, rev, idx, 0.5); s <= 0 {
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
