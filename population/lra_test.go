package population

import (
	"bufio"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestLRAReference checks one learning rate adaptation step against the
// cmaes library's (0.13.1, CMA._lr_adaptation), on 24 chains of 30 steps
// in 2, 3, 5 and 8 dimensions whose mean steps carry from no signal to a
// strong drift (testdata/lra.py made the file): the learning rates, the
// moving averages and the new mean, σ and C.
func TestLRAReference(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "lra.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	lines, etaBelow := 0, 0
	for sc.Scan() {
		lines++
		fs := strings.Split(sc.Text(), "\t")
		if len(fs) != 23 {
			t.Fatalf("line %d: %d fields, want 23", lines, len(fs))
		}
		n, err := strconv.Atoi(fs[0])
		if err != nil {
			t.Fatalf("line %d: %v", lines, err)
		}
		v := make([][]float64, len(fs))
		for i, s := range fs[1:] {
			for _, x := range strings.Split(s, ",") {
				y, err := strconv.ParseFloat(x, 64)
				if err != nil {
					t.Fatalf("line %d field %d: %v", lines, i+1, err)
				}
				v[i+1] = append(v[i+1], y)
			}
		}
		l := newLRA(n)
		copy(l.m0, v[1])
		l.sigma0 = v[2][0]
		copy(l.c0, v[3])
		for i, x := range v[4] { // the library's C^(-1/2)
			l.a[i] = x / l.sigma0
		}
		m, sigma, c := v[5], v[6][0], v[7]
		copy(l.eMean, v[8])
		copy(l.eSigma, v[9])
		l.vMean, l.vSigma, l.etaMean, l.etaSigma = v[10][0], v[11][0], v[12][0], v[13][0]
		if !l.adapt(n, m, &sigma, c) {
			t.Fatalf("line %d: adapt failed", lines)
		}
		check := func(name string, got, want []float64) {
			t.Helper()
			for i := range want {
				if d := math.Abs(got[i] - want[i]); d > 1e-9*math.Max(1, math.Abs(want[i])) {
					t.Errorf("line %d: %s[%d] = %.17g, want %.17g", lines, name, i, got[i], want[i])
					return
				}
			}
		}
		check("mean", m, v[14])
		check("sigma", []float64{sigma}, v[15])
		check("C", c, v[16])
		check("E_mean", l.eMean, v[17])
		check("E_Sigma", l.eSigma, v[18])
		check("V", []float64{l.vMean, l.vSigma}, []float64{v[19][0], v[20][0]})
		check("eta", []float64{l.etaMean, l.etaSigma}, []float64{v[21][0], v[22][0]})
		if l.etaMean < 0.5 {
			etaBelow++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if lines != 720 || etaBelow == 0 {
		t.Fatalf("%d steps, %d with eta_mean below 0.5: the reference no longer covers noisy steps", lines, etaBelow)
	}
}

// noisySphereFinals runs CMA-ES (with the options opts sets) for 400
// generations on the 5-D sphere from x0 = 3 (σ0 = 1) with additive Gaussian
// noise of the given deviation, run seeds 0–10, and returns the true f of
// each run's final mean, sorted.
func noisySphereFinals(t *testing.T, opts func(*CMAESConfig), noise float64) []float64 {
	t.Helper()
	var finals []float64
	for seed := range 11 {
		cfg := CMAESConfig{Config: Config{X0: []float64{3, 3, 3, 3, 3}, Sigma0: 1, Seed: uint64(seed), Noisy: true}}
		opts(&cfg)
		o, err := NewCMAES(cfg)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		for range 400 {
			xs := o.Ask()
			fit := make([]float64, len(xs))
			for i, x := range xs {
				fit[i] = sphere(x) + noise*rng.NormFloat64()
			}
			if err := o.Tell(fit); err != nil {
				t.Fatal(err)
			}
		}
		finals = append(finals, sphere(o.Mean()))
	}
	slices.Sort(finals)
	return finals
}

// TestLRANoisySphere checks what LRA is for: under noise whose deviation
// is 1 (plain CMA-ES stalls where f is about the noise, its mean random
// walking), every LRA run ends nearer the optimum than the best plain run
// (measured: medians 0.015 against 0.23); without noise it still
// converges, if more slowly than plain CMA-ES.
func TestLRANoisySphere(t *testing.T) {
	withLRA := func(c *CMAESConfig) { c.LRA = true }
	plain, lra := noisySphereFinals(t, func(*CMAESConfig) {}, 1), noisySphereFinals(t, withLRA, 1)
	t.Logf("final f, median of 11 runs: plain %.3g, LRA %.3g", plain[5], lra[5])
	if lra[len(lra)-1] >= plain[0] {
		t.Errorf("noisy sphere: LRA's worst final f %.3g is not below plain CMA-ES's best %.3g (medians %.3g, %.3g)", lra[len(lra)-1], plain[0], lra[5], plain[5])
	}
	if clean := noisySphereFinals(t, withLRA, 0); clean[len(clean)-1] > 1e-8 {
		t.Errorf("sphere without noise: LRA's worst final f %.3g after 400 generations, want below 1e-8", clean[len(clean)-1])
	}
}

// TestLRAFirstStep checks where CMAES applies the adaptation. From the same
// start and the same values told, the first generation's LRA step is plain
// CMA-ES's scaled: the mean moves η_m of plain's step, σ²C moves η_Σ of
// the way, and σ is then divided by η_m. On a first step the estimated SNR
// is β/(2−β) whatever the step, so η = exp(min(γ, β)·(SNR/α − 1)).
func TestLRAFirstStep(t *testing.T) {
	x0 := []float64{0.5, -1, 2, 0}
	plain, _ := NewCMAES(CMAESConfig{Config: Config{X0: x0, Seed: 3}})
	lra, _ := NewCMAES(CMAESConfig{Config: Config{X0: x0, Seed: 3}, LRA: true})
	n := len(x0)
	m0, s0 := slices.Clone(plain.m), plain.sigma
	xs, xl := plain.Ask(), lra.Ask()
	fit := make([]float64, len(xs))
	for i := range xs {
		if !slices.Equal(xs[i], xl[i]) {
			t.Fatalf("candidate %d differs before the first update", i)
		}
		fit[i] = rosenbrock(xs[i])
	}
	if err := plain.Tell(fit); err != nil {
		t.Fatal(err)
	}
	if err := lra.Tell(fit); err != nil {
		t.Fatal(err)
	}
	eta := func(beta float64) float64 {
		return math.Exp(math.Min(lraGamma, beta) * (beta/(2-beta)/lraAlpha - 1))
	}
	em, es := eta(lraBetaMean), eta(lraBetaSigma)
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %.17g, want %.17g", what, got, want)
		}
	}
	near("eta_mean", lra.lra.etaMean, em)
	near("eta_Sigma", lra.lra.etaSigma, es)
	for i := range n {
		near("mean", lra.m[i], m0[i]+em*(plain.m[i]-m0[i]))
	}
	s := lra.sigma * em // σ before the η_m correction
	for i := range n {
		for j := range n {
			id := 0.0
			if i == j {
				id = 1 // C starts as I
			}
			want := s0*s0*id + es*(plain.sigma*plain.sigma*plain.c[i*n+j]-s0*s0*id)
			near("sigma^2 C", s*s*lra.c[i*n+j], want)
		}
	}
	if lra.eigenG != 1 {
		t.Errorf("C decomposed last at generation %d, want 1: LRA decomposes every generation", lra.eigenG)
	}
}
