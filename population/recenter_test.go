package population

import (
	"math"
	"slices"
	"testing"
)

// recenterOptimizers returns a CMA-ES and CEMs (diagonal and full), with
// bounds on two coordinates of three, after a few generations on a
// sphere, so that their covariances have a shape of their own.
func recenterOptimizers(t *testing.T) map[string]Optimizer {
	t.Helper()
	cfg := Config{
		X0: []float64{1, 2, 3}, Scale: []float64{1, 2, 0.5}, Sigma0: 0.3, Seed: 4, Lambda: 8,
		Lower: []float64{-5, math.Inf(-1), 2.5}, Upper: []float64{5, math.Inf(1), 4},
	}
	cm, err := NewCMAES(CMAESConfig{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	diag, err := NewCEM(CEMConfig{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	full, err := NewCEM(CEMConfig{Config: cfg, Full: true})
	if err != nil {
		t.Fatal(err)
	}
	opts := map[string]Optimizer{"cmaes": cm, "cem": diag, "cem full": full}
	for _, o := range opts {
		for range 6 {
			xs := o.Ask()
			f := make([]float64, len(xs))
			for k, x := range xs {
				f[k] = x[0]*x[0] + (x[1]-1)*(x[1]-1) + 3*x[0]*x[1] + x[2]
			}
			if err := o.Tell(f); err != nil {
				t.Fatal(err)
			}
		}
	}
	return opts
}

// TestRecenter: after Recenter the mean is the point given (up to
// rounding), the step size is the factor times the one before, the shape
// of the covariance is kept (CMA-ES: the same C and axis ratio; CEM: its
// variances scaled by the factor squared), CMA-ES's evolution paths are
// zero, the counters are unchanged, the state round-trips, and the next
// generation samples around the new mean.
func TestRecenter(t *testing.T) {
	for name, o := range recenterOptimizers(t) {
		x := []float64{-1, 7, 3.9}
		sigma, axis, evals := o.Sigma(), o.AxisRatio(), o.Evaluations()
		var c []float64
		if cm, ok := o.(*CMAES); ok {
			c = slices.Clone(cm.c)
		}
		o.Ask() // a generation in progress is dropped
		if err := o.Recenter(x, 0.5); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		m := o.Mean()
		for i := range x {
			if math.Abs(m[i]-x[i]) > 1e-12*math.Max(1, math.Abs(x[i])) {
				t.Errorf("%s: mean %v after recentring on %v", name, m, x)
			}
		}
		if got := o.Sigma(); math.Abs(got-sigma/2) > 1e-15*sigma {
			t.Errorf("%s: sigma %v, want half of %v", name, got, sigma)
		}
		if got := o.AxisRatio(); math.Abs(got-axis) > 1e-9*axis {
			t.Errorf("%s: axis ratio %v, want the %v before", name, got, axis)
		}
		if got := o.Evaluations(); got != evals {
			t.Errorf("%s: %d evaluations, want the %d before", name, got, evals)
		}
		if cm, ok := o.(*CMAES); ok {
			if !slices.Equal(cm.c, c) {
				t.Errorf("%s: C changed", name)
			}
			for i := range cm.ps {
				if cm.ps[i] != 0 || cm.pc[i] != 0 {
					t.Errorf("%s: evolution paths %v and %v, want zero", name, cm.ps, cm.pc)
					break
				}
			}
		}
		data, err := o.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		back, err := Unmarshal(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		again, err := back.MarshalBinary()
		if err != nil || !slices.Equal(again, data) {
			t.Errorf("%s: the recentred state does not round-trip (%v)", name, err)
		}
		// The candidates spread around the new mean, within the bounds.
		var mean [3]float64
		xs := o.Ask()
		for _, c := range xs {
			for i, v := range c {
				mean[i] += v / float64(len(xs))
			}
			if c[0] < -5 || c[0] > 5 || c[2] < 2.5 || c[2] > 4 {
				t.Errorf("%s: candidate %v outside the bounds", name, c)
			}
		}
		if math.Abs(mean[1]-7) > 4 {
			t.Errorf("%s: candidates' mean %v, far from the new mean %v", name, mean, x)
		}
	}
}

// TestRecenterErrors: a point of the wrong length, outside the bounds or
// not finite, or a factor that is not positive, is an error and changes
// nothing.
func TestRecenterErrors(t *testing.T) {
	for name, o := range recenterOptimizers(t) {
		before, err := o.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			x      []float64
			factor float64
		}{
			{[]float64{1, 2}, 0.5},
			{[]float64{6, 2, 3}, 0.5},
			{[]float64{1, 2, 2}, 0.5},
			{[]float64{1, math.NaN(), 3}, 0.5},
			{[]float64{1, math.Inf(1), 3}, 0.5},
			{[]float64{1, 2, 3}, 0},
			{[]float64{1, 2, 3}, -1},
			{[]float64{1, 2, 3}, math.Inf(1)},
		} {
			if err := o.Recenter(c.x, c.factor); !errorsIs(err, ErrConfig) {
				t.Errorf("%s: Recenter(%v, %v): %v, want ErrConfig", name, c.x, c.factor, err)
			}
			after, _ := o.MarshalBinary()
			if !slices.Equal(after, before) {
				t.Fatalf("%s: Recenter(%v, %v) failed and changed the state", name, c.x, c.factor)
			}
		}
	}
}
