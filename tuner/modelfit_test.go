package tuner

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomGroups returns g generations of points of dimension d, between
// least and least+extra points each (and, where single is true, a generation of one
// point, which says nothing), their coordinates N(0, 1), and their fitness
// f(u) plus an offset per generation of up to ±offset.
func randomGroups(rng *rand.Rand, g, d, least, extra int, single bool, offset float64, f func(u []float64) float64) []modelGroup {
	groups := make([]modelGroup, g)
	for k := range groups {
		n := least + rng.IntN(extra+1)
		if single && k == g/2 {
			n = 1
		}
		a := offset * (2*rng.Float64() - 1)
		for range n {
			u := make([]float64, d)
			for j := range u {
				u[j] = rng.NormFloat64()
			}
			groups[k].U = append(groups[k].U, u)
			groups[k].F = append(groups[k].F, a+f(u))
		}
	}
	return groups
}

// quadratic returns the model's quadratic of slopes b and curvatures h.
func quadratic(b, h []float64) func(u []float64) float64 {
	return func(u []float64) float64 {
		var f float64
		for j, v := range u {
			f += b[j]*v + h[j]*v*v/2
		}
		return f
	}
}

// TestModelFitExact: on points of a quadratic without noise, each
// generation offset by up to 10^4, the fit gives the quadratic's slopes
// and curvatures back to 1e-9, whatever the offsets.
func TestModelFitExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for c := range 100 {
		d := 1 + rng.IntN(12)
		b, h := make([]float64, d), make([]float64, d)
		for j := range d {
			b[j], h[j] = rng.NormFloat64(), 2*rng.NormFloat64()
		}
		groups := randomGroups(rng, 3*d+4, d, 5, 8, c%2 == 0, 1e4, quadratic(b, h))
		q, err := fitQuadratic(groups, d)
		if err != nil {
			t.Fatalf("case %d (d %d): %v", c, d, err)
		}
		for j := range d {
			if math.Abs(q.B[j]-b[j]) > 1e-9 || math.Abs(q.H[j]-h[j]) > 1e-9 {
				t.Fatalf("case %d (d %d): coordinate %d: b %v h %v, want %v %v", c, d, j, q.B[j], q.H[j], b[j], h[j])
			}
		}
	}
}

// slowFit is the fit's obviously correct twin: the full design, a column
// of ones for each generation beside the regressors u and u²/2, solved by
// gonum's QR; the standard errors from the inverse of the design's
// normal matrix. Every point counts, a generation of one too (its own
// column fits it exactly, so that it changes neither the coefficients nor
// the residual degrees of freedom).
func slowFit(t *testing.T, groups []modelGroup, d int) (b, h, seb, seh []float64) {
	t.Helper()
	var n int
	for _, g := range groups {
		n += len(g.F)
	}
	p := len(groups) + 2*d
	x := mat.NewDense(n, p, nil)
	y := mat.NewVecDense(n, nil)
	row := 0
	for k, g := range groups {
		for i, u := range g.U {
			x.Set(row, k, 1)
			for j, v := range u {
				x.Set(row, len(groups)+j, v)
				x.Set(row, len(groups)+d+j, v*v/2)
			}
			y.SetVec(row, g.F[i])
			row++
		}
	}
	var qr mat.QR
	qr.Factorize(x)
	var beta mat.VecDense
	if err := qr.SolveVecTo(&beta, false, y); err != nil {
		t.Fatal(err)
	}
	var res mat.VecDense
	res.MulVec(x, &beta)
	res.SubVec(y, &res)
	s2 := mat.Dot(&res, &res) / float64(n-p)
	var xtx, inv mat.Dense
	xtx.Mul(x.T(), x)
	if err := inv.Inverse(&xtx); err != nil {
		t.Fatal(err)
	}
	b, h, seb, seh = make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
	for j := range d {
		jb, jh := len(groups)+j, len(groups)+d+j
		b[j], h[j] = beta.AtVec(jb), beta.AtVec(jh)
		seb[j], seh[j] = math.Sqrt(s2*inv.At(jb, jb)), math.Sqrt(s2*inv.At(jh, jh))
	}
	return b, h, seb, seh
}

// TestModelFitTwin checks the fit, which removes each generation's effect
// by demeaning, against the full design with a column per generation, on
// noisy quadratics of random dimensions, generations and sizes: the same
// slopes, curvatures and standard errors to 1e-9.
func TestModelFitTwin(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for c := range 300 {
		d := 1 + rng.IntN(10)
		b, h := make([]float64, d), make([]float64, d)
		for j := range d {
			b[j], h[j] = rng.NormFloat64(), rng.NormFloat64()
		}
		noise := math.Pow(10, -2+3*rng.Float64())
		f := func(u []float64) float64 { return quadratic(b, h)(u) + noise*rng.NormFloat64() }
		groups := randomGroups(rng, 3*d+2+rng.IntN(8), d, 5, 10, c%3 == 0, 100, f)
		q, err := fitQuadratic(groups, d)
		if err != nil {
			t.Fatalf("case %d (d %d): %v", c, d, err)
		}
		wb, wh, wsb, wsh := slowFit(t, groups, d)
		for j := range d {
			for _, p := range [][2]float64{{q.B[j], wb[j]}, {q.H[j], wh[j]}, {q.SEB[j], wsb[j]}, {q.SEH[j], wsh[j]}} {
				if math.Abs(p[0]-p[1]) > 1e-9 {
					t.Fatalf("case %d (d %d): coordinate %d: b %v h %v se %v %v; the full design gives %v %v se %v %v",
						c, d, j, q.B[j], q.H[j], q.SEB[j], q.SEH[j], wb[j], wh[j], wsb[j], wsh[j])
				}
			}
		}
	}
}

// TestModelFitRefuses: too few points for the parameters, a coordinate
// without spread within its generations and two coordinates that are one
// leave the model without a point.
func TestModelFitRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	f := quadratic([]float64{1, 2}, []float64{-1, -1})
	// 3 generations of 2 points: 6 points for 3 + 4 parameters.
	if _, err := fitQuadratic(randomGroups(rng, 3, 2, 2, 0, false, 1, f), 2); !isModelFit(err) {
		t.Errorf("6 points for 7 parameters: err %v, want errModelFit", err)
	}
	groups := randomGroups(rng, 10, 2, 2, 6, false, 1, f)
	for _, g := range groups {
		for _, u := range g.U {
			u[1] = 0.5
		}
	}
	if _, err := fitQuadratic(groups, 2); !isModelFit(err) {
		t.Errorf("a coordinate without spread: err %v, want errModelFit", err)
	}
	groups = randomGroups(rng, 10, 2, 2, 6, false, 1, f)
	for _, g := range groups {
		for _, u := range g.U {
			u[1] = u[0] * (1 + 1e-9)
		}
	}
	if _, err := fitQuadratic(groups, 2); !isModelFit(err) {
		t.Errorf("two coordinates that are one: err %v, want errModelFit", err)
	}
}

// TestModelPointRule checks the point's rule coordinate by coordinate on
// fits made by hand: a significant maximum's vertex, clipped; a short
// step along a significant slope, no further than an insignificant
// maximum's vertex; the centre elsewhere.
func TestModelPointRule(t *testing.T) {
	q := &quadFit{
		B:   []float64{1, 10, 1, 1, 1, 0.1, 0.2},
		H:   []float64{-2, -2, -2, 1, -0.2, -1, -10},
		SEB: []float64{0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.01},
		SEH: []float64{0.1, 0.1, 1.5, 0.1, 0.2, 0.1, 6},
	}
	p, curved, sloped := q.point()
	want := []float64{0.5, 1.5, 0.5, 0.5, 0.5, 0.1, 0.02}
	for j := range want {
		if math.Abs(p[j]-want[j]) > 1e-12 {
			t.Errorf("coordinate %d: %v, want %v", j, p[j], want[j])
		}
	}
	if curved != 3 || sloped != 4 {
		t.Errorf("curved %d sloped %d, want 3 and 4", curved, sloped)
	}
	q = &quadFit{B: []float64{0.1, -0.1}, H: []float64{-0.1, 5}, SEB: []float64{1, 1}, SEH: []float64{1, 1}}
	if p, curved, sloped := q.point(); p[0] != 0 || p[1] != 0 || curved+sloped != 0 {
		t.Errorf("nothing significant: %v (%d curved, %d sloped), want the centre", p, curved, sloped)
	}
}

// isModelFit reports whether err says only that the model has no point.
func isModelFit(err error) bool { return errors.Is(err, errModelFit) }
