package population

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
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
	mirror   bool // candidates 2i and 2i+1 share one normal sample, negated

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
	for k := range c.lambda {
		z := c.row(c.z, k)
		if c.mirror && k%2 == 1 {
			for j, v := range c.row(c.z, k-1) {
				z[j] = -v
			}
			continue
		}
		for j := range z {
			z[j] = c.rng.NormFloat64()
		}
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

// Generation counts the completed generations, over all restarts.
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
