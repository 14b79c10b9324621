package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/evotune/evotune/engine"
)

// results builds paired games on seeds 1..n from scores and max tiles (a
// nil tiles slice means 1024 everywhere).
func results(scores []float64, tiles []int) []engine.Result {
	rs := make([]engine.Result, len(scores))
	for i, s := range scores {
		rs[i] = engine.Result{Seed: uint64(i + 1), Score: int(s), MaxTile: 1024}
		if tiles != nil {
			rs[i].MaxTile = tiles[i]
		}
	}
	return rs
}

func near(got, want, tol float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	return math.Abs(got-want) <= tol*max(1, math.Abs(want))
}

// t975 are Student's t 0.975 quantiles, from tables, for hand computation
// (gonum's quantile agrees to about 1e-10, hence the tolerance on intervals).
const (
	t975df1 = 12.706204736174698
	t975df2 = 4.302652729911275
	t975df3 = 3.182446305284263
)

func TestCompare(t *testing.T) {
	tests := []struct {
		name               string
		a, b               []float64
		diff, lo, hi       float64
		ratio, rlo, rhi    float64
		wins, losses, ties int
		verdict            Verdict
	}{
		{
			// d = 2 3 4: mean 3, sd 1, half t(2)/√3. u = a/5 - b/2 =
			// 0.1 0 -0.1: sd 0.1, ratio 2.5·exp(∓t(2)·0.1/√3).
			name: "A better", a: []float64{3, 5, 7}, b: []float64{1, 2, 3},
			diff: 3, lo: 3 - t975df2/math.Sqrt(3), hi: 3 + t975df2/math.Sqrt(3),
			ratio: 2.5, rlo: 1.9500927990305903, rhi: 3.2049756827505513,
			wins: 3, verdict: ABetter,
		},
		{
			// The mirror of the above: B/A = 0.4, interval reciprocal.
			name: "B better", a: []float64{1, 2, 3}, b: []float64{3, 5, 7},
			diff: -3, lo: -3 - t975df2/math.Sqrt(3), hi: -3 + t975df2/math.Sqrt(3),
			ratio: 0.4, rlo: 1 / 3.2049756827505513, rhi: 1 / 1.9500927990305903,
			losses: 3, verdict: BBetter,
		},
		{
			// d = 0 -5 -6 -8: mean -4.75, Σ(d-mean)² = 34.75, sd √(34.75/3),
			// half t(3)·sd/2 = 5.4157 > 4.75: the interval holds 0.
			// Means 25 and 29.75; u = a/25 - b/29.75.
			name: "no difference", a: []float64{10, 20, 30, 40}, b: []float64{10, 25, 36, 48},
			diff: -4.75, lo: -4.75 - t975df3*math.Sqrt(34.75/3)/2, hi: -4.75 + t975df3*math.Sqrt(34.75/3)/2,
			ratio: 25 / 29.75, rlo: math.NaN(), rhi: math.NaN(), // checked against the formula below
			losses: 3, ties: 1, verdict: NoDifference,
		},
		{
			name: "identical", a: []float64{100, 300, 200}, b: []float64{100, 300, 200},
			diff: 0, lo: 0, hi: 0, ratio: 1, rlo: 1, rhi: 1, ties: 3, verdict: NoDifference,
		},
		{
			// One game: no interval, no verdict, however large the gap.
			name: "one game", a: []float64{1000}, b: []float64{10},
			diff: 990, lo: 990, hi: 990, ratio: 100, rlo: 100, rhi: 100, wins: 1, verdict: NoDifference,
		},
		{
			// d = 4 8: mean 6, sd 2√2, half t(1)·2√2/√2 = 2·t(1). No
			// ratio without mean(b) > 0.
			name: "B scored nothing", a: []float64{4, 8}, b: []float64{0, 0},
			diff: 6, lo: 6 - 2*t975df1, hi: 6 + 2*t975df1,
			ratio: math.NaN(), rlo: math.NaN(), rhi: math.NaN(), wins: 2, verdict: NoDifference,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Compare(results(tt.a, nil), results(tt.b, nil))
			if err != nil {
				t.Fatal(err)
			}
			if c.Games != len(tt.a) || !near(c.Diff, tt.diff, 1e-12) || !near(c.DiffCI95.Lo, tt.lo, 1e-9) || !near(c.DiffCI95.Hi, tt.hi, 1e-9) {
				t.Errorf("games %d, diff %v [%v, %v]; want %d, %v [%v, %v]", c.Games, c.Diff, c.DiffCI95.Lo, c.DiffCI95.Hi, len(tt.a), tt.diff, tt.lo, tt.hi)
			}
			rlo, rhi := tt.rlo, tt.rhi
			if tt.name == "no difference" {
				// u = 10/25-10/29.75, 20/25-25/29.75, ... written out.
				u := []float64{0.4 - 10/29.75, 0.8 - 25/29.75, 1.2 - 36/29.75, 1.6 - 48/29.75}
				ss := 0.0
				for _, x := range u {
					ss += x * x // their mean is 0
				}
				half := t975df3 * math.Sqrt(ss/3) / 2
				rlo, rhi = tt.ratio*math.Exp(-half), tt.ratio*math.Exp(half)
			}
			if !near(c.Ratio, tt.ratio, 1e-12) || !near(c.RatioCI95.Lo, rlo, 1e-9) || !near(c.RatioCI95.Hi, rhi, 1e-9) {
				t.Errorf("ratio %v [%v, %v]; want %v [%v, %v]", c.Ratio, c.RatioCI95.Lo, c.RatioCI95.Hi, tt.ratio, rlo, rhi)
			}
			if c.Wins != tt.wins || c.Losses != tt.losses || c.Ties != tt.ties {
				t.Errorf("W/L/T %d/%d/%d; want %d/%d/%d", c.Wins, c.Losses, c.Ties, tt.wins, tt.losses, tt.ties)
			}
			if c.Verdict != tt.verdict {
				t.Errorf("verdict %v; want %v", c.Verdict, tt.verdict)
			}
		})
	}
}

func TestCompareReach(t *testing.T) {
	// 4 games; A reaches 2048 in 3 and 4096 in 1, B 2048 in 1. Neither
	// reaches 8192, so only two tiles are listed.
	a := results([]float64{1, 2, 3, 4}, []int{2048, 4096, 2048, 1024})
	b := results([]float64{1, 2, 3, 4}, []int{512, 2048, 1024, 1024})
	c, err := Compare(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Reach) != 2 {
		t.Fatalf("reach %+v: want 2048 and 4096 only", c.Reach)
	}
	r := c.Reach[0]
	if r.Tile != 2048 || r.A.Hits != 3 || r.B.Hits != 1 || r.A.Games != 4 || r.A.Value() != 0.75 || r.B.Value() != 0.25 {
		t.Errorf("2048: %+v", r)
	}
	if r.A.CI95 != wilson95(3, 4) || r.B.CI95 != wilson95(1, 4) {
		t.Errorf("2048 intervals %+v", r)
	}
	if r := c.Reach[1]; r.Tile != 4096 || r.A.Hits != 1 || r.B.Hits != 0 || r.B.CI95.Lo != 0 {
		t.Errorf("4096: %+v", r)
	}
}

func TestWilson(t *testing.T) {
	// From (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n), z = 1.959964.
	tests := []struct {
		hits, n int
		want    Interval
	}{
		{0, 10, Interval{0, 0.2775327998628892}},
		{10, 10, Interval{0.7224672001371107, 1}},
		{5, 10, Interval{0.236593090512564, 0.7634069094874361}},
		{1, 20, Interval{0.008881448800795402, 0.23613119344674205}},
		{0, 0, Interval{0, 1}},
	}
	for _, tt := range tests {
		got := wilson95(tt.hits, tt.n)
		if !near(got.Lo, tt.want.Lo, 1e-12) || !near(got.Hi, tt.want.Hi, 1e-12) {
			t.Errorf("wilson95(%d, %d) = %+v, want %+v", tt.hits, tt.n, got, tt.want)
		}
	}
}

func TestCompareErrors(t *testing.T) {
	a := results([]float64{1, 2}, nil)
	short := results([]float64{1}, nil)
	other := results([]float64{1, 2}, nil)
	other[1].Seed = 99
	for _, b := range [][]engine.Result{short, other} {
		if _, err := Compare(a, b); !errors.Is(err, ErrCompare) {
			t.Errorf("Compare with %d games, seeds %d...: err %v, want ErrCompare", len(b), b[0].Seed, err)
		}
	}
	if _, err := Compare(nil, nil); !errors.Is(err, ErrCompare) {
		t.Errorf("Compare of no games: err %v, want ErrCompare", err)
	}
}

// pairedScores draws n paired game scores whose true ratio of means is
// rho: log-normal with coefficient of variation 0.5 (as 2048 scores have),
// the logs of a_i and b_i correlated 0.3 through a shared term (the seed).
func pairedScores(rng *rand.Rand, n int, rho float64) (a, b []float64) {
	const cv, corr, mean = 0.5, 0.3, 30000
	sigma := math.Sqrt(math.Log(1 + cv*cv))
	a, b = make([]float64, n), make([]float64, n)
	for i := range a {
		z0 := rng.NormFloat64()
		za := math.Sqrt(corr)*z0 + math.Sqrt(1-corr)*rng.NormFloat64()
		zb := math.Sqrt(corr)*z0 + math.Sqrt(1-corr)*rng.NormFloat64()
		a[i] = math.Round(rho * mean * math.Exp(sigma*za-sigma*sigma/2))
		b[i] = math.Round(mean * math.Exp(sigma*zb-sigma*sigma/2))
	}
	return a, b
}

// mirror is the verdict with A and B swapped.
func mirror(v Verdict) Verdict {
	switch v {
	case ABetter:
		return BBetter
	case BBetter:
		return ABetter
	}
	return v
}

func TestCompareMirror(t *testing.T) {
	// Swapping A and B negates the difference, inverts the ratio and its
	// interval, swaps wins and losses and the reach rates, mirrors the
	// verdict, and, with mirrored hypotheses, negates the LLR.
	rng := rand.New(rand.NewPCG(7, 1))
	tiles := []int{512, 1024, 2048, 4096, 8192}
	for trial := range 300 {
		n := 2 + rng.IntN(60)
		rho := []float64{0.7, 0.95, 1, 1.05, 1.4}[trial%5]
		sa, sb := pairedScores(rng, n, rho)
		if trial%7 == 0 {
			copy(sb, sa) // identical players
		}
		ta, tb := make([]int, n), make([]int, n)
		for i := range ta {
			ta[i], tb[i] = tiles[rng.IntN(len(tiles))], tiles[rng.IntN(len(tiles))]
		}
		a, b := results(sa, ta), results(sb, tb)
		ab, err := Compare(a, b)
		if err != nil {
			t.Fatal(err)
		}
		ba, err := Compare(b, a)
		if err != nil {
			t.Fatal(err)
		}
		if ba.Diff != -ab.Diff || ba.DiffCI95.Lo != -ab.DiffCI95.Hi || ba.DiffCI95.Hi != -ab.DiffCI95.Lo {
			t.Fatalf("trial %d: diff %v %+v, swapped %v %+v", trial, ab.Diff, ab.DiffCI95, ba.Diff, ba.DiffCI95)
		}
		if !near(ba.Ratio, 1/ab.Ratio, 1e-12) || !near(ba.RatioCI95.Lo, 1/ab.RatioCI95.Hi, 1e-12) || !near(ba.RatioCI95.Hi, 1/ab.RatioCI95.Lo, 1e-12) {
			t.Fatalf("trial %d: ratio %v %+v, swapped %v %+v", trial, ab.Ratio, ab.RatioCI95, ba.Ratio, ba.RatioCI95)
		}
		if ba.Wins != ab.Losses || ba.Losses != ab.Wins || ba.Ties != ab.Ties || ba.Verdict != mirror(ab.Verdict) {
			t.Fatalf("trial %d: W/L/T %d/%d/%d %v, swapped %d/%d/%d %v", trial, ab.Wins, ab.Losses, ab.Ties, ab.Verdict, ba.Wins, ba.Losses, ba.Ties, ba.Verdict)
		}
		if len(ab.Reach) != len(ba.Reach) {
			t.Fatalf("trial %d: %d reach tiles, swapped %d", trial, len(ab.Reach), len(ba.Reach))
		}
		for i, r := range ab.Reach {
			if s := ba.Reach[i]; s.Tile != r.Tile || s.A != r.B || s.B != r.A {
				t.Fatalf("trial %d: reach %+v, swapped %+v", trial, r, s)
			}
		}
		s := SPRT{H0: 1, H1: 1.05}
		m := SPRT{H0: 1 / 1.05, H1: 1}
		if l, lm := llrOf(s, sa, sb), llrOf(m, sb, sa); !near(lm, -l, 1e-9) && !(math.IsInf(l, 0) && lm == -l) {
			t.Fatalf("trial %d: LLR %v, swapped with mirrored hypotheses %v", trial, l, lm)
		}
		r, rm := s.Test(sa, sb), m.Test(sb, sa)
		if r.Games != rm.Games || (r.Decision == AcceptH0) != (rm.Decision == AcceptH1) || r.Verdict() != mirror(rm.Verdict()) {
			t.Fatalf("trial %d: SPRT %+v, swapped %+v", trial, r, rm)
		}
	}
}

func TestAVersusA(t *testing.T) {
	// Identical players on identical games: every difference is 0. No
	// difference, no division by zero, no NaN, and the SPRT accepts "ratio
	// 1.00" as soon as it looks.
	rng := rand.New(rand.NewPCG(3, 3))
	sa, _ := pairedScores(rng, 40, 1)
	tiles := make([]int, len(sa))
	for i := range tiles {
		tiles[i] = 1024 << (i % 3)
	}
	a := results(sa, tiles)
	c, err := Compare(a, a)
	if err != nil {
		t.Fatal(err)
	}
	if c.Diff != 0 || c.DiffCI95 != (Interval{0, 0}) || c.Ratio != 1 || c.RatioCI95 != (Interval{1, 1}) || c.Ties != 40 || c.Verdict != NoDifference {
		t.Errorf("A vs A: %+v", c)
	}
	r := SPRT{H0: 1, H1: 1.05}.Test(sa, sa)
	if r.Decision != AcceptH0 || r.Games != DefaultSPRTMinGames || !math.IsInf(r.LLR, -1) || r.Verdict() != NoDifference {
		t.Errorf("A vs A SPRT 1.00,1.05: %+v", r)
	}
	// Hypotheses equally far from 1 (in log) on either side: the LLR stays
	// 0 but for rounding, and the test never decides.
	r = SPRT{H0: 1 / 1.05, H1: 1.05}.Test(sa, sa)
	if r.Decision != Undecided || math.Abs(r.LLR) > 1e-9 || r.Games != 40 {
		t.Errorf("A vs A SPRT 0.952,1.05: %+v", r)
	}
	// 1.00 is nearer 1.05 than 0.95 (in log): H1 wins, by n·log|θ0/θ1|
	// after n games, but that shows no one better.
	s := SPRT{H0: 0.95, H1: 1.05}
	per := math.Log(math.Log(0.95) / -math.Log(1.05)) // 0.0500 per game
	n := int(math.Ceil(s.Bounds().Hi / per))
	a80 := append(slices.Clone(sa), sa...)
	r = s.Test(a80, a80)
	if r.Decision != AcceptH1 || r.Games != n || !near(r.LLR, float64(n)*per, 1e-9) || r.Verdict() != NoDifference {
		t.Errorf("A vs A SPRT 0.95,1.05: %+v; want H1 accepted after %d games, no difference shown", r, n)
	}
}

// TestWilsonNewcombe checks the interval against the worked examples of
// Newcombe (1998, "Two-sided confidence intervals for the single
// proportion: comparison of seven methods", Statistics in Medicine 17,
// 857-872, Table II, method 3, the score interval without continuity
// correction), given there to four decimals.
func TestWilsonNewcombe(t *testing.T) {
	for _, tt := range []struct {
		hits, n int
		lo, hi  float64
	}{
		{81, 263, 0.2553, 0.3662},
		{15, 148, 0.0624, 0.1605},
		{0, 20, 0.0000, 0.1611},
		{1, 29, 0.0061, 0.1718},
	} {
		got := wilson95(tt.hits, tt.n)
		if math.Abs(got.Lo-tt.lo) > 5e-5 || math.Abs(got.Hi-tt.hi) > 5e-5 {
			t.Errorf("wilson95(%d, %d) = [%.4f, %.4f], Newcombe [%.4f, %.4f]", tt.hits, tt.n, got.Lo, got.Hi, tt.lo, tt.hi)
		}
	}
}
