package tuner

import (
	"errors"
	"fmt"
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
	if r.A.CI95 != Wilson95(3, 4) || r.B.CI95 != Wilson95(1, 4) {
		t.Errorf("2048 intervals %+v", r)
	}
	if r := c.Reach[1]; r.Tile != 4096 || r.A.Hits != 1 || r.B.Hits != 0 || r.B.CI95.Lo != 0 {
		t.Errorf("4096: %+v", r)
	}
}

func TestWilson95(t *testing.T) {
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
		got := Wilson95(tt.hits, tt.n)
		if !near(got.Lo, tt.want.Lo, 1e-12) || !near(got.Hi, tt.want.Hi, 1e-12) {
			t.Errorf("Wilson95(%d, %d) = %+v, want %+v", tt.hits, tt.n, got, tt.want)
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

func TestSPRTHandComputed(t *testing.T) {
	// a = 3 5 7, b = 1 2 3: θ̂ = log 2.5, u = 0.1 0 -0.1 (see TestCompare),
	// σ̂² = 0.02/3, θ0 = 0, θ1 = log 1.05:
	// LLR = 3/2 · log((σ̂² + θ̂²) / (σ̂² + (θ̂ - θ1)²)).
	s := SPRT{H0: 1, H1: 1.05, MinGames: 2}
	a, b := []float64{3, 5, 7}, []float64{1, 2, 3}
	th, t1, v := math.Log(2.5), math.Log(1.05), 0.02/3
	want := 1.5 * math.Log((v+th*th)/(v+(th-t1)*(th-t1))) // 0.1628
	if got := s.LLR(a, b); !near(got, want, 1e-12) {
		t.Errorf("LLR = %v, want %v", got, want)
	}
	bounds := s.Bounds()
	if !near(bounds.Lo, math.Log(0.05/0.95), 1e-15) || !near(bounds.Hi, math.Log(0.95/0.05), 1e-15) {
		t.Errorf("bounds %+v, want ±2.944", bounds)
	}
	r := s.Test(a, b)
	if r.Games != 3 || r.Decision != Undecided || !near(r.LLR, want, 1e-12) || r.Verdict() != NoDifference {
		t.Errorf("Test = %+v; want undecided after 3 games with LLR %v", r, want)
	}
	// A scores 1.1 times B but for a little spread: b = 100, 200, ...,
	// a_i = 110, 220, ... ± 1 alternately. After 16 games the means are
	// 935 and 850, θ̂ = log 1.1, u_i = ±1/935: σ̂² = 1/935².
	a, b = make([]float64, 20), make([]float64, 20)
	for i := range a {
		b[i] = float64(100 * (i + 1))
		a[i] = float64(110*(i+1) + 1 - 2*(i%2))
	}
	th, v = math.Log(1.1), 1/(935.0*935)
	s.MinGames = 16
	want = 8 * math.Log((v+th*th)/(v+(th-t1)*(th-t1))) // 11.5
	r = s.Test(a, b)
	if r.Games != 16 || r.Decision != AcceptH1 || !near(r.LLR, want, 1e-9) || r.Verdict() != ABetter {
		t.Errorf("Test = %+v; want H1 accepted at the first look, 16 games, LLR %v", r, want)
	}
}

func TestSPRTValidate(t *testing.T) {
	for _, s := range []SPRT{
		{H0: 1.05, H1: 1},
		{H0: 1, H1: 1},
		{H0: 0, H1: 1},
		{H0: -1, H1: 1},
		{H0: math.NaN(), H1: 1},
		{H0: 1, H1: math.Inf(1)},
		{H0: 1, H1: 1.05, Alpha: 0.5},
		{H0: 1, H1: 1.05, Beta: -0.1},
		{H0: 1, H1: 1.05, MinGames: 1},
	} {
		if err := s.Validate(); !errors.Is(err, ErrCompare) {
			t.Errorf("%+v: Validate = %v, want ErrCompare", s, err)
		}
	}
	if err := (SPRT{H0: 1, H1: 1.05}).Validate(); err != nil {
		t.Errorf("1.00,1.05: %v", err)
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
		if ba.Wins != ab.Losses || ba.Losses != ab.Wins || ba.Ties != ab.Ties || ba.Verdict != ab.Verdict.Mirror() {
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
		if l, lm := s.LLR(sa, sb), m.LLR(sb, sa); !near(lm, -l, 1e-9) && !(math.IsInf(l, 0) && lm == -l) {
			t.Fatalf("trial %d: LLR %v, swapped with mirrored hypotheses %v", trial, l, lm)
		}
		r, rm := s.Test(sa, sb), m.Test(sb, sa)
		if r.Games != rm.Games || (r.Decision == AcceptH0) != (rm.Decision == AcceptH1) || r.Verdict() != rm.Verdict().Mirror() {
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

// slowLLR is the LLR written as the file comment states it, two-pass,
// from the explicit u_i.
func slowLLR(s SPRT, a, b []float64) float64 {
	n := float64(len(a))
	ma, mb := 0.0, 0.0
	for i := range a {
		ma += a[i]
		mb += b[i]
	}
	ma, mb = ma/n, mb/n
	u := make([]float64, len(a))
	mu := 0.0
	for i := range u {
		u[i] = a[i]/ma - b[i]/mb
		mu += u[i]
	}
	mu /= n
	v := 0.0
	for _, x := range u {
		v += (x - mu) * (x - mu)
	}
	v /= n
	theta, t0, t1 := math.Log(ma/mb), math.Log(s.H0), math.Log(s.H1)
	return n / 2 * math.Log((v+(theta-t0)*(theta-t0))/(v+(theta-t1)*(theta-t1)))
}

func TestSPRTMatchesSlow(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 5))
	s := SPRT{H0: 1, H1: 1.05, MinGames: 2}
	for trial := range 200 {
		rho := 0.9 + 0.2*rng.Float64()
		a, b := pairedScores(rng, 2+rng.IntN(300), rho)
		r := s.Test(a, b)
		// The first crossing, found by the slow LLR over every prefix.
		want := SPRTResult{Games: len(a)}
		for n := 2; n <= len(a); n++ {
			want.LLR = slowLLR(s, a[:n], b[:n])
			if want.LLR <= r.Bounds.Lo || want.LLR >= r.Bounds.Hi {
				want.Games = n
				break
			}
		}
		if r.Games != want.Games || !near(r.LLR, want.LLR, 1e-9) {
			t.Fatalf("trial %d: Test stopped at %d games with LLR %v; slow: %d, %v", trial, r.Games, r.LLR, want.Games, want.LLR)
		}
		// Batching does not matter: any longer prefix stops at the same game.
		if r.Decision != Undecided {
			k := r.Games + rng.IntN(len(a)-r.Games+1)
			if rk := s.Test(a[:k], b[:k]); rk != r {
				t.Fatalf("trial %d: Test on %d games %+v, on all %+v", trial, k, rk, r)
			}
		}
	}
}

// sprtRates runs the test on trials synthetic comparisons whose true ratio
// is rho and returns the share accepting H0, accepting H1, and the mean
// number of games.
func sprtRates(s SPRT, rho float64, trials, maxGames int, seed uint64) (h0, h1, games float64) {
	rng := rand.New(rand.NewPCG(seed, 0x5e57))
	for range trials {
		// Drawn in batches until the test decides, as compare plays them.
		var a, b []float64
		var r SPRTResult
		for len(a) < maxGames {
			ba, bb := pairedScores(rng, min(100, maxGames-len(a)), rho)
			a, b = append(a, ba...), append(b, bb...)
			if r = s.Test(a, b); r.Decision != Undecided {
				break
			}
		}
		switch r.Decision {
		case AcceptH0:
			h0++
		case AcceptH1:
			h1++
		}
		games += float64(r.Games)
	}
	t := float64(trials)
	return h0 / t, h1 / t, games / t
}

// TestSPRTErrorRates checks by simulation that the test keeps its promise:
// with the true ratio at H0 it accepts H1 about α of the time, and at H1 it
// accepts H0 about β of the time. The sampling is seeded, so the figures
// are the same every run: 0.050 and 0.053 for hypotheses 1.00 and 1.05,
// 0.055 and 0.059 for 1.00 and 1.10 (estimating the spread as the test
// goes costs that much over the nominal 0.05). 2000 trials give a standard
// error of 0.005, so the limit 0.065 fails a test that is off by a third.
func TestSPRTErrorRates(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation of 8000 sequential tests")
	}
	const trials, maxGames, limit = 2000, 3000, 0.065
	for _, s := range []SPRT{{H0: 1, H1: 1.1}, {H0: 1, H1: 1.05}} {
		_, falseH1, n0 := sprtRates(s, s.H0, trials, maxGames, 1)
		falseH0, _, n1 := sprtRates(s, s.H1, trials, maxGames, 2)
		t.Logf("H0 %v H1 %v: accepts H1 under H0 %.4f (mean %.0f games), H0 under H1 %.4f (mean %.0f games)", s.H0, s.H1, falseH1, n0, falseH0, n1)
		if falseH1 > limit || falseH0 > limit {
			t.Errorf("H0 %v H1 %v: error rates %.4f (H1 accepted under H0) and %.4f (H0 under H1); want each at most %v", s.H0, s.H1, falseH1, falseH0, limit)
		}
	}
	// A large gain, like tuned weights against hand-set ones (ratio 1.7),
	// is decided for H1 every time, in 73 games on average.
	_, h1, n := sprtRates(SPRT{H0: 1, H1: 1.05}, 1.7, trials, maxGames, 3)
	t.Logf("ratio 1.7: H1 accepted %.4f, mean %.1f games", h1, n)
	if h1 != 1 || n > 100 {
		t.Errorf("ratio 1.7 against H0 1.00, H1 1.05: H1 accepted in %.4f of tests after %.1f games on average; want always, within 100", h1, n)
	}
}

func ExampleCompare() {
	// Four seeds: A's and B's scores on each.
	var a, b []engine.Result
	for i, s := range [][2]int{{4000, 2100}, {6200, 3000}, {3100, 2000}, {8000, 3900}} {
		a = append(a, engine.Result{Seed: uint64(i), Score: s[0], MaxTile: 512})
		b = append(b, engine.Result{Seed: uint64(i), Score: s[1], MaxTile: 256})
	}
	c, _ := Compare(a, b)
	// d = 1900 3200 1100 4100: mean 2575, sd 1335, half-width t(3)·sd/2.
	fmt.Printf("A - B %.0f [%.0f, %.0f], A/B %.2f [%.2f, %.2f], W/L/T %d/%d/%d: %v\n",
		c.Diff, c.DiffCI95.Lo, c.DiffCI95.Hi, c.Ratio, c.RatioCI95.Lo, c.RatioCI95.Hi, c.Wins, c.Losses, c.Ties, c.Verdict)
	// Output:
	// A - B 2575 [451, 4699], A/B 1.94 [1.64, 2.29], W/L/T 4/0/0: A better
}

func ExampleSPRT_Test() {
	// B scores 1000 + 10i, A 20% more but for ±50: the test accepts "A is
	// 5% better" over "no better" at its first look.
	var a, b []float64
	for i := range 100 {
		b = append(b, float64(1000+10*i))
		a = append(a, 1.2*float64(1000+10*i)+float64(50-100*(i%2)))
	}
	r := SPRT{H0: 1, H1: 1.05}.Test(a, b)
	fmt.Printf("%v after %d games, LLR %.2f in [%.2f, %.2f]: %v\n", r.Decision, r.Games, r.LLR, r.Bounds.Lo, r.Bounds.Hi, r.Verdict())
	// Output:
	// accept H1 after 16 games, LLR 4.69 in [-2.94, 2.94]: A better
}
