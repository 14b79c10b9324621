package population

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// method is what CMAES and CEM add to core.
type method interface {
	// reset starts a (re)start at core.lambda: mean at X0, step size Sigma0.
	reset()
	// sample fills row k of core.y and core.xin from row k of core.z.
	sample(k int)
	// update moves the distribution; core.order ranks the candidates and
	// core.g counts the generations of this restart before this one.
	update()
	// localStop returns the first method-specific local stop condition.
	localStop() Reason
}

// pcgStream is the PCG increment used with Config.Seed. Any fixed odd
// constant works; this one is the golden ratio.
const pcgStream = 0x9e3779b97f4a7c15

// core is the bookkeeping both optimizers share: counters, the generation
// in progress, the best point, the stop conditions and restarts.
type core struct {
	cfg Config // resolved, immutable
	n   int
	sp  space

	pcg *rand.PCG
	rng *rand.Rand // draws from pcg only; holds no state of its own

	lambda   int // current population size: cfg.Lambda << restarts
	restarts int
	gen      int // completed generations, all restarts
	evals    int
	g        int // completed generations of the current restart
	bestF    float64
	bestX    []float64 // caller coordinates; nil until a finite best
	stop     Reason

	// The generation in progress. z is the only sampled state; y and xin
	// follow from it and the distribution, so a restored state recomputes
	// them bit for bit.
	pending bool
	z, y    []float64 // λ×n, row k is candidate k
	xin     []float64 // λ×n, normalised, before the bound transform
	cand    [][]float64
	fit     []float64
	told    []bool
	ntold   int
	order   []int

	funHist  []float64 // best f of the last generations, oldest first
	stagBest []float64 // best and median f for the stagnation test
	stagMed  []float64
	scratch  []float64
}

func (c *core) init(cfg Config, lambda0 int) {
	c.cfg = cfg
	c.cfg.Lambda = lambda0
	c.n = len(cfg.X0)
	c.sp = newSpace(&c.cfg)
	c.pcg = rand.NewPCG(cfg.Seed, pcgStream)
	c.rng = rand.New(c.pcg)
	c.lambda = lambda0
	c.bestF = math.Inf(1)
	c.alloc()
}

// alloc sizes the per-generation buffers for c.lambda.
func (c *core) alloc() {
	n, l := c.n, c.lambda
	c.z = make([]float64, l*n)
	c.y = make([]float64, l*n)
	c.xin = make([]float64, l*n)
	c.fit = make([]float64, l)
	c.told = make([]bool, l)
	c.order = make([]int, l)
	c.cand = nil
	c.pending = false
	c.ntold = 0
}

// resetRestart clears what belongs to one restart.
func (c *core) resetRestart() {
	c.g = 0
	c.funHist = c.funHist[:0]
	c.stagBest = c.stagBest[:0]
	c.stagMed = c.stagMed[:0]
}

func (c *core) row(v []float64, k int) []float64 { return v[k*c.n : (k+1)*c.n : (k+1)*c.n] }

func (c *core) ask(m method) [][]float64 {
	if c.cand != nil {
		return c.cand
	}
	if !c.pending {
		c.draw(m)
	}
	flat := make([]float64, c.lambda*c.n)
	c.cand = make([][]float64, c.lambda)
	for k := range c.cand {
		c.cand[k] = flat[k*c.n : (k+1)*c.n : (k+1)*c.n]
		c.sp.toCaller(c.row(c.xin, k), c.cand[k])
	}
	return c.cand
}

func (c *core) draw(m method) {
	for i := range c.z {
		c.z[i] = c.rng.NormFloat64()
	}
	for k := range c.lambda {
		m.sample(k)
	}
	clear(c.told)
	c.ntold = 0
	c.pending = true
}

func (c *core) tell(m method, fitness []float64) error {
	if !c.pending {
		return ErrNotAsked
	}
	if len(fitness) != c.lambda {
		return fmt.Errorf("%w: got %d, λ = %d", ErrFitnessLength, len(fitness), c.lambda)
	}
	for i, f := range fitness {
		if math.IsNaN(f) {
			return fmt.Errorf("%w: candidate %d", ErrNaN, i)
		}
	}
	copy(c.fit, fitness)
	c.complete(m)
	return nil
}

func (c *core) tellAt(m method, i int, f float64) error {
	switch {
	case !c.pending:
		return ErrNotAsked
	case i < 0 || i >= c.lambda:
		return fmt.Errorf("%w: %d, λ = %d", ErrIndex, i, c.lambda)
	case c.told[i]:
		return fmt.Errorf("%w: %d", ErrToldTwice, i)
	case math.IsNaN(f):
		return fmt.Errorf("%w: candidate %d", ErrNaN, i)
	}
	c.fit[i] = f
	c.told[i] = true
	c.ntold++
	if c.ntold == c.lambda {
		c.complete(m)
	}
	return nil
}

// complete ranks the generation, updates the distribution and checks the
// stop conditions. Ties rank by index, so the ranking, and hence the
// whole run, depends only on the values told, not on their order.
func (c *core) complete(m method) {
	for i := range c.order {
		c.order[i] = i
	}
	fit := c.fit
	slices.SortFunc(c.order, func(a, b int) int {
		switch {
		case fit[a] < fit[b]:
			return -1
		case fit[a] > fit[b]:
			return 1
		}
		return a - b
	})
	c.gen++
	c.evals += c.lambda
	best := c.order[0]
	if fit[best] < c.bestF {
		c.bestF = fit[best]
		if c.bestX == nil {
			c.bestX = make([]float64, c.n)
		}
		c.sp.toCaller(c.row(c.xin, best), c.bestX)
	}
	c.record()
	m.update()
	c.g++
	c.pending = false
	c.cand = nil
	c.ntold = 0
	clear(c.told)
	c.endGeneration(m)
}

func (c *core) funHistLen() int { return 10 + (30*c.n+c.lambda-1)/c.lambda }
func (c *core) stagMin() int    { return 120 + (30*c.n+c.lambda-1)/c.lambda }

const stagMax = 20000

// record appends this generation to the histories used by tolfun and the
// stagnation test (Hansen 2009, BBOB IPOP-CMA-ES: best and median values
// over the last 20% of the generations, at least 120+30n/λ and at most
// 20000).
func (c *core) record() {
	l := c.lambda
	best := c.fit[c.order[0]]
	med := c.fit[c.order[l/2]]
	if l%2 == 0 {
		med = (c.fit[c.order[l/2-1]] + med) / 2
	}
	c.funHist = push(c.funHist, best, c.funHistLen())
	w := min(max((c.g+1+4)/5, c.stagMin()), stagMax)
	c.stagBest = push(c.stagBest, best, w)
	c.stagMed = push(c.stagMed, med, w)
}

// push appends v to h, dropping the oldest values beyond max.
func push(h []float64, v float64, max int) []float64 {
	if len(h) >= max {
		drop := len(h) - max + 1
		h = h[:copy(h, h[drop:])]
	}
	return append(h, v)
}

func (c *core) endGeneration(m method) {
	c.stop = ""
	if t := c.cfg.TargetF; t != nil && c.bestF < *t {
		c.stop = StopTarget
		return
	}
	if c.cfg.MaxEvals > 0 && c.evals >= c.cfg.MaxEvals {
		c.stop = StopMaxEvals
		return
	}
	r := c.localStop()
	if r == "" {
		r = m.localStop()
	}
	if r == "" {
		return
	}
	if c.cfg.Restarts == IPOP && c.restarts < c.cfg.MaxRestarts && 2*c.lambda <= maxLambda && 2*c.lambda*c.n <= maxWork {
		c.restarts++
		c.lambda <<= 1
		c.alloc()
		c.resetRestart()
		m.reset()
		return
	}
	c.stop = r
}

func (c *core) localStop() Reason {
	if c.cfg.Noisy {
		return ""
	}
	if len(c.funHist) == c.funHistLen() {
		lo, hi := minMax(c.funHist)
		cur := c.fit[c.order[c.lambda-1]] - c.fit[c.order[0]]
		if hi-lo < c.cfg.TolFun && cur < c.cfg.TolFun {
			return StopTolFun
		}
	}
	if h := len(c.stagBest); h >= c.stagMin() {
		k := max(1, h*3/10)
		if c.median(c.stagBest[h-k:]) >= c.median(c.stagBest[:k]) &&
			c.median(c.stagMed[h-k:]) >= c.median(c.stagMed[:k]) {
			return StopStagnation
		}
	}
	return ""
}

func (c *core) median(v []float64) float64 {
	c.scratch = append(c.scratch[:0], v...)
	slices.Sort(c.scratch)
	h := len(c.scratch)
	if h%2 == 1 {
		return c.scratch[h/2]
	}
	return (c.scratch[h/2-1] + c.scratch[h/2]) / 2
}

func minMax(v []float64) (lo, hi float64) {
	lo, hi = v[0], v[0]
	for _, x := range v[1:] {
		lo = math.Min(lo, x)
		hi = math.Max(hi, x)
	}
	return lo, hi
}

func (c *core) mean(m []float64) []float64 {
	x := make([]float64, c.n)
	c.sp.toCaller(m, x)
	return x
}

// The accessors both optimizers share, promoted through embedding.

// Best implements Optimizer.
func (c *core) Best() ([]float64, float64) { return c.best() }

// Stop implements Optimizer.
func (c *core) Stop() (Reason, bool) { return c.stopped() }

// Generation implements Optimizer.
func (c *core) Generation() int { return c.gen }

// Evaluations implements Optimizer.
func (c *core) Evaluations() int { return c.evals }

// Restarts implements Optimizer.
func (c *core) Restarts() int { return c.restarts }

// Lambda is the current population size.
func (c *core) Lambda() int { return c.lambda }

func (c *core) best() ([]float64, float64) {
	if c.bestX == nil {
		return nil, c.bestF
	}
	return append([]float64(nil), c.bestX...), c.bestF
}

func (c *core) stopped() (Reason, bool) { return c.stop, c.stop != "" }

// encode writes the core state (after the config).
func (c *core) encode(e *encoder) {
	p, _ := c.pcg.MarshalBinary() // never fails
	e.bytes(p)
	e.int(c.lambda)
	e.int(c.restarts)
	e.int(c.gen)
	e.int(c.evals)
	e.int(c.g)
	e.f64(c.bestF)
	e.f64s(c.bestX)
	e.bytes([]byte(c.stop))
	e.bool(c.pending)
	if c.pending {
		e.f64s(c.z)
		e.f64s(c.fit)
		e.bools(c.told)
	}
	e.f64s(c.funHist)
	e.f64s(c.stagBest)
	e.f64s(c.stagMed)
}

// decode reads what encode wrote into a core initialised from cfg. The
// caller decodes the method state next and then calls resample.
func (c *core) decode(d *decoder, cfg Config) {
	c.init(cfg, cfg.Lambda)
	if err := c.pcg.UnmarshalBinary(d.bytes("rng", 64)); err != nil && d.err == nil {
		d.fail("rng: %v", err)
	}
	c.lambda = d.int("lambda", 2, maxLambda)
	c.restarts = d.int("restarts", 0, cfg.MaxRestarts)
	c.gen = d.int("generation", 0, math.MaxInt32)
	c.evals = d.int("evaluations", 0, math.MaxInt64/2)
	c.g = d.int("restart generation", 0, c.gen)
	c.bestF = d.f64()
	c.bestX = d.finiteF64s("best", -c.n)
	c.stop = Reason(d.bytes("stop", 32))
	if d.err != nil {
		return
	}
	switch {
	case c.lambda != cfg.Lambda<<c.restarts:
		d.fail("λ = %d after %d restarts from %d", c.lambda, c.restarts, cfg.Lambda)
	case c.restarts > 0 && cfg.Restarts != IPOP:
		d.fail("restarts without IPOP")
	case math.IsNaN(c.bestF) || (c.bestX == nil) != (c.bestF == math.Inf(1)) || (c.bestX != nil && len(c.bestX) != c.n):
		d.fail("inconsistent best point")
	case !validReason(c.stop):
		d.fail("unknown stop reason %q", c.stop)
	}
	if d.err != nil {
		return
	}
	c.alloc()
	c.pending = d.bool()
	if c.pending {
		copy(c.z, d.finiteF64s("z", c.lambda*c.n))
		copy(c.fit, d.f64s("fitness", c.lambda))
		copy(c.told, d.bools("told", c.lambda))
		for i, t := range c.told {
			if t {
				if math.IsNaN(c.fit[i]) {
					d.fail("fitness %d is NaN", i)
				}
				c.ntold++
			}
		}
		if c.ntold == c.lambda {
			d.fail("complete generation still pending")
		}
	}
	c.funHist = d.f64s("tolfun history", -c.funHistLen())
	c.stagBest = d.f64s("stagnation history", -stagMax)
	c.stagMed = d.f64s("stagnation history", -stagMax)
	if d.err == nil && len(c.stagBest) != len(c.stagMed) {
		d.fail("stagnation histories differ in length")
	}
}

// resample recomputes y and xin of a pending generation after decoding.
func (c *core) resample(m method) {
	if c.pending {
		for k := range c.lambda {
			m.sample(k)
		}
	}
}

// eigenSqrt factors the symmetric n×n matrix c (row-major) with gonum's
// mat.EigenSym: b gets the eigenvectors as columns (row-major) and d the
// square roots of the eigenvalues, ascending. It reports whether c is
// positive definite. A non-finite c, a failed factorisation or a largest
// eigenvalue that is not positive and finite leave b and d as they were; other
// non-positive eigenvalues are clamped to 1e-8 times the largest square root,
// so that sampling goes on while the caller reports the ill-conditioning.
func eigenSqrt(n int, c, b, d []float64) bool {
	for _, v := range c {
		if !finite(v) {
			return false
		}
	}
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(n, c), true) {
		return false
	}
	vals, q := es.RawValues(), es.RawQ()
	top := vals[n-1]
	if !(top > 0) || math.IsInf(top, 1) {
		return false
	}
	pd := true
	floor := math.Sqrt(top) * 1e-8
	for j, v := range vals {
		if v > 0 {
			d[j] = math.Sqrt(v)
		} else {
			d[j] = floor
			pd = false
		}
	}
	for i := range n {
		for j := range n {
			b[i*n+j] = q.At(i, j)
		}
	}
	return pd
}
