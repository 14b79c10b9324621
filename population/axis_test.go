package population

import (
	"bytes"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// directAxisRatio is √(λ_max/λ_min) of the symmetric n×n matrix c, computed
// from scratch.
func directAxisRatio(t *testing.T, n int, c []float64) float64 {
	t.Helper()
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(n, append([]float64(nil), c...)), false) {
		t.Fatal("eigendecomposition failed")
	}
	v := es.Values(nil)
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	if !(lo > 0) {
		return math.Inf(1)
	}
	return math.Sqrt(hi / lo)
}

func closeRel(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

// TestAxisRatioCMAES compares AxisRatio with a fresh decomposition of C on
// generations where the stored one is current and where it is stale (λ = 2
// at n = 30 decomposes every other generation), and checks that it reads a
// fresh one without allocating and never changes the state.
func TestAxisRatioCMAES(t *testing.T) {
	for _, c := range []struct {
		name   string
		n, lam int
	}{{"default-λ", 10, 0}, {"lazy-eigen", 30, 2}} {
		t.Run(c.name, func(t *testing.T) {
			fn, err := NewFunction("ellipsoid", c.n)
			if err != nil {
				t.Fatal(err)
			}
			o, err := NewCMAES(CMAESConfig{Config: Config{X0: fn.Start(1), Sigma0: fn.Sigma0, Lambda: c.lam, Seed: 1}})
			if err != nil {
				t.Fatal(err)
			}
			if r := o.AxisRatio(); r != 1 {
				t.Fatalf("generation 0: axis ratio %v, want 1", r)
			}
			var fresh, stale int
			for range 150 {
				step(t, o, fn.F)
				want := directAxisRatio(t, o.n, o.c)
				before := mustMarshal(o)
				got := o.AxisRatio()
				if !bytes.Equal(before, mustMarshal(o)) {
					t.Fatal("AxisRatio changed the state")
				}
				if !closeRel(got, want) {
					t.Fatalf("generation %d: axis ratio %v, direct %v", o.gen, got, want)
				}
				if o.eigenG == o.g {
					fresh++
					if a := testing.AllocsPerRun(10, func() { o.AxisRatio() }); a != 0 {
						t.Fatalf("generation %d: %v allocations with a current decomposition", o.gen, a)
					}
				} else {
					stale++
				}
			}
			if r := o.AxisRatio(); !(r > 1.5) {
				t.Errorf("axis ratio %v after 150 generations on the ellipsoid: C never stretched", r)
			}
			if fresh == 0 || (c.lam == 2 && stale == 0) {
				t.Errorf("%d generations with a current decomposition, %d with a stale one", fresh, stale)
			}
		})
	}
}

// TestAxisRatioCEM compares AxisRatio with the covariance of both models.
func TestAxisRatioCEM(t *testing.T) {
	fn, err := NewFunction("ellipsoid", 6)
	if err != nil {
		t.Fatal(err)
	}
	for _, full := range []bool{false, true} {
		o, err := NewCEM(CEMConfig{Config: Config{X0: fn.Start(1), Sigma0: fn.Sigma0, Seed: 3}, Full: full})
		if err != nil {
			t.Fatal(err)
		}
		if r := o.AxisRatio(); r != 1 {
			t.Fatalf("full=%v: generation 0: axis ratio %v, want 1", full, r)
		}
		for range 30 {
			step(t, o, fn.F)
			cov := o.c
			if !full {
				cov = make([]float64, o.n*o.n)
				for i, v := range o.v {
					cov[i*o.n+i] = v
				}
			}
			if got, want := o.AxisRatio(), directAxisRatio(t, o.n, cov); !closeRel(got, want) {
				t.Fatalf("full=%v, generation %d: axis ratio %v, direct %v", full, o.gen, got, want)
			}
		}
		if r := o.AxisRatio(); !(r > 1.5) {
			t.Errorf("full=%v: axis ratio %v after 30 generations on the ellipsoid", full, r)
		}
	}
}
