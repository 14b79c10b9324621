package population

import (
	"fmt"
)

// MarshalBinary implements encoding.BinaryMarshaler.
func (o *CMAES) MarshalBinary() ([]byte, error) {
	if o.cfg.X0 == nil {
		return nil, fmt.Errorf("%w: zero CMAES", ErrState)
	}
	var e encoder
	// The oldest version that can hold the state, so that a state without
	// the later options keeps its bytes.
	version := uint16(1)
	switch {
	case o.settleOn:
		version = 4
	case o.mirror:
		version = 3
	case o.lraOn:
		version = 2
	}
	e.header(kindCMAES, version)
	e.config(&o.cfg)
	e.bool(o.active)
	if version >= 2 {
		e.bool(o.lraOn)
	}
	if version >= 3 {
		e.bool(o.mirror)
	}
	if version >= 4 {
		e.bool(true)
	}
	o.core.encode(&e)
	n := o.n
	e.f64s(o.m)
	upper := make([]float64, 0, n*(n+1)/2)
	for i := range n {
		upper = append(upper, o.c[i*n+i:(i+1)*n]...)
	}
	e.f64s(upper)
	e.f64s(o.b)
	e.f64s(o.d)
	e.f64s(o.ps)
	e.f64s(o.pc)
	e.f64(o.sigma)
	e.int(o.eigenG)
	e.bool(o.notPD)
	if l := o.lra; l != nil {
		e.f64s(l.eMean)
		e.f64s(l.eSigma)
		e.f64(l.vMean)
		e.f64(l.vSigma)
		e.f64(l.etaMean)
		e.f64(l.etaSigma)
	}
	if s := o.settle; s != nil {
		e.f64s(s.e)
		e.f64(s.v)
		e.int(s.t)
		e.f64(s.eta)
		e.f64s(s.fits)
	}
	return e.finish(), nil
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler. On error the
// receiver is unchanged.
func (o *CMAES) UnmarshalBinary(data []byte) error {
	d, err := openState(data, kindCMAES)
	if err != nil {
		return err
	}
	t := new(CMAES)
	cfg := d.config()
	t.active = d.bool()
	// A version is written only for the option it added (see the state
	// format), so that every accepted state marshals back to its own bytes.
	if d.version >= 2 {
		if t.lraOn = d.bool(); !t.lraOn && d.version == 2 {
			d.fail("a version 2 state without learning rate adaptation")
		}
	}
	if d.version >= 3 {
		if t.mirror = d.bool(); !t.mirror && d.version == 3 {
			d.fail("a version 3 state without mirrored sampling")
		}
	}
	if d.version >= 4 {
		if t.settleOn = d.bool(); !t.settleOn {
			d.fail("a version 4 state without settling")
		}
	}
	if d.err != nil {
		return d.err
	}
	t.core.decode(d, cfg)
	if d.err == nil && t.mirror && t.pending {
		for k := 1; k < t.lambda && d.err == nil; k += 2 {
			a, b := t.row(t.z, k-1), t.row(t.z, k)
			for j := range a {
				if b[j] != -a[j] {
					d.fail("mirrored sampling: candidate %d is not candidate %d mirrored", k, k-1)
					break
				}
			}
		}
	}
	if d.err != nil {
		return d.err
	}
	t.reset() // parameters and buffers for the decoded λ
	n := t.n
	t.m = d.finiteF64s("mean", n)
	upper := d.finiteF64s("covariance", n*(n+1)/2)
	t.b = d.finiteF64s("eigenvectors", n*n)
	t.d = d.finiteF64s("eigenvalues", n)
	t.ps = d.finiteF64s("p_sigma", n)
	t.pc = d.finiteF64s("p_c", n)
	t.sigma = d.f64()
	t.eigenG = d.int("eigen generation", 0, t.g)
	t.notPD = d.bool()
	if l := t.lra; l != nil {
		l.eMean = d.finiteF64s("lra E_mean", n)
		l.eSigma = d.finiteF64s("lra E_Sigma", n*n)
		l.vMean, l.vSigma = d.f64(), d.f64()
		l.etaMean, l.etaSigma = d.f64(), d.f64()
		if d.err == nil && !(finite(l.vMean) && finite(l.vSigma) && l.etaMean > 0 && l.etaMean <= 1 && l.etaSigma > 0 && l.etaSigma <= 1) {
			d.fail("lra: V %v, %v or learning rates %v, %v out of range", l.vMean, l.vSigma, l.etaMean, l.etaSigma)
		}
	}
	if s := t.settle; s != nil {
		s.e = d.finiteF64s("settle E", n)
		s.v = d.f64()
		s.t = d.int("settle generations", 0, t.g)
		s.eta = d.f64()
		s.fits = d.finiteF64s("settle fitness", settleKept(s.t))
		if d.err == nil && !(finite(s.v) && s.v >= 0 && s.eta > 0 && s.eta <= 1) {
			d.fail("settle: V %v or learning rate %v out of range", s.v, s.eta)
		}
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail("%d trailing bytes", len(d.b))
	}
	if d.err != nil {
		return d.err
	}
	if !finite(t.sigma) || t.sigma <= 0 {
		return fmt.Errorf("%w: sigma = %v", ErrState, t.sigma)
	}
	for i, v := range t.d {
		if v <= 0 {
			return fmt.Errorf("%w: eigenvalue root %d = %v", ErrState, i, v)
		}
	}
	for i := range n {
		for j := i; j < n; j++ {
			t.c[i*n+j] = upper[0]
			t.c[j*n+i] = upper[0]
			upper = upper[1:]
		}
	}
	t.resample(t)
	*o = *t
	return nil
}
