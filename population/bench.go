package population

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// Function is a benchmark function on R^n with its standard start. Every
// one has its minimum f* = 0.
type Function struct {
	Name string
	Dim  int
	// F evaluates the function; it does not keep x.
	F func(x []float64) float64
	// Sigma0 is the standard initial step size.
	Sigma0 float64
	x0     func(r *rand.Rand) []float64
}

// FunctionNames lists the benchmark functions NewFunction knows.
var FunctionNames = []string{"sphere", "ellipsoid", "rosenbrock", "rastrigin"}

// NewFunction returns the benchmark function name in dimension n:
//
//	sphere      Σ x_i²                                    from x0 = 1, σ0 = 1
//	ellipsoid   Σ 10^(6(i−1)/(n−1)) x_i² (condition 1e6)   from x0 = 1, σ0 = 1
//	rosenbrock  Σ 100(x_{i+1} − x_i²)² + (1 − x_i)²        from x0 = 0, σ0 = 0.5 (n ≥ 2)
//	rastrigin   10n + Σ x_i² − 10 cos(2π x_i)              from x0 uniform in [−5.12, 5.12]^n, σ0 = 2
func NewFunction(name string, n int) (*Function, error) {
	if n < 1 || n > maxDim {
		return nil, fmt.Errorf("population: dimension %d: must be 1..%d", n, maxDim)
	}
	ones := func(*rand.Rand) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = 1
		}
		return x
	}
	f := &Function{Name: name, Dim: n}
	switch name {
	case "sphere":
		f.F, f.Sigma0, f.x0 = sphere, 1, ones
	case "ellipsoid":
		coef := make([]float64, n)
		for i := range coef {
			coef[i] = 1
			if n > 1 {
				coef[i] = math.Pow(10, 6*float64(i)/float64(n-1))
			}
		}
		f.F = func(x []float64) float64 {
			var s float64
			for i, v := range x {
				s += coef[i] * v * v
			}
			return s
		}
		f.Sigma0, f.x0 = 1, ones
	case "rosenbrock":
		if n < 2 {
			return nil, fmt.Errorf("population: rosenbrock needs dimension 2 or more")
		}
		f.F, f.Sigma0 = rosenbrock, 0.5
		f.x0 = func(*rand.Rand) []float64 { return make([]float64, n) }
	case "rastrigin":
		f.F, f.Sigma0 = rastrigin, 2
		f.x0 = func(r *rand.Rand) []float64 {
			x := make([]float64, n)
			for i := range x {
				x[i] = -5.12 + 10.24*r.Float64()
			}
			return x
		}
	default:
		return nil, fmt.Errorf("population: unknown function %q (known: %s)", name, strings.Join(FunctionNames, ", "))
	}
	return f, nil
}

// Start returns the standard start point for a run seeded with seed (only
// Rastrigin's depends on it, drawn from PCG(seed, 1)).
func (f *Function) Start(seed uint64) []float64 {
	return f.x0(rand.New(rand.NewPCG(seed, 1)))
}

func sphere(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return s
}

func rosenbrock(x []float64) float64 {
	var s float64
	for i := 0; i+1 < len(x); i++ {
		a, b := x[i+1]-x[i]*x[i], 1-x[i]
		s += 100*a*a + b*b
	}
	return s
}

func rastrigin(x []float64) float64 {
	s := 10 * float64(len(x))
	for _, v := range x {
		s += v*v - 10*math.Cos(2*math.Pi*v)
	}
	return s
}

// BenchConfig describes a benchmark: Runs independent runs of one
// optimizer, with default settings, on one function.
type BenchConfig struct {
	Optimizer Method   // MethodCMAES or MethodCEM
	Function  string   // one of FunctionNames
	Dim       int      // dimension n
	Runs      int      // 0 = 21
	Target    float64  // success when a value below Target is found (0 = 1e-8)
	Restarts  Restarts // NoRestarts or IPOP
	Seed      uint64   // run r uses RunSeed(Seed, r)
	MaxEvals  int      // evaluation budget per run (0 = DefaultBenchMaxEvals(Dim))
	Active    bool     // CMA-ES only: active covariance update
}

// DefaultBenchMaxEvals is the default budget of one benchmark run: 1e5·n.
func DefaultBenchMaxEvals(n int) int { return 100000 * n }

// BenchRun is the outcome of one run. Evaluations counts the evaluations
// up to and including the first one below the target (in the order of the
// candidates), or all evaluations of a failed run.
type BenchRun struct {
	Seed        uint64
	Evaluations int
	Best        float64
	Success     bool
	Restarts    int
	Stop        Reason
}

// BenchResult collects the runs. MedianEvaluations counts failed runs as
// infinitely long, so it is +Inf unless more than half the runs succeed.
type BenchResult struct {
	Config            BenchConfig // with defaults filled in
	Runs              []BenchRun
	Successes         int
	MedianEvaluations float64
}

// RunSeed derives the seed of run r from the benchmark seed:
// splitmix64(splitmix64(seed) + r). The seed seeds both the optimizer and
// Rastrigin's random start.
func RunSeed(seed uint64, r int) uint64 { return splitmix64(splitmix64(seed) + uint64(r)) }

// splitmix64 is Steele, Lea & Flood's SplitMix64 finaliser. engine and
// tuner have the same function; this copy stays because population knows
// nothing about 2048 and must not import engine (DESIGN.md), and the
// function is too small to earn a shared package of its own.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// Validate checks cfg, naming the first bad field.
func (cfg *BenchConfig) Validate() error {
	if _, err := ParseMethod(string(cfg.Optimizer)); err != nil {
		return err
	}
	switch {
	case cfg.Runs < 0:
		return fmt.Errorf("population: runs = %d: must be positive", cfg.Runs)
	case !finite(cfg.Target) || cfg.Target < 0:
		return fmt.Errorf("population: target = %v: must be a positive number", cfg.Target)
	case cfg.MaxEvals < 0:
		return fmt.Errorf("population: max evals = %d: must not be negative", cfg.MaxEvals)
	case cfg.Active && cfg.Optimizer != MethodCMAES:
		return fmt.Errorf("population: the active update is a CMA-ES option")
	}
	if _, err := ParseRestarts(string(cfg.Restarts)); err != nil {
		return err
	}
	_, err := NewFunction(cfg.Function, cfg.Dim)
	return err
}

// RunBench runs the benchmark, one run after the other. It checks ctx
// between generations.
func RunBench(ctx context.Context, cfg BenchConfig) (*BenchResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Runs == 0 {
		cfg.Runs = 21
	}
	if cfg.Target == 0 {
		cfg.Target = 1e-8
	}
	if cfg.Restarts == "" {
		cfg.Restarts = NoRestarts
	}
	if cfg.MaxEvals == 0 {
		cfg.MaxEvals = DefaultBenchMaxEvals(cfg.Dim)
	}
	res := &BenchResult{Config: cfg, Runs: make([]BenchRun, cfg.Runs)}
	evals := make([]float64, cfg.Runs)
	for r := range res.Runs {
		run, err := benchRun(ctx, &cfg, RunSeed(cfg.Seed, r))
		if err != nil {
			return nil, err
		}
		res.Runs[r] = run
		evals[r] = math.Inf(1)
		if run.Success {
			res.Successes++
			evals[r] = float64(run.Evaluations)
		}
	}
	slices.Sort(evals)
	res.MedianEvaluations = medianSorted(evals)
	return res, nil
}

func benchRun(ctx context.Context, cfg *BenchConfig, seed uint64) (BenchRun, error) {
	fn, err := NewFunction(cfg.Function, cfg.Dim)
	if err != nil {
		return BenchRun{}, err
	}
	target := cfg.Target
	base := Config{
		X0:       fn.Start(seed),
		Sigma0:   fn.Sigma0,
		Seed:     seed,
		Restarts: cfg.Restarts,
		MaxEvals: cfg.MaxEvals,
		TargetF:  &target,
	}
	opt, err := New(cfg.Optimizer, base, Options{Active: cfg.Active})
	if err != nil {
		return BenchRun{}, err
	}
	run := BenchRun{Seed: seed}
	var fit []float64
	for {
		if err := ctx.Err(); err != nil {
			return BenchRun{}, err
		}
		xs := opt.Ask()
		fit = slices.Grow(fit[:0], len(xs))[:len(xs)]
		for i, x := range xs {
			fit[i] = fn.F(x)
		}
		if !run.Success {
			for i, f := range fit {
				if f < target {
					run.Evaluations = opt.Evaluations() + i + 1
					run.Success = run.Evaluations <= cfg.MaxEvals
					break
				}
			}
		}
		if err := opt.Tell(fit); err != nil {
			return BenchRun{}, err
		}
		if reason, stop := opt.Stop(); stop {
			run.Stop = reason
			break
		}
	}
	if !run.Success {
		run.Evaluations = opt.Evaluations()
	}
	_, run.Best = opt.Best()
	run.Restarts = opt.Restarts()
	return run, nil
}
