package population

import "math"

// box maps normalised points into the bounds with pycma's BoundTransform
// (cma.transformations.BoxConstraintsLinQuadTransformation): the identity
// inside the box away from its faces, a quadratic within a margin a of each
// face (so the map is smooth and a face is reached with zero slope), and a
// periodic mirror outside. The optimizer keeps and updates the
// untransformed point; only the evaluated candidate is mapped. Margins,
// in normalised coordinates, are a = min((hi−lo)/2, (1+|bound|)/20).
type box struct {
	on     bool // false: no bounds at all, the identity
	lo, hi []float64
	al, au []float64
}

func newBox(cfg *Config) box {
	if cfg.Lower == nil {
		return box{}
	}
	n := len(cfg.X0)
	b := box{on: true, lo: make([]float64, n), hi: make([]float64, n), al: make([]float64, n), au: make([]float64, n)}
	for i := range n {
		// (±Inf − x0)/s stays ±Inf.
		b.lo[i] = (cfg.Lower[i] - cfg.X0[i]) / cfg.Scale[i]
		b.hi[i] = (cfg.Upper[i] - cfg.X0[i]) / cfg.Scale[i]
		b.al[i] = math.Min((b.hi[i]-b.lo[i])/2, (1+math.Abs(b.lo[i]))/20)
		b.au[i] = math.Min((b.hi[i]-b.lo[i])/2, (1+math.Abs(b.hi[i]))/20)
	}
	return b
}

// apply maps coordinate i of a normalised point into [lo_i, hi_i].
func (b *box) apply(i int, x float64) float64 {
	lb, ub, al, au := b.lo[i], b.hi[i], b.al[i], b.au[i]
	lok, uok := !math.IsInf(lb, 0), !math.IsInf(ub, 0)
	switch {
	case lok && uok:
		if x < lb-2*al-(ub-lb)/2 || x > ub+2*au+(ub-lb)/2 {
			r := 2 * (ub - lb + al + au) // the period
			s := lb - 2*al - (ub-lb)/2
			x -= r * math.Floor((x-s)/r)
		}
		if x > ub+au {
			x -= 2 * (x - ub - au)
		}
		if x < lb-al {
			x += 2 * (lb - al - x)
		}
		switch {
		case x < lb+al:
			x = lb + (x-(lb-al))*(x-(lb-al))/4/al
		case x >= ub-au:
			x = ub - (x-(ub+au))*(x-(ub+au))/4/au
		}
	case lok:
		if x < lb-al {
			x += 2 * (lb - al - x)
		}
		if x < lb+al {
			x = lb + (x-(lb-al))*(x-(lb-al))/4/al
		}
	case uok:
		if x > ub+au {
			x -= 2 * (x - ub - au)
		}
		if x > ub-au {
			x = ub - (x-(ub+au))*(x-(ub+au))/4/au
		}
	}
	// Rounding (or a huge x) must not leave the box.
	return math.Min(math.Max(x, lb), ub)
}

// inverse maps a point inside the box to the preimage nearest to it.
func (b *box) inverse(i int, y float64) float64 {
	lb, ub, al, au := b.lo[i], b.hi[i], b.al[i], b.au[i]
	switch {
	case !math.IsInf(lb, 0) && y < lb+al:
		return lb - al + 2*math.Sqrt(al*math.Max(y-lb, 0))
	case !math.IsInf(ub, 0) && y > ub-au:
		return ub + au - 2*math.Sqrt(au*math.Max(ub-y, 0))
	}
	return y
}

// space converts between normalised and caller coordinates.
type space struct {
	x0, scale    []float64
	lower, upper []float64 // nil when unbounded
	box          box
}

func newSpace(cfg *Config) space {
	return space{x0: cfg.X0, scale: cfg.Scale, lower: cfg.Lower, upper: cfg.Upper, box: newBox(cfg)}
}

// toCaller writes the caller-coordinate image of the normalised point y.
func (s *space) toCaller(y, dst []float64) {
	for i, v := range y {
		if s.box.on {
			v = s.box.apply(i, v)
		}
		x := s.x0[i] + s.scale[i]*v
		if s.lower != nil {
			x = math.Min(math.Max(x, s.lower[i]), s.upper[i])
		}
		dst[i] = x
	}
}

// start returns the normalised mean whose image is X0.
func (s *space) start() []float64 {
	m := make([]float64, len(s.x0))
	if s.box.on {
		for i := range m {
			m[i] = s.box.inverse(i, 0)
		}
	}
	return m
}

// fromCaller writes the normalised point whose image is x, a point inside
// the bounds: toCaller's inverse, up to rounding.
func (s *space) fromCaller(x, dst []float64) {
	for i, v := range x {
		y := (v - s.x0[i]) / s.scale[i]
		if s.box.on {
			y = s.box.inverse(i, y)
		}
		dst[i] = y
	}
}
