package population

import (
	"fmt"
	"math"
)

// CMAESConfig configures NewCMAES. The zero value of every field means its
// documented default; X0 is required.
type CMAESConfig struct {
	Config
	// Active turns on the active covariance update (negative weights for
	// the worst λ−μ candidates, Hansen's tutorial, section "Active CMA").
	// Off by default.
	Active bool
	// LRA turns on learning rate adaptation (LRA-CMA-ES, Nomura, Akimoto
	// & Ono 2023): the mean's and the covariance's updates are scaled to
	// keep their signal-to-noise ratio near 1.4, for noisy functions at
	// the default population size. Off by default.
	LRA bool
	// Mirrored turns on mirrored sampling with pairwise selection (Auger,
	// Brockhoff & Hansen 2011): candidates come in pairs m ± σy, and only
	// the better of each pair can be selected. Off by default.
	Mirrored bool
	// Settle scales every update down while the mean's steps are mostly
	// noise, leaving σ where it is (settle.go): on a plateau of noise the
	// mean stops random walking and σ stops drifting. Off by default; not
	// with LRA, which scales the same updates another way.
	Settle bool
}

// Validate reports the first invalid field, naming it.
func (c *CMAESConfig) Validate() error {
	if c.Settle && c.LRA {
		return fmt.Errorf("%w: Settle and LRA both scale the updates: choose one", ErrConfig)
	}
	return c.Config.Validate()
}

// DefaultCMAESLambda is the default population size 4 + ⌊3 ln n⌋.
func DefaultCMAESLambda(n int) int { return 4 + int(math.Floor(3*math.Log(float64(n)))) }

// CMAES is the (μ/μ_w, λ)-CMA-ES of Hansen's tutorial (arXiv:1604.00772):
// weighted recombination, cumulative step-size adaptation, rank-one and
// rank-μ covariance updates, optionally active, with IPOP restarts.
type CMAES struct {
	core
	active   bool
	lraOn    bool
	lra      *lra // learning rate adaptation's state, nil unless lraOn
	settleOn bool
	settle   *settle // settling's state, nil unless settleOn
	sel      []int   // pairwise selection's ranking (mirrored only)
	seen     []bool  // selection's scratch: candidates already ranked

	// Strategy parameters for the current λ (derived, never stored).
	mu                           int
	weights                      []float64 // λ entries, sorted best first
	sumW                         float64   // Σ w_i over all λ (1 unless active)
	mueff                        float64
	cs, ds, cc, c1, cmu, chiN    float64
	eigenEvery                   float64 // generations between eigendecompositions
	hsigThreshold, psFactor, pcF float64

	// The distribution, in normalised coordinates.
	m      []float64 // mean
	c      []float64 // covariance C, n×n row-major, kept exactly symmetric
	b      []float64 // eigenvectors of C (columns), n×n row-major
	d      []float64 // square roots of the eigenvalues of C
	ps, pc []float64 // evolution paths of σ and C
	sigma  float64
	eigenG int  // value of core.g at the last eigendecomposition
	notPD  bool // the last eigendecomposition failed or found λ_i ≤ 0

	yw, zw, tmp []float64 // scratch
}

// NewCMAES validates cfg and returns an optimizer at generation 0.
func NewCMAES(cfg CMAESConfig) (*CMAES, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := cfg.Config.resolved()
	lambda := cfg.Lambda
	if lambda == 0 {
		lambda = DefaultCMAESLambda(len(cfg.X0))
	}
	o := &CMAES{active: cfg.Active, lraOn: cfg.LRA, settleOn: cfg.Settle}
	o.core.init(r, lambda)
	o.mirror = cfg.Mirrored
	o.reset()
	return o, nil
}

// setParams derives the strategy parameters for core.lambda, following
// the tutorial's Table 1 (α_cov = 2, c_m = 1).
func (o *CMAES) setParams() {
	n, l := float64(o.n), o.lambda
	o.mu = l / 2
	w := make([]float64, l)
	var sp, sp2, sn, sn2 float64
	for i := range w {
		w[i] = math.Log(float64(l+1)/2) - math.Log(float64(i+1))
		if i < o.mu {
			sp += w[i]
			sp2 += w[i] * w[i]
		} else {
			sn += w[i]
			sn2 += w[i] * w[i]
		}
	}
	o.mueff = sp * sp / sp2
	o.cs = (o.mueff + 2) / (n + o.mueff + 5)
	o.ds = 1 + 2*math.Max(0, math.Sqrt((o.mueff-1)/(n+1))-1) + o.cs
	o.cc = (4 + o.mueff/n) / (n + 4 + 2*o.mueff/n)
	o.c1 = 2 / ((n+1.3)*(n+1.3) + o.mueff)
	o.cmu = math.Min(1-o.c1, 2*(o.mueff-2+1/o.mueff)/((n+2)*(n+2)+o.mueff))
	o.chiN = math.Sqrt(n) * (1 - 1/(4*n) + 1/(21*n*n))
	o.hsigThreshold = (1.4 + 2/(n+1)) * o.chiN
	o.psFactor = math.Sqrt(o.cs * (2 - o.cs) * o.mueff)
	o.pcF = math.Sqrt(o.cc * (2 - o.cc) * o.mueff)
	o.eigenEvery = 1 / ((o.c1 + o.cmu) * n * 10)

	// Positive weights sum to 1; the negative ones (active only) sum to
	// −min(α_μ⁻, α_μeff⁻, α_posdef⁻).
	var negScale float64
	if o.active && sn != 0 {
		mueffNeg := sn * sn / sn2
		aMu := 1 + o.c1/o.cmu
		aMueff := 1 + 2*mueffNeg/(o.mueff+2)
		aPosdef := (1 - o.c1 - o.cmu) / (n * o.cmu)
		negScale = math.Min(aMu, math.Min(aMueff, aPosdef)) / -sn
	}
	o.sumW = 0
	for i := range w {
		if i < o.mu {
			w[i] /= sp
		} else {
			w[i] *= negScale
		}
		o.sumW += w[i]
	}
	o.weights = w
}

// reset starts the distribution at X0 with Sigma0 and C = I.
func (o *CMAES) reset() {
	n := o.n
	o.setParams()
	o.m = o.sp.start()
	o.c = make([]float64, n*n)
	o.b = make([]float64, n*n)
	o.d = make([]float64, n)
	for i := range n {
		o.c[i*n+i] = 1
		o.b[i*n+i] = 1
		o.d[i] = 1
	}
	o.ps = make([]float64, n)
	o.pc = make([]float64, n)
	o.sigma = o.cfg.Sigma0
	o.eigenG = 0
	o.notPD = false
	o.yw = make([]float64, n)
	o.zw = make([]float64, n)
	o.tmp = make([]float64, n)
	if o.mirror {
		o.sel = make([]int, o.lambda)
		o.seen = make([]bool, o.lambda)
	}
	o.lra = nil
	if o.lraOn {
		o.lra = newLRA(n) // learning rates 1 again on a restart
	}
	o.settle = nil
	if o.settleOn {
		o.settle = newSettle(n)
	}
}

// sample sets y_k = B D z_k and x_k = m + σ y_k.
func (o *CMAES) sample(k int) {
	n := o.n
	z, y, x := o.row(o.z, k), o.row(o.y, k), o.row(o.xin, k)
	dz := o.tmp
	for j := range n {
		dz[j] = o.d[j] * z[j]
	}
	for i := range n {
		bi := o.b[i*n : (i+1)*n]
		var s float64
		for j, v := range dz {
			s += bi[j] * v
		}
		y[i] = s
		x[i] = o.m[i] + o.sigma*s
	}
}

func (o *CMAES) update() {
	n := o.n
	if o.lra != nil {
		// B and D are C's: with LRA C is decomposed every generation.
		o.lra.save(n, o.m, o.sigma, o.c, o.b, o.d)
	}
	if o.settle != nil {
		o.settle.save(o.m, o.sigma, o.c)
	}
	order := o.selection()
	clear(o.yw)
	clear(o.zw)
	for i := range o.mu {
		k, w := order[i], o.weights[i]
		y, z := o.row(o.y, k), o.row(o.z, k)
		for j := range n {
			o.yw[j] += w * y[j]
			o.zw[j] += w * z[j]
		}
	}
	for j := range n {
		o.m[j] += o.sigma * o.yw[j]
	}
	// C^(-1/2) <y>_w = B <z>_w, since y = B D z.
	var psn2 float64
	for i := range n {
		bi := o.b[i*n : (i+1)*n]
		var s float64
		for j, v := range o.zw {
			s += bi[j] * v
		}
		o.ps[i] = (1-o.cs)*o.ps[i] + o.psFactor*s
		if o.settle != nil {
			o.settle.dl[i] = s
		}
		psn2 += o.ps[i] * o.ps[i]
	}
	psn := math.Sqrt(psn2)
	hsig := psn/math.Sqrt(1-math.Pow(1-o.cs, float64(2*(o.g+1)))) < o.hsigThreshold
	h := 0.0
	if hsig {
		h = 1
	}
	for j := range n {
		o.pc[j] = (1-o.cc)*o.pc[j] + h*o.pcF*o.yw[j]
	}

	// C ← (1 + c1 δ(h) − c1 − cμ Σw) C + c1 pc pcᵀ + cμ Σ w°_i y_i y_iᵀ,
	// computed on the upper triangle and mirrored so that C stays exactly
	// symmetric.
	delta := (1 - h) * o.cc * (2 - o.cc)
	a := 1 + o.c1*delta - o.c1 - o.cmu*o.sumW
	for i := range n {
		row := o.c[i*n : (i+1)*n]
		p := o.c1 * o.pc[i]
		for j := i; j < n; j++ {
			row[j] = a*row[j] + p*o.pc[j]
		}
	}
	for r, w := range o.weights {
		if w == 0 {
			continue
		}
		y := o.row(o.y, order[r])
		if w < 0 {
			// w° = w·n/‖C^(-1/2) y‖² = w·n/‖z‖².
			var z2 float64
			for _, v := range o.row(o.z, order[r]) {
				z2 += v * v
			}
			w *= float64(n) / z2
		}
		w *= o.cmu
		for i := range n {
			row := o.c[i*n : (i+1)*n]
			p := w * y[i]
			for j := i; j < n; j++ {
				row[j] += p * y[j]
			}
		}
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			o.c[j*n+i] = o.c[i*n+j]
		}
	}

	o.sigma *= math.Exp(o.cs / o.ds * (psn/o.chiN - 1))

	// LRA scales the whole step; where the scaled covariance cannot be
	// split (never in exact arithmetic) the step stays unscaled.
	if o.lra != nil {
		o.lra.adapt(n, o.m, &o.sigma, o.c)
	}
	if o.settle != nil {
		o.settle.adapt(o.settle.dl, o.fit, o.m, &o.sigma, o.c)
	}

	if o.lra != nil || float64(o.g+1-o.eigenG) > o.eigenEvery {
		o.eigen()
		o.eigenG = o.g + 1
	}
}

// selection returns the ranking the update weighs: core.order, or with
// mirrored sampling pairwise selection's, the better of each pair (and an
// unpaired last candidate) in their order, then the worse of each pair in
// theirs. Were both of a pair selected, their steps ±y would cancel in the
// mean and shrink the step size's path (Auger, Brockhoff & Hansen 2011).
func (o *CMAES) selection() []int {
	if !o.mirror {
		return o.order
	}
	clear(o.seen)
	w, l := 0, (o.lambda+1)/2 // the winners fill the front, the losers the back
	for _, k := range o.order {
		// k's partner is k^1; an odd λ's last candidate has none.
		if p := k ^ 1; p < o.lambda && o.seen[p] {
			o.sel[l] = k
			l++
		} else {
			o.sel[w] = k
			w++
		}
		o.seen[k] = true
	}
	return o.sel
}

// eigen refreshes B and D from C with gonum's mat.EigenSym. A matrix that
// is not positive definite keeps sampling (its D clamped to 1e-8·max D)
// but reports StopConditionCov.
func (o *CMAES) eigen() { o.notPD = !eigenSqrt(o.n, o.c, o.b, o.d) }

func (o *CMAES) localStop() Reason {
	n := o.n
	tolx := true
	for i := range n {
		if o.sigma*math.Max(math.Abs(o.pc[i]), math.Sqrt(o.c[i*n+i])) >= o.cfg.TolX {
			tolx = false
			break
		}
	}
	if tolx {
		return StopTolX
	}
	lo, hi := minMax(o.d)
	if o.sigma*hi > o.cfg.TolUpSigma*o.cfg.Sigma0 {
		return StopTolUpSigma
	}
	if o.notPD || (hi/lo)*(hi/lo) > o.cfg.TolConditionCov {
		return StopConditionCov
	}
	axis := o.g % n
	moved := false
	for j := range n {
		if o.m[j]+0.1*o.sigma*o.d[axis]*o.b[j*n+axis] != o.m[j] {
			moved = true
			break
		}
	}
	if !moved {
		return StopNoEffectAxis
	}
	for j := range n {
		if o.m[j]+0.2*o.sigma*math.Sqrt(o.c[j*n+j]) == o.m[j] {
			return StopNoEffectCoord
		}
	}
	return ""
}

// Ask implements Optimizer.
func (o *CMAES) Ask() [][]float64 { return o.ask(o) }

// Tell implements Optimizer. Fitness is minimised.
func (o *CMAES) Tell(fitness []float64) error { return o.tell(o, fitness) }

// TellAt records the (minimised) fitness of candidate i; the generation
// completes when every candidate has a value, whatever the order of the
// calls. A later Tell replaces the values told so far.
func (o *CMAES) TellAt(i int, f float64) error { return o.tellAt(o, i, f) }

// Mean implements Optimizer.
func (o *CMAES) Mean() []float64 { return o.mean(o.m) }

// Method implements Optimizer.
func (o *CMAES) Method() Method { return MethodCMAES }

// LearningRates returns the learning rates of the mean and the
// covariance, η_m and η_Σ in (0, 1], and whether LRA or settling (one
// rate for both) is on.
func (o *CMAES) LearningRates() (mean, cov float64, ok bool) {
	if o.settle != nil {
		return o.settle.eta, o.settle.eta, true
	}
	if o.lra == nil {
		return 0, 0, false
	}
	return o.lra.etaMean, o.lra.etaSigma, true
}

// Sigma implements Optimizer: the step size σ.
func (o *CMAES) Sigma() float64 { return o.sigma }

// AxisRatio implements Optimizer: √cond(C). It reads the eigenvalues of
// the last eigendecomposition when C has not changed since (after every
// generation at the default λ for n ≤ 30); otherwise it decomposes C once
// more, leaving the sampling state untouched.
func (o *CMAES) AxisRatio() float64 {
	if o.eigenG != o.g {
		return eigenAxisRatio(o.n, o.c)
	}
	if o.notPD {
		return math.Inf(1)
	}
	return axisRatio(o.d)
}
