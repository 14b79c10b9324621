package population

import (
	"cmp"
	"fmt"
	"math"
)

// Defaults of Config.
const (
	DefaultSigma0          = 0.3
	DefaultMaxRestarts     = 9
	DefaultTolX            = 1e-11
	DefaultTolFun          = 1e-11
	DefaultTolConditionCov = 1e14
	DefaultTolUpSigma      = 1e20
)

// Config holds what both optimizers share. A zero field means its
// documented default.
//
// Normalised coordinates: the optimizer works on y with
//
//	x = X0 + Scale ⊙ y
//
// so the search starts at y = 0, Sigma0 is a fraction of each coordinate's
// Scale, and weights of very different magnitudes are searched alike. The
// tuner passes Scale[i] = |X0[i]| (1 where X0[i] = 0) and Sigma0 = 0.3.
type Config struct {
	// X0 is the start mean in the caller's coordinates; its length is the
	// dimension n (1 or more). Required.
	X0 []float64
	// Sigma0 is the initial step size in normalised coordinates
	// (0 = DefaultSigma0 = 0.3).
	Sigma0 float64
	// Scale gives each coordinate's unit (nil = all 1; entries > 0).
	Scale []float64
	// Lower and Upper are optional per-coordinate limits in the caller's
	// coordinates (nil = unbounded; ±Inf entries leave that side open;
	// Lower[i] < Upper[i]; X0 must lie inside). Candidates are mapped into
	// the box by pycma's BoundTransform; see the package documentation.
	Lower, Upper []float64
	// Lambda is the population size λ, 2 or more (0 = the method's default).
	Lambda int
	// Seed seeds the PCG generator (math/rand/v2) that draws every sample.
	Seed uint64
	// Restarts is NoRestarts (default) or IPOP.
	Restarts Restarts
	// MaxRestarts bounds the number of IPOP restarts (0 = 9, so λ grows to
	// at most 512·λ_0).
	MaxRestarts int
	// MaxEvals stops after this many evaluations (0 = no limit). The
	// generation that crosses it is completed.
	MaxEvals int
	// TargetF stops once a fitness below *TargetF is told (nil = none).
	TargetF *float64
	// TolX: local stop when σ·max(|p_c,i|, √C_ii) < TolX for every i
	// (CMA-ES; CEM: the standard deviations), in normalised coordinates
	// (0 = 1e-11, as pycma).
	TolX float64
	// TolFun: local stop when the best values of the last 10+⌈30n/λ⌉
	// generations, and the values of the current generation, each span less
	// than TolFun (0 = 1e-11, as pycma).
	TolFun float64
	// TolConditionCov: local stop when the covariance condition number
	// exceeds it (0 = 1e14).
	TolConditionCov float64
	// TolUpSigma: local stop when the largest standard deviation exceeds
	// TolUpSigma·Sigma0 (0 = 1e20).
	TolUpSigma float64
	// Noisy says the fitness of a point is a new random sample at every
	// evaluation (games on new seeds, say). Then the stop conditions that
	// judge fitness values over generations, tolfun and stagnation, are
	// off: noise alone trips them while the distribution still moves.
	// The conditions on the distribution itself stay, and under IPOP they
	// are the only ones that restart the search.
	Noisy bool
}

// Validate reports the first invalid field of c, naming it. Zero values
// are valid (they mean defaults).
func (c *Config) Validate() error {
	n := len(c.X0)
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrConfig}, args...)...)
	}
	if n == 0 {
		return bad("X0 is empty: the dimension must be at least 1")
	}
	if n > maxDim {
		return bad("X0 has %d coordinates: at most %d", n, maxDim)
	}
	for i, v := range c.X0 {
		if !finite(v) {
			return bad("X0[%d] = %v: must be finite", i, v)
		}
	}
	if !finite(c.Sigma0) || c.Sigma0 < 0 {
		return bad("Sigma0 = %v: must be positive (0 = default %v)", c.Sigma0, DefaultSigma0)
	}
	if c.Scale != nil {
		if len(c.Scale) != n {
			return bad("Scale has %d entries, X0 has %d", len(c.Scale), n)
		}
		for i, v := range c.Scale {
			if !finite(v) || v <= 0 {
				return bad("Scale[%d] = %v: must be finite and positive", i, v)
			}
		}
	}
	for _, b := range []struct {
		name string
		v    []float64
	}{{"Lower", c.Lower}, {"Upper", c.Upper}} {
		if b.v != nil && len(b.v) != n {
			return bad("%s has %d entries, X0 has %d", b.name, len(b.v), n)
		}
		for i, v := range b.v {
			if math.IsNaN(v) {
				return bad("%s[%d] is NaN", b.name, i)
			}
		}
	}
	for i := range n {
		lo, hi := math.Inf(-1), math.Inf(1)
		if c.Lower != nil {
			lo = c.Lower[i]
		}
		if c.Upper != nil {
			hi = c.Upper[i]
		}
		if !(lo < hi) {
			return bad("Lower[%d] = %v, Upper[%d] = %v: need Lower < Upper", i, lo, i, hi)
		}
		if math.IsInf(lo, 1) || math.IsInf(hi, -1) {
			return bad("bounds of coordinate %d (%v, %v) exclude every finite value", i, lo, hi)
		}
		if c.X0[i] < lo || c.X0[i] > hi {
			return bad("X0[%d] = %v lies outside [%v, %v]", i, c.X0[i], lo, hi)
		}
	}
	if c.Lambda != 0 && (c.Lambda < 2 || c.Lambda > maxLambda) {
		return bad("Lambda = %d: must be 2..%d (0 = default)", c.Lambda, maxLambda)
	}
	if c.Lambda*n > maxWork {
		return bad("Lambda = %d: λ·n must be at most %d", c.Lambda, maxWork)
	}
	if _, err := ParseRestarts(string(c.Restarts)); err != nil {
		return err
	}
	if c.MaxRestarts < 0 || c.MaxRestarts > 30 {
		return bad("MaxRestarts = %d: must be 0..30 (0 = default %d)", c.MaxRestarts, DefaultMaxRestarts)
	}
	if c.MaxEvals < 0 {
		return bad("MaxEvals = %d: must not be negative (0 = no limit)", c.MaxEvals)
	}
	if c.TargetF != nil && math.IsNaN(*c.TargetF) {
		return bad("TargetF is NaN")
	}
	for _, t := range []struct {
		name string
		v    float64
	}{{"TolX", c.TolX}, {"TolFun", c.TolFun}, {"TolConditionCov", c.TolConditionCov}, {"TolUpSigma", c.TolUpSigma}} {
		if math.IsNaN(t.v) || t.v < 0 {
			return bad("%s = %v: must not be negative (0 = default)", t.name, t.v)
		}
	}
	return nil
}

// resolved returns a deep copy of c with every default filled in (Lambda
// is left to the method). c must be valid.
func (c *Config) resolved() Config {
	r := *c
	n := len(c.X0)
	r.X0 = append([]float64(nil), c.X0...)
	r.Scale = make([]float64, n)
	for i := range r.Scale {
		r.Scale[i] = 1
		if c.Scale != nil {
			r.Scale[i] = c.Scale[i]
		}
	}
	if c.Lower != nil || c.Upper != nil {
		r.Lower, r.Upper = make([]float64, n), make([]float64, n)
		for i := range n {
			r.Lower[i], r.Upper[i] = math.Inf(-1), math.Inf(1)
			if c.Lower != nil {
				r.Lower[i] = c.Lower[i]
			}
			if c.Upper != nil {
				r.Upper[i] = c.Upper[i]
			}
		}
	}
	r.Sigma0 = cmp.Or(r.Sigma0, DefaultSigma0)
	r.Restarts = cmp.Or(r.Restarts, NoRestarts)
	r.MaxRestarts = cmp.Or(r.MaxRestarts, DefaultMaxRestarts)
	if c.TargetF != nil {
		t := *c.TargetF
		r.TargetF = &t
	}
	r.TolX = cmp.Or(r.TolX, DefaultTolX)
	r.TolFun = cmp.Or(r.TolFun, DefaultTolFun)
	r.TolConditionCov = cmp.Or(r.TolConditionCov, DefaultTolConditionCov)
	r.TolUpSigma = cmp.Or(r.TolUpSigma, DefaultTolUpSigma)
	return r
}

// Limits that keep a state decoder from allocating absurd amounts.
const (
	maxDim    = 1 << 12
	maxLambda = 1 << 22
	maxWork   = 1 << 24 // λ·n: the size of one generation's samples
)

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
