package population

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"testing"
)

// TestConvergence runs a reduced benchmark table, each row twice (the
// second run must repeat the first exactly: no state leaks between runs).
// The 10-D CMA-ES rows check the goal against pycma 4.4 (active
// off, 21 runs, median evaluations to 1e-8): within 15% of the reference
// median and at least 19 of 21 runs successful.
func TestConvergence(t *testing.T) {
	cases := []struct {
		cfg          BenchConfig
		minSuccesses int
		maxMedian    float64 // evaluations; 0 = no check
	}{
		{BenchConfig{Optimizer: "cmaes", Function: "sphere", Dim: 10, Runs: 21}, 19, 1.15 * 1306},
		{BenchConfig{Optimizer: "cmaes", Function: "ellipsoid", Dim: 10, Runs: 21}, 19, 1.15 * 5477},
		{BenchConfig{Optimizer: "cmaes", Function: "rosenbrock", Dim: 10, Runs: 21}, 19, 1.15 * 5829},
		{BenchConfig{Optimizer: "cmaes", Function: "sphere", Dim: 5, Runs: 5, Active: true}, 5, 0},
		{BenchConfig{Optimizer: "cmaes", Function: "ellipsoid", Dim: 5, Runs: 5, Active: true}, 5, 0},
		{BenchConfig{Optimizer: "cmaes", Function: "rastrigin", Dim: 5, Runs: 5, Restarts: IPOP}, 5, 0},
		{BenchConfig{Optimizer: "cmaes", Function: "sphere", Dim: 1, Runs: 5}, 5, 0},
		{BenchConfig{Optimizer: "cem", Function: "sphere", Dim: 2, Runs: 5}, 4, 0},
	}
	for _, c := range cases {
		name := fmt.Sprintf("%s-%s-%dD-%s-active=%v", c.cfg.Optimizer, c.cfg.Function, c.cfg.Dim, c.cfg.Restarts, c.cfg.Active)
		t.Run(name, func(t *testing.T) {
			first, err := RunBench(context.Background(), c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			second, err := RunBench(context.Background(), c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(first, second) {
				t.Fatal("the same benchmark gave different results twice")
			}
			if first.Successes < c.minSuccesses {
				t.Errorf("%d of %d runs succeeded, want at least %d", first.Successes, len(first.Runs), c.minSuccesses)
			}
			if c.maxMedian > 0 && !(first.MedianEvaluations <= c.maxMedian) {
				t.Errorf("median evaluations %v, want at most %.0f", first.MedianEvaluations, c.maxMedian)
			}
			for _, r := range first.Runs {
				if r.Success != (r.Best < 1e-8) {
					t.Errorf("run %d: success %v with best %v", r.Seed, r.Success, r.Best)
				}
			}
		})
	}
}

func TestBenchFunctions(t *testing.T) {
	for _, name := range FunctionNames {
		f, err := NewFunction(name, 4)
		if err != nil {
			t.Fatal(err)
		}
		opt := []float64{0, 0, 0, 0}
		if name == "rosenbrock" {
			opt = []float64{1, 1, 1, 1}
		}
		if v := f.F(opt); v != 0 {
			t.Errorf("%s(optimum) = %v, want 0", name, v)
		}
		if a, b := f.Start(3), f.Start(3); !reflect.DeepEqual(a, b) {
			t.Errorf("%s: start depends on more than the seed", name)
		}
	}
	e, _ := NewFunction("ellipsoid", 3)
	if v := e.F([]float64{1, 1, 1}); v != 1+1e3+1e6 {
		t.Errorf("ellipsoid(1,1,1) = %v, want 1001001", v)
	}
	r, _ := NewFunction("rastrigin", 5)
	for _, v := range r.Start(1) {
		if v < -5.12 || v > 5.12 {
			t.Errorf("rastrigin start %v outside [-5.12, 5.12]", v)
		}
	}
	if _, err := NewFunction("rosenbrock", 1); err == nil {
		t.Error("rosenbrock accepted dimension 1")
	}
	if _, err := NewFunction("griewank", 3); err == nil {
		t.Error("unknown function accepted")
	}
}

func TestRunBenchCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := RunBench(ctx, BenchConfig{Optimizer: "cmaes", Function: "sphere", Dim: 3})
	if err != context.Canceled {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// generation runs Ask, a sphere evaluation and Tell.
func generation(o Optimizer, fit []float64) {
	for i, x := range o.Ask() {
		fit[i] = sphere(x)
	}
	if err := o.Tell(fit); err != nil {
		panic(err)
	}
}

// TestAllocsPerGeneration: allocations per generation do not grow with λ,
// so nothing allocates per candidate beyond the returned vectors (Ask
// allocates them as one block plus the slice of slices).
func TestAllocsPerGeneration(t *testing.T) {
	count := func(lambda int, full bool) float64 {
		x0 := make([]float64, 10)
		var o Optimizer
		if full {
			o, _ = NewCEM(CEMConfig{Config: Config{X0: x0, Lambda: lambda}, Full: true})
		} else {
			o, _ = NewCMAES(CMAESConfig{Config: Config{X0: x0, Lambda: lambda}})
		}
		fit := make([]float64, lambda)
		for range 30 { // let the histories reach their capacity
			generation(o, fit)
		}
		return testing.AllocsPerRun(50, func() { generation(o, fit) })
	}
	for _, full := range []bool{false, true} {
		small, large := count(10, full), count(200, full)
		if large > small {
			t.Errorf("full CEM=%v: %v allocations per generation at λ=200, %v at λ=10", full, large, small)
		}
	}
	o, _ := NewCEM(CEMConfig{Config: Config{X0: make([]float64, 10)}})
	fit := make([]float64, o.Lambda())
	if n := testing.AllocsPerRun(50, func() { generation(o, fit) }); n > 2 {
		t.Errorf("diagonal CEM: %v allocations per generation, want 2 (the candidates)", n)
	}
}

func benchmarkGeneration(b *testing.B, o Optimizer) {
	fit := make([]float64, len(o.Ask()))
	b.ReportAllocs()
	for b.Loop() {
		generation(o, fit)
	}
}

// BenchmarkCMAESGeneration: one generation (ask + sphere + tell) at the
// default λ; the bound is 1 ms at n = 10.
func BenchmarkCMAESGeneration(b *testing.B) {
	for _, n := range []int{10, 30} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			o, _ := NewCMAES(CMAESConfig{Config: Config{X0: make([]float64, n), TolFun: math.SmallestNonzeroFloat64}})
			benchmarkGeneration(b, o)
		})
	}
}

func BenchmarkCEMGeneration(b *testing.B) {
	for _, full := range []bool{false, true} {
		b.Run(fmt.Sprintf("n=10/full=%v", full), func(b *testing.B) {
			o, _ := NewCEM(CEMConfig{Config: Config{X0: make([]float64, 10)}, Full: full})
			benchmarkGeneration(b, o)
		})
	}
}

func BenchmarkMarshal(b *testing.B) {
	o, _ := NewCMAES(CMAESConfig{Config: Config{X0: make([]float64, 10)}})
	fit := make([]float64, o.Lambda())
	generation(o, fit)
	b.ReportAllocs()
	for b.Loop() {
		data, _ := o.MarshalBinary()
		if err := o.UnmarshalBinary(data); err != nil {
			b.Fatal(err)
		}
	}
}
