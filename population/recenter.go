package population

import (
	"fmt"
	"math"
)

// Recenter moves the distribution to x (caller coordinates, inside the
// bounds) and multiplies its steps by factor, keeping the shape of the
// covariance: what a caller does when a point it kept (a validated mean)
// has shown itself better than where the search went. CMA-ES forgets its
// evolution paths, which describe the road to the old mean, and multiplies
// σ; CEM multiplies its standard deviations. The generation in progress,
// if any, is dropped; the counters, the random stream and the best point
// are unchanged.
func (o *CMAES) Recenter(x []float64, factor float64) error {
	if err := o.recenter(x, factor, o.m); err != nil {
		return err
	}
	clear(o.ps)
	clear(o.pc)
	o.sigma *= factor
	return nil
}

// Recenter: see CMAES.Recenter.
func (o *CEM) Recenter(x []float64, factor float64) error {
	if err := o.recenter(x, factor, o.m); err != nil {
		return err
	}
	if o.ccfg.Full {
		for i := range o.c {
			o.c[i] *= factor * factor
		}
		for i := range o.d {
			o.d[i] *= factor
		}
		return nil
	}
	for i := range o.v {
		o.v[i] *= factor * factor
		o.sd[i] *= factor
	}
	return nil
}

// recenter checks x and factor, drops the generation in progress and
// writes the normalised point whose image is x into m (the method's mean).
func (c *core) recenter(x []float64, factor float64, m []float64) error {
	if len(x) != c.n {
		return fmt.Errorf("%w: recenter on %d coordinates, want %d", ErrConfig, len(x), c.n)
	}
	if !(factor > 0) || math.IsInf(factor, 0) {
		return fmt.Errorf("%w: recenter with step factor %v, want a positive number", ErrConfig, factor)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) || c.sp.lower != nil && (v < c.sp.lower[i] || v > c.sp.upper[i]) {
			return fmt.Errorf("%w: recenter on coordinate %d = %v, outside the bounds", ErrConfig, i, v)
		}
	}
	c.sp.fromCaller(x, m)
	c.pending = false
	c.cand = nil
	return nil
}
