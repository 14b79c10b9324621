package population

import (
	"fmt"
	"math"
	"slices"
)

// Reason names a stop condition. The strings are stable (they appear in
// histories and in optbench output).
type Reason string

// Stop conditions. StopMaxEvals and StopTarget are terminal; the others are
// local (the search has converged or broken down where it is) and trigger a
// restart under IPOP while restarts remain.
const (
	StopMaxEvals      Reason = "maxevals"      // Evaluations() >= MaxEvals
	StopTarget        Reason = "target"        // a fitness below TargetF was told
	StopTolX          Reason = "tolx"          // every coordinate's search width < TolX
	StopTolFun        Reason = "tolfun"        // recent best values and this generation span < TolFun
	StopStagnation    Reason = "stagnation"    // best and median values stopped improving
	StopConditionCov  Reason = "conditioncov"  // covariance condition number > TolConditionCov, or not positive definite
	StopNoEffectAxis  Reason = "noeffectaxis"  // a step of 0.1 std along a principal axis does not change the mean
	StopNoEffectCoord Reason = "noeffectcoord" // a step of 0.2 std in a coordinate does not change the mean
	StopTolUpSigma    Reason = "tolupsigma"    // the largest std grew beyond TolUpSigma·Sigma0: divergence
)

var reasons = []Reason{StopMaxEvals, StopTarget, StopTolX, StopTolFun, StopStagnation,
	StopConditionCov, StopNoEffectAxis, StopNoEffectCoord, StopTolUpSigma}

func validReason(r Reason) bool { return r == "" || slices.Contains(reasons, r) }

// Restarts selects the restart strategy.
type Restarts string

const (
	// NoRestarts (also the empty string) stops at the first stop condition.
	NoRestarts Restarts = "none"
	// IPOP restarts from X0 with Sigma0 and the population doubled
	// (λ_r = λ_0·2^r) on every local stop condition, until the evaluation
	// budget or MaxRestarts is spent (Auger & Hansen 2005).
	IPOP Restarts = "ipop"
)

// ParseRestarts accepts "none", "" and "ipop".
func ParseRestarts(s string) (Restarts, error) {
	switch Restarts(s) {
	case "", NoRestarts:
		return NoRestarts, nil
	case IPOP:
		return IPOP, nil
	}
	return "", fmt.Errorf("%w: Restarts = %q: must be none or ipop", ErrConfig, s)
}

// resetRestart clears what belongs to one restart.
func (c *core) resetRestart() {
	c.g = 0
	c.funHist = c.funHist[:0]
	c.stagBest = c.stagBest[:0]
	c.stagMed = c.stagMed[:0]
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

// median is medianSorted of a sorted copy of v, in the core's scratch
// space so that the per-generation stop test does not allocate.
func (c *core) median(v []float64) float64 {
	c.scratch = append(c.scratch[:0], v...)
	slices.Sort(c.scratch)
	return medianSorted(c.scratch)
}

// medianSorted is the median of sorted values: the middle one, or the mean
// of the two middle ones. stats.Median (engine/stats) is the project's
// other median; this package may not import it (it imports engine, and
// population knows nothing about 2048), so it keeps its own.
func medianSorted(s []float64) float64 {
	h := len(s)
	if h%2 == 1 {
		return s[h/2]
	}
	return (s[h/2-1] + s[h/2]) / 2
}

func minMax(v []float64) (lo, hi float64) {
	lo, hi = v[0], v[0]
	for _, x := range v[1:] {
		lo = math.Min(lo, x)
		hi = math.Max(hi, x)
	}
	return lo, hi
}
