package population

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestCMAESParameters checks the strategy parameters against values
// computed by hand from the tutorial's formulas for n = 10, λ = 10.
func TestCMAESParameters(t *testing.T) {
	o, err := NewCMAES(CMAESConfig{Config: Config{X0: make([]float64, 10)}})
	if err != nil {
		t.Fatal(err)
	}
	if o.Lambda() != 10 || o.mu != 5 {
		t.Fatalf("λ, μ = %d, %d; want 10, 5", o.Lambda(), o.mu)
	}
	// w'_i = ln(5.5) − ln i for i = 1..5.
	var s, s2 float64
	for i := 1; i <= 5; i++ {
		w := math.Log(5.5) - math.Log(float64(i))
		s += w
		s2 += w * w
	}
	mueff := s * s / s2
	n := 10.0
	want := map[string][2]float64{
		"mueff": {o.mueff, mueff},
		"cs":    {o.cs, (mueff + 2) / (n + mueff + 5)},
		"ds":    {o.ds, 1 + (mueff+2)/(n+mueff+5)}, // the max(0, …) term is 0 here
		"cc":    {o.cc, (4 + mueff/n) / (n + 4 + 2*mueff/n)},
		"c1":    {o.c1, 2 / (11.3*11.3 + mueff)},
		"cmu":   {o.cmu, 2 * (mueff - 2 + 1/mueff) / (144 + mueff)},
		"chiN":  {o.chiN, math.Sqrt(10) * (1 - 1/40.0 + 1/2100.0)},
		"sumW":  {o.sumW, 1},
		"w1":    {o.weights[0], (math.Log(5.5) - math.Log(1)) / s},
		"w6":    {o.weights[5], 0},
	}
	for name, v := range want {
		if math.Abs(v[0]-v[1]) > 1e-12*math.Max(1, math.Abs(v[1])) {
			t.Errorf("%s = %v, want %v", name, v[0], v[1])
		}
	}
	if math.Abs(mueff-3.1672) > 1e-4 {
		t.Errorf("μ_eff = %v, the tutorial's value for λ = 10 is 3.1672", mueff)
	}
}

func TestCMAESActiveWeights(t *testing.T) {
	o, err := NewCMAES(CMAESConfig{Config: Config{X0: make([]float64, 10)}, Active: true})
	if err != nil {
		t.Fatal(err)
	}
	var pos, neg float64
	for i, w := range o.weights {
		if i < o.mu {
			pos += w
			if w <= 0 {
				t.Errorf("w_%d = %v, want > 0", i+1, w)
			}
		} else {
			neg += w
			if w >= 0 {
				t.Errorf("w_%d = %v, want < 0", i+1, w)
			}
		}
	}
	if math.Abs(pos-1) > 1e-12 {
		t.Errorf("positive weights sum to %v, want 1", pos)
	}
	if neg >= 0 || -neg > 1+o.c1/o.cmu {
		t.Errorf("negative weights sum to %v, want in [−(1+c1/cμ), 0)", neg)
	}
}

// TestDimensions runs a few generations in every dimension the tuner may
// use, with and without bounds.
func TestDimensions(t *testing.T) {
	for n := 1; n <= 30; n++ {
		x0 := make([]float64, n)
		lo, hi := make([]float64, n), make([]float64, n)
		for i := range x0 {
			x0[i] = float64(i + 1)
			lo[i], hi[i] = 0, float64(2*i+3)
		}
		for _, bounded := range []bool{false, true} {
			cfg := Config{X0: x0, Seed: uint64(n)}
			if bounded {
				cfg.Lower, cfg.Upper = lo, hi
			}
			opts := []fullOptimizer{}
			c, err := NewCMAES(CMAESConfig{Config: cfg})
			if err != nil {
				t.Fatal(err)
			}
			e, err := NewCEM(CEMConfig{Config: cfg})
			if err != nil {
				t.Fatal(err)
			}
			opts = append(opts, c, e)
			for _, o := range opts {
				for range 5 {
					xs := o.Ask()
					f := make([]float64, len(xs))
					for k, x := range xs {
						if len(x) != n {
							t.Fatalf("n=%d: candidate of length %d", n, len(x))
						}
						for i, v := range x {
							if bounded && (v < lo[i] || v > hi[i]) {
								t.Fatalf("n=%d: x[%d] = %v outside [%v, %v]", n, i, v, lo[i], hi[i])
							}
						}
						f[k] = sphere(x)
					}
					if err := o.Tell(f); err != nil {
						t.Fatal(err)
					}
				}
				if len(o.Mean()) != n || o.Generation() != 5 {
					t.Fatalf("n=%d: mean %v, generation %d", n, o.Mean(), o.Generation())
				}
			}
		}
	}
}

// TestBoundsOptimumOnFace minimises Σ (x_i − 2)² subject to x ≤ 1: the
// optimum sits on the face x = 1 and the mean must get there.
func TestBoundsOptimumOnFace(t *testing.T) {
	x0 := []float64{-3, 0, 0.5, -1}
	up := []float64{1, 1, 1, 1}
	for _, active := range []bool{false, true} {
		o, err := NewCMAES(CMAESConfig{Config: Config{X0: x0, Upper: up, Sigma0: 1, Seed: 3}, Active: active})
		if err != nil {
			t.Fatal(err)
		}
		f := make([]float64, o.Lambda())
		for range 300 {
			for k, x := range o.Ask() {
				var s float64
				for _, v := range x {
					if v > 1 {
						t.Fatalf("x = %v beyond the upper bound", x)
					}
					s += (v - 2) * (v - 2)
				}
				f[k] = s
			}
			if err := o.Tell(f); err != nil {
				t.Fatal(err)
			}
		}
		for i, v := range o.Mean() {
			if math.Abs(v-1) > 1e-6 {
				t.Errorf("active=%v: mean[%d] = %v, want 1", active, i, v)
			}
		}
	}
}

// TestScale: with per-coordinate scales and the problem scaled alike, the
// run is the same up to that scaling.
func TestScale(t *testing.T) {
	scale := []float64{1, 1000, 0.001}
	run := func(sc []float64) []float64 {
		x0 := make([]float64, 3)
		for i := range x0 {
			x0[i] = 1
			if sc != nil {
				x0[i] = sc[i]
			}
		}
		o, err := NewCMAES(CMAESConfig{Config: Config{X0: x0, Scale: sc, Sigma0: 0.5, Seed: 9}})
		if err != nil {
			t.Fatal(err)
		}
		f := make([]float64, o.Lambda())
		for range 40 {
			for k, x := range o.Ask() {
				var s float64
				for i, v := range x {
					if sc != nil {
						v /= sc[i]
					}
					s += v * v
				}
				f[k] = s
			}
			if err := o.Tell(f); err != nil {
				t.Fatal(err)
			}
		}
		m := o.Mean()
		if sc != nil {
			for i := range m {
				m[i] /= sc[i]
			}
		}
		return m
	}
	a, b := run(nil), run(scale)
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-12 {
			t.Errorf("scaled run differs: %v vs %v", a, b)
		}
	}
}

func TestIPOPDoublesPopulation(t *testing.T) {
	// A flat function: tolfun fires as soon as its history is full.
	o, err := NewCMAES(CMAESConfig{Config: Config{X0: []float64{0, 0}, Restarts: IPOP, MaxRestarts: 3}})
	if err != nil {
		t.Fatal(err)
	}
	lambdas := []int{o.Lambda()}
	for o.Generation() < 1000 {
		xs := o.Ask()
		if err := o.Tell(make([]float64, len(xs))); err != nil {
			t.Fatal(err)
		}
		if o.Lambda() != lambdas[len(lambdas)-1] {
			lambdas = append(lambdas, o.Lambda())
		}
		if _, stop := o.Stop(); stop {
			break
		}
	}
	if r, stop := o.Stop(); !stop || r != StopTolFun {
		t.Errorf("stop = %q, %v; want tolfun after the restarts", r, stop)
	}
	if o.Restarts() != 3 || len(lambdas) != 4 || lambdas[3] != 8*lambdas[0] {
		t.Errorf("restarts %d, population sizes %v", o.Restarts(), lambdas)
	}
}

func TestStopReasons(t *testing.T) {
	quad := func(x []float64) float64 { return sphere(x) }
	noise := rand.New(rand.NewPCG(7, 8))
	cases := []struct {
		name string
		cfg  Config
		f    func([]float64) float64
		want Reason
	}{
		{"maxevals", Config{X0: []float64{1, 1}, MaxEvals: 60}, quad, StopMaxEvals},
		{"target", Config{X0: []float64{1, 1}, TargetF: ptr(1e-3)}, quad, StopTarget},
		{"tolfun", Config{X0: []float64{1, 1}}, func([]float64) float64 { return 1 }, StopTolFun},
		{"tolx", Config{X0: []float64{1, 1}, TolX: 1e-3, TolFun: 1e-300}, quad, StopTolX},
		{"conditioncov", Config{X0: []float64{1, 1}, TolConditionCov: 100, TolFun: 1e-300},
			func(x []float64) float64 { return x[0]*x[0] + 1e6*x[1]*x[1] }, StopConditionCov},
		{"tolupsigma", Config{X0: []float64{1, 1}, TolUpSigma: 100},
			func(x []float64) float64 { return -sphere(x) }, StopTolUpSigma},
		// Values that never improve but never stop varying: only the
		// stagnation test can end the run.
		{"stagnation", Config{X0: []float64{1, 1}, Seed: 1},
			func([]float64) float64 { return noise.Float64() }, StopStagnation},
		// An optimum 1000 units from the start: the mean goes there and σ
		// shrinks until a step no longer changes it in floating point.
		// With TolX and TolFun out of the way, the isotropic pair trips the
		// 0.1σ axis test before the 0.2σ coordinate test; with the second
		// optimum coordinate at 0, where steps stay representable, only
		// the first coordinate can show no effect, and the axis test needs
		// every coordinate.
		{"noeffectaxis", Config{X0: []float64{0, 0}, TolX: 1e-300, TolFun: 1e-300, Seed: 1},
			func(x []float64) float64 { return sphere([]float64{x[0] - 1e3, x[1] - 1e3}) }, StopNoEffectAxis},
		{"noeffectcoord", Config{X0: []float64{0, 0}, TolX: 1e-300, TolFun: 1e-300, Seed: 1},
			func(x []float64) float64 { return sphere([]float64{x[0] - 1e3, x[1]}) }, StopNoEffectCoord},
	}
	for _, c := range cases {
		o, err := NewCMAES(CMAESConfig{Config: c.cfg})
		if err != nil {
			t.Fatal(err)
		}
		f := make([]float64, o.Lambda())
		for o.Generation() < 5000 {
			for k, x := range o.Ask() {
				f[k] = c.f(x)
			}
			if err := o.Tell(f); err != nil {
				t.Fatal(err)
			}
			if _, stop := o.Stop(); stop {
				break
			}
		}
		if r, _ := o.Stop(); r != c.want {
			t.Errorf("%s: stop reason %q after %d generations", c.name, r, o.Generation())
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestTellErrors(t *testing.T) {
	o, err := NewCMAES(CMAESConfig{Config: Config{X0: []float64{1, 2}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Tell([]float64{1}); err != ErrNotAsked {
		t.Errorf("Tell before Ask: %v", err)
	}
	xs := o.Ask()
	if &o.Ask()[0][0] != &xs[0][0] {
		t.Error("second Ask returned other slices")
	}
	checks := []struct {
		err  error
		want error
	}{
		{o.Tell(make([]float64, len(xs)+1)), ErrFitnessLength},
		{o.Tell(append(make([]float64, len(xs)-1), math.NaN())), ErrNaN},
		{o.TellAt(-1, 0), ErrIndex},
		{o.TellAt(len(xs), 0), ErrIndex},
		{o.TellAt(0, math.NaN()), ErrNaN},
	}
	for i, c := range checks {
		if !errorsIs(c.err, c.want) {
			t.Errorf("check %d: %v, want %v", i, c.err, c.want)
		}
	}
	if err := o.TellAt(0, 1); err != nil {
		t.Fatal(err)
	}
	if err := o.TellAt(0, 1); !errorsIs(err, ErrToldTwice) {
		t.Errorf("told twice: %v", err)
	}
	if o.Generation() != 0 {
		t.Error("a failed tell completed the generation")
	}
}

func TestConfigValidate(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		cfg   Config
		field string
	}{
		{Config{}, "X0"},
		{Config{X0: []float64{math.NaN()}}, "X0[0]"},
		{Config{X0: []float64{1}, Sigma0: -1}, "Sigma0"},
		{Config{X0: []float64{1}, Scale: []float64{0}}, "Scale[0]"},
		{Config{X0: []float64{1}, Scale: []float64{1, 2}}, "Scale"},
		{Config{X0: []float64{1}, Lower: []float64{2}}, "X0[0]"},
		{Config{X0: []float64{1}, Lower: []float64{0}, Upper: []float64{0}}, "Lower[0]"},
		{Config{X0: []float64{1}, Upper: []float64{-inf}}, "Lower[0]"},
		{Config{X0: []float64{1}, Lambda: 1}, "Lambda"},
		{Config{X0: []float64{1}, Restarts: "bipop"}, "Restarts"},
		{Config{X0: []float64{1}, MaxEvals: -1}, "MaxEvals"},
		{Config{X0: []float64{1}, TolX: -1}, "TolX"},
	}
	for _, c := range cases {
		err := c.cfg.Validate()
		if err == nil || !errorsIs(err, ErrConfig) || !contains(err.Error(), c.field) {
			t.Errorf("%+v: %v, want an ErrConfig naming %s", c.cfg, err, c.field)
		}
		if _, err := NewCMAES(CMAESConfig{Config: c.cfg}); err == nil {
			t.Errorf("NewCMAES accepted %+v", c.cfg)
		}
	}
	for _, c := range []CEMConfig{{Elite: 1.5}, {MeanSmoothing: -0.1}, {VarianceSmoothing: 2}, {NoiseGenerations: -1}} {
		c.X0 = []float64{1}
		if _, err := NewCEM(c); err == nil || !errorsIs(err, ErrConfig) {
			t.Errorf("NewCEM(%+v): %v", c, err)
		}
	}
	ok := Config{X0: []float64{1, 2}, Lower: []float64{0, math.Inf(-1)}, Upper: []float64{inf, 2}}
	if err := ok.Validate(); err != nil {
		t.Errorf("valid config rejected: %v", err)
	}
}
