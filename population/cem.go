package population

import (
	"cmp"
	"fmt"
	"math"
)

// Defaults of CEMConfig.
const (
	DefaultElite             = 0.25
	DefaultMeanSmoothing     = 0.7
	DefaultVarianceSmoothing = 0.7
	DefaultNoise             = 0.05
	DefaultNoiseGenerations  = 50
)

// CEMConfig configures NewCEM. The zero value of every field means its
// documented default; X0 is required.
type CEMConfig struct {
	Config
	// Full samples from a Gaussian with a full covariance matrix instead
	// of the default diagonal one.
	Full bool
	// Elite is the fraction ρ of each generation that is kept to refit the
	// Gaussian, in (0, 1] (0 = 0.25). The elite count is max(1, round(ρλ)).
	Elite float64
	// MeanSmoothing α and VarianceSmoothing β blend the elite estimates
	// with the previous ones, m ← α m_elite + (1−α) m, in (0, 1]
	// (0 = 0.7; 1 = no smoothing).
	MeanSmoothing, VarianceSmoothing float64
	// Noise is the variance added in the first generation, relative to
	// Sigma0² (0 = 0.05; negative = no added noise). It decays linearly to
	// zero over NoiseGenerations generations (0 = 50): Szita & Lőrincz's
	// Z_t = max(5 − t/10, 0) with their σ0² = 100.
	Noise            float64
	NoiseGenerations int
}

// Validate reports the first invalid field, naming it.
func (c *CEMConfig) Validate() error {
	if err := c.Config.Validate(); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"Elite", c.Elite}, {"MeanSmoothing", c.MeanSmoothing}, {"VarianceSmoothing", c.VarianceSmoothing}} {
		if math.IsNaN(f.v) || f.v < 0 || f.v > 1 {
			return fmt.Errorf("%w: %s = %v: must be in (0, 1] (0 = default)", ErrConfig, f.name, f.v)
		}
	}
	if !finite(c.Noise) {
		return fmt.Errorf("%w: Noise = %v: must be finite", ErrConfig, c.Noise)
	}
	if c.NoiseGenerations < 0 {
		return fmt.Errorf("%w: NoiseGenerations = %d: must not be negative (0 = default %d)",
			ErrConfig, c.NoiseGenerations, DefaultNoiseGenerations)
	}
	return nil
}

func (c *CEMConfig) resolved() CEMConfig {
	r := *c
	r.Config = c.Config.resolved()
	r.Elite = cmp.Or(r.Elite, DefaultElite)
	r.MeanSmoothing = cmp.Or(r.MeanSmoothing, DefaultMeanSmoothing)
	r.VarianceSmoothing = cmp.Or(r.VarianceSmoothing, DefaultVarianceSmoothing)
	r.Noise = cmp.Or(r.Noise, DefaultNoise)
	if r.Noise < 0 {
		r.Noise = -1
	}
	r.NoiseGenerations = cmp.Or(r.NoiseGenerations, DefaultNoiseGenerations)
	if r.Lambda == 0 {
		r.Lambda = DefaultCEMLambda(len(c.X0), r.Elite, r.Full)
	}
	return r
}

// DefaultCEMLambda is the default population of CEM. The Gaussian is refit
// from the elites alone, so the default keeps at least 5 of them (and, with
// a full covariance, n+1, so that their covariance has full rank):
// λ = max(⌈5/ρ⌉, 4+⌊3 ln n⌋), or max(⌈5/ρ⌉, ⌈(n+1)/ρ⌉) when full. With
// ρ = 0.25 that is 20 up to n = 19 for the diagonal model.
func DefaultCEMLambda(n int, elite float64, full bool) int {
	l := int(math.Ceil(5/elite - 1e-9))
	if full {
		return max(l, int(math.Ceil(float64(n+1)/elite-1e-9)))
	}
	return max(l, DefaultCMAESLambda(n))
}

// CEM is the cross-entropy method with a Gaussian sampling distribution:
// sample λ points, keep the best ρλ, refit mean and (diagonal or full)
// covariance to them with smoothing, and add a variance that decays over
// the generations so that the distribution does not collapse early under
// noisy fitness (Szita & Lőrincz 2006, "Learning Tetris using the noisy
// cross-entropy method").
type CEM struct {
	core
	ccfg  CEMConfig // the CEM fields (the shared ones live in core.cfg)
	elite int

	m  []float64
	v  []float64 // diagonal: variances; full: unused
	sd []float64 // diagonal: √v (derived)
	c  []float64 // full: covariance, n×n row-major
	b  []float64 // full: eigenvectors of c (columns)
	d  []float64 // full: square roots of the eigenvalues
	// notPD: the last eigendecomposition of c failed or found λ_i ≤ 0.
	notPD bool

	mu, dev []float64 // scratch
}

// NewCEM validates cfg and returns an optimizer at generation 0.
func NewCEM(cfg CEMConfig) (*CEM, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := cfg.resolved()
	if err := r.Config.Validate(); err != nil { // the default λ may be too large
		return nil, err
	}
	o := &CEM{ccfg: r}
	o.ccfg.Config = Config{} // one copy of the shared fields: core.cfg
	o.core.init(r.Config, r.Lambda)
	o.reset()
	return o, nil
}

func (o *CEM) reset() {
	n := o.n
	o.elite = max(1, int(math.Round(o.ccfg.Elite*float64(o.lambda))))
	o.m = o.sp.start()
	s2 := o.cfg.Sigma0 * o.cfg.Sigma0
	o.v, o.sd, o.c, o.b, o.d = nil, nil, nil, nil, nil
	if o.ccfg.Full {
		o.c = make([]float64, n*n)
		o.b = make([]float64, n*n)
		o.d = make([]float64, n)
		for i := range n {
			o.c[i*n+i] = s2
			o.b[i*n+i] = 1
			o.d[i] = o.cfg.Sigma0
		}
	} else {
		o.v = make([]float64, n)
		o.sd = make([]float64, n)
		for i := range n {
			o.v[i] = s2
			o.sd[i] = o.cfg.Sigma0
		}
	}
	o.notPD = false
	o.mu = make([]float64, n)
	o.dev = make([]float64, n)
}

func (o *CEM) sample(k int) {
	z, y, x := o.row(o.z, k), o.row(o.y, k), o.row(o.xin, k)
	if !o.ccfg.Full {
		for i, s := range o.sd {
			y[i] = s * z[i]
			x[i] = o.m[i] + y[i]
		}
		return
	}
	n := o.n
	dz := o.dev
	for j := range n {
		dz[j] = o.d[j] * z[j]
	}
	for i := range n {
		bi := o.b[i*n : (i+1)*n]
		var s float64
		for j, v := range dz {
			s += bi[j] * v
		}
		y[i] = s
		x[i] = o.m[i] + s
	}
}

// noise is the variance added after generation t of a restart.
func (o *CEM) noise(t int) float64 {
	if o.ccfg.Noise < 0 {
		return 0
	}
	return o.ccfg.Noise * o.cfg.Sigma0 * o.cfg.Sigma0 * math.Max(0, 1-float64(t)/float64(o.ccfg.NoiseGenerations))
}

func (o *CEM) update() {
	n, ne := o.n, o.elite
	alpha, beta := o.ccfg.MeanSmoothing, o.ccfg.VarianceSmoothing
	clear(o.mu)
	for r := range ne {
		for j, v := range o.row(o.xin, o.order[r]) {
			o.mu[j] += v
		}
	}
	for j := range o.mu {
		o.mu[j] /= float64(ne)
	}
	z := o.noise(o.g)
	if !o.ccfg.Full {
		for j := range n {
			var s float64
			for r := range ne {
				dv := o.xin[o.order[r]*n+j] - o.mu[j]
				s += dv * dv
			}
			o.v[j] = beta*(s/float64(ne)) + (1-beta)*o.v[j] + z
			o.sd[j] = math.Sqrt(o.v[j])
		}
	} else {
		for i := range n {
			row := o.c[i*n : (i+1)*n]
			for j := i; j < n; j++ {
				row[j] *= 1 - beta
			}
			row[i] += z
		}
		w := beta / float64(ne)
		for r := range ne {
			x := o.row(o.xin, o.order[r])
			for j := range n {
				o.dev[j] = x[j] - o.mu[j]
			}
			for i := range n {
				row := o.c[i*n : (i+1)*n]
				p := w * o.dev[i]
				for j := i; j < n; j++ {
					row[j] += p * o.dev[j]
				}
			}
		}
		for i := range n {
			for j := i + 1; j < n; j++ {
				o.c[j*n+i] = o.c[i*n+j]
			}
		}
		o.eigen()
	}
	for j := range n {
		o.m[j] = alpha*o.mu[j] + (1-alpha)*o.m[j]
	}
}

func (o *CEM) eigen() { o.notPD = !eigenSqrt(o.n, o.c, o.b, o.d) }

// std returns the standard deviation of coordinate i.
func (o *CEM) std(i int) float64 {
	if o.ccfg.Full {
		return math.Sqrt(o.c[i*o.n+i])
	}
	return o.sd[i]
}

func (o *CEM) localStop() Reason {
	n := o.n
	tolx := true
	for i := range n {
		if o.std(i) >= o.cfg.TolX {
			tolx = false
			break
		}
	}
	if tolx {
		return StopTolX
	}
	var lo, hi float64
	if o.ccfg.Full {
		lo, hi = minMax(o.d)
	} else {
		lo, hi = minMax(o.sd)
	}
	if hi > o.cfg.TolUpSigma*o.cfg.Sigma0 {
		return StopTolUpSigma
	}
	if o.notPD || !(lo > 0) || (hi/lo)*(hi/lo) > o.cfg.TolConditionCov {
		return StopConditionCov
	}
	for j := range n {
		if o.m[j]+0.2*o.std(j) == o.m[j] {
			return StopNoEffectCoord
		}
	}
	return ""
}

// Ask implements Optimizer.
func (o *CEM) Ask() [][]float64 { return o.ask(o) }

// Tell implements Optimizer. Fitness is minimised.
func (o *CEM) Tell(fitness []float64) error { return o.tell(o, fitness) }

// TellAt records the (minimised) fitness of candidate i; the generation
// completes when every candidate has a value, whatever the order of the
// calls. A later Tell replaces the values told so far.
func (o *CEM) TellAt(i int, f float64) error { return o.tellAt(o, i, f) }

// Mean implements Optimizer.
func (o *CEM) Mean() []float64 { return o.mean(o.m) }

// Method implements Optimizer.
func (o *CEM) Method() Method { return MethodCEM }

// Sigma implements Optimizer: the root mean square of the coordinates'
// standard deviations, in normalised coordinates.
func (o *CEM) Sigma() float64 {
	var s float64
	for i := range o.n {
		s += o.std(i) * o.std(i)
	}
	return math.Sqrt(s / float64(o.n))
}

// AxisRatio implements Optimizer: √cond of the sampling covariance, the
// largest over the smallest standard deviation for the diagonal model. The
// full model's eigenvalues are refreshed every generation, so this never
// decomposes anything.
func (o *CEM) AxisRatio() float64 {
	if !o.ccfg.Full {
		return axisRatio(o.sd)
	}
	if o.notPD {
		return math.Inf(1)
	}
	return axisRatio(o.d)
}

// MarshalBinary implements encoding.BinaryMarshaler.
func (o *CEM) MarshalBinary() ([]byte, error) {
	if o.cfg.X0 == nil {
		return nil, fmt.Errorf("%w: zero CEM", ErrState)
	}
	var e encoder
	e.header(kindCEM, 1)
	e.config(&o.cfg)
	e.bool(o.ccfg.Full)
	e.f64(o.ccfg.Elite)
	e.f64(o.ccfg.MeanSmoothing)
	e.f64(o.ccfg.VarianceSmoothing)
	e.f64(o.ccfg.Noise)
	e.int(o.ccfg.NoiseGenerations)
	o.core.encode(&e)
	e.f64s(o.m)
	if o.ccfg.Full {
		n := o.n
		upper := make([]float64, 0, n*(n+1)/2)
		for i := range n {
			upper = append(upper, o.c[i*n+i:(i+1)*n]...)
		}
		e.f64s(upper)
		e.f64s(o.b)
		e.f64s(o.d)
		e.bool(o.notPD)
	} else {
		e.f64s(o.v)
	}
	return e.finish(), nil
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler. On error the
// receiver is unchanged.
func (o *CEM) UnmarshalBinary(data []byte) error {
	d, err := openState(data, kindCEM)
	if err != nil {
		return err
	}
	if d.version != 1 {
		d.fail("a CEM state of version %d: CEM's are version 1", d.version)
	}
	cfg := CEMConfig{Config: d.config()}
	cfg.Full = d.bool()
	cfg.Elite = d.f64()
	cfg.MeanSmoothing = d.f64()
	cfg.VarianceSmoothing = d.f64()
	cfg.Noise = d.f64()
	cfg.NoiseGenerations = d.int("NoiseGenerations", 1, math.MaxInt32)
	if d.err != nil {
		return d.err
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("%w: config: %v", ErrState, err)
	}
	if cfg.Elite == 0 || cfg.MeanSmoothing == 0 || cfg.VarianceSmoothing == 0 || (cfg.Noise != -1 && cfg.Noise < 0) {
		return fmt.Errorf("%w: config: unresolved default", ErrState)
	}
	t := &CEM{ccfg: cfg}
	t.ccfg.Config = Config{}
	t.core.decode(d, cfg.Config)
	if d.err != nil {
		return d.err
	}
	t.reset()
	n := t.n
	t.m = d.finiteF64s("mean", n)
	if cfg.Full {
		upper := d.finiteF64s("covariance", n*(n+1)/2)
		t.b = d.finiteF64s("eigenvectors", n*n)
		t.d = d.finiteF64s("eigenvalues", n)
		t.notPD = d.bool()
		if d.err == nil {
			for i, v := range t.d {
				if v <= 0 {
					d.fail("eigenvalue root %d = %v", i, v)
				}
			}
			for i := range n {
				for j := i; j < n; j++ {
					t.c[i*n+j] = upper[0]
					t.c[j*n+i] = upper[0]
					upper = upper[1:]
				}
			}
		}
	} else {
		t.v = d.finiteF64s("variances", n)
		if d.err == nil {
			for i, v := range t.v {
				if v < 0 {
					d.fail("variance %d = %v", i, v)
				}
				t.sd[i] = math.Sqrt(v)
			}
		}
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail("%d trailing bytes", len(d.b))
	}
	if d.err != nil {
		return d.err
	}
	t.resample(t)
	*o = *t
	return nil
}
