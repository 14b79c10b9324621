package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func TestSPRTHandComputed(t *testing.T) {
	// a = 3 5 7, b = 1 2 3: θ̂ = log 2.5, u = 0.1 0 -0.1 (see TestCompare),
	// σ̂² = 0.02/3, θ0 = 0, θ1 = log 1.05:
	// LLR = 3/2 · log((σ̂² + θ̂²) / (σ̂² + (θ̂ - θ1)²)).
	s := SPRT{H0: 1, H1: 1.05, MinGames: 2}
	a, b := []float64{3, 5, 7}, []float64{1, 2, 3}
	th, t1, v := math.Log(2.5), math.Log(1.05), 0.02/3
	want := 1.5 * math.Log((v+th*th)/(v+(th-t1)*(th-t1))) // 0.1628
	if got := llrOf(s, a, b); !near(got, want, 1e-12) {
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

// llrOf is the LLR of s's H1 against its H0 after all the paired scores,
// by the test's own one-pass moments.
func llrOf(s SPRT, a, b []float64) float64 {
	var m pairMoments
	for i := range a {
		m.add(a[i], b[i])
	}
	return llr(m, math.Log(s.H0), math.Log(s.H1))
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

// TestSPRTWaldBounds checks the stopping bounds against Wald's (1945,
// "Sequential tests of statistical hypotheses", Annals of Mathematical
// Statistics 16, 117-186): accept H1 when the likelihood ratio reaches
// A = (1-β)/α, H0 when it falls to B = β/(1-α). For α = β = 0.05 that is
// log 19 = ±2.944; for α = 0.05, β = 0.10, log 18 = 2.890 and
// log(0.10/0.95) = -2.251.
func TestSPRTWaldBounds(t *testing.T) {
	for _, tt := range []struct {
		s      SPRT
		lo, hi float64
	}{
		{SPRT{H0: 1, H1: 1.05}, -2.944, 2.944}, // the zero values: α = β = 0.05
		{SPRT{H0: 1, H1: 1.05, Alpha: 0.05, Beta: 0.10}, -2.251, 2.890},
	} {
		b := tt.s.Bounds()
		if math.Abs(b.Lo-tt.lo) > 5e-4 || math.Abs(b.Hi-tt.hi) > 5e-4 {
			t.Errorf("α %v β %v: bounds [%.4f, %.4f], Wald's [%.3f, %.3f]", tt.s.Alpha, tt.s.Beta, b.Lo, b.Hi, tt.lo, tt.hi)
		}
	}
}
