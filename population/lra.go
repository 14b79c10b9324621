package population

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// The constants of learning rate adaptation, the paper's and the cmaes
// library's: the target signal-to-noise ratio α, the moving averages'
// rates β_m and β_Σ, and γ, which bounds a learning rate's change.
const (
	lraAlpha     = 1.4
	lraBetaMean  = 0.1
	lraBetaSigma = 0.03
	lraGamma     = 0.1
)

// lra is the state of learning rate adaptation (LRA-CMA-ES, Nomura,
// Akimoto & Ono 2023, arXiv:2304.03473): the moving averages of the
// mean's and the covariance's one-step changes in the local coordinates of
// the old distribution, and the two learning rates they set.
//
// Under noise CMA-ES's update is mostly noise: with c_m = 1 the mean
// jumps by σ times a random selection each generation and random walks.
// LRA measures the signal-to-noise ratio of the updates and scales them by
// η_m and η_Σ ≤ 1 so that it stays near α; the smaller η_m, the larger σ
// (σ ∝ 1/η_m), so that candidates differ by more than the noise while the
// mean moves by the average of many generations' selections.
type lra struct {
	eMean, eSigma     []float64 // E of the local mean step (n) and covariance step (n²)
	vMean, vSigma     float64   // E of their squared norms
	etaMean, etaSigma float64   // the learning rates, in (0, 1]

	// The old distribution, saved before the update: m, C, σ and
	// Σ^(-1/2) = C^(-1/2)/σ; and work space.
	m0, c0, a []float64
	sigma0    float64
	dm, dS, t []float64
}

func newLRA(n int) *lra {
	return &lra{
		eMean: make([]float64, n), eSigma: make([]float64, n*n),
		etaMean: 1, etaSigma: 1,
		m0: make([]float64, n), c0: make([]float64, n*n), a: make([]float64, n*n),
		dm: make([]float64, n), dS: make([]float64, n*n), t: make([]float64, n*n),
	}
}

// save keeps the distribution before an update: its mean, σ, C and
// Σ^(-1/2) = B D⁻¹ Bᵀ / σ from the decomposition the generation sampled
// with.
func (l *lra) save(n int, m []float64, sigma float64, c, b, d []float64) {
	copy(l.m0, m)
	copy(l.c0, c)
	l.sigma0 = sigma
	for i := range n {
		for j := range n {
			var s float64
			for k := range n {
				s += b[i*n+k] * b[j*n+k] / d[k]
			}
			l.a[i*n+j] = s / sigma
		}
	}
}

// adapt updates the learning rates from the step from the saved
// distribution to (m, σ, C), then replaces that step by its η-scaled
// version: m = m0 + η_m Δm, σ²C = Σ0 + η_Σ ΔΣ, split into σ and C with
// det C = 1, and σ multiplied by η_m's old value over its new one. It
// reports false, leaving m, σ and C as the plain update made them (the
// moving averages and rates are updated all the same), when the scaled
// covariance is not positive definite; in exact arithmetic it always is,
// a convex combination of two positive definite matrices.
func (l *lra) adapt(n int, m []float64, sigma *float64, c []float64) bool {
	s0, s1 := l.sigma0, *sigma
	for i := range n {
		l.dm[i] = m[i] - l.m0[i]
	}
	for i := range n * n {
		l.dS[i] = s1*s1*c[i] - s0*s0*l.c0[i]
	}
	// The steps in the old distribution's local coordinates:
	// Σ0^(-1/2) Δm, and Σ0^(-1/2) ΔΣ Σ0^(-1/2) / √2.
	var locM2, locS2 float64
	for i := range n {
		var s float64
		for k := range n {
			s += l.a[i*n+k] * l.dm[k]
		}
		l.eMean[i] = (1-lraBetaMean)*l.eMean[i] + lraBetaMean*s
		locM2 += s * s
	}
	for i := range n {
		for j := range n {
			var s float64
			for k := range n {
				s += l.dS[i*n+k] * l.a[k*n+j]
			}
			l.t[i*n+j] = s
		}
	}
	for i := range n {
		for j := range n {
			var s float64
			for k := range n {
				s += l.a[i*n+k] * l.t[k*n+j]
			}
			s /= math.Sqrt2
			l.eSigma[i*n+j] = (1-lraBetaSigma)*l.eSigma[i*n+j] + lraBetaSigma*s
			locS2 += s * s
		}
	}
	l.vMean = (1-lraBetaMean)*l.vMean + lraBetaMean*locM2
	l.vSigma = (1-lraBetaSigma)*l.vSigma + lraBetaSigma*locS2

	before := l.etaMean
	l.etaMean = lraRate(l.etaMean, lraBetaMean, snr(l.eMean, l.vMean, lraBetaMean))
	l.etaSigma = lraRate(l.etaSigma, lraBetaSigma, snr(l.eSigma, l.vSigma, lraBetaSigma))

	for i := range n * n {
		l.t[i] = s0*s0*l.c0[i] + l.etaSigma*l.dS[i]
	}
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(n, l.t), false) {
		return false
	}
	var logdet float64
	for _, v := range es.RawValues() {
		if !(v > 0) || math.IsInf(v, 1) {
			return false
		}
		logdet += math.Log(v)
	}
	for i := range n {
		m[i] = l.m0[i] + l.etaMean*l.dm[i]
	}
	s := math.Min(math.Exp(logdet/2/float64(n)), maxSigma)
	for i := range n * n {
		c[i] = l.t[i] / (s * s)
	}
	*sigma = s * before / l.etaMean
	return true
}

// maxSigma caps σ after the split, as the cmaes library does (its
// _SIGMA_MAX).
const maxSigma = 1e32

// snr estimates the signal-to-noise ratio of a step from the moving
// averages E (of the step) and V (of its squared norm) at rate β:
// (‖E‖² − β/(2−β) V) / (V − ‖E‖²).
func snr(e []float64, v, beta float64) float64 {
	var e2 float64
	for _, x := range e {
		e2 += x * x
	}
	return (e2 - beta/(2-beta)*v) / (v - e2)
}

// lraRate moves a learning rate toward the one whose SNR is α:
// η·exp(min(γη, β)·clip(SNR/(αη) − 1, −1, 1)), at most 1.
// A SNR that is not a number (no step at all yet: 0/0) leaves η as it is.
func lraRate(eta, beta, snr float64) float64 {
	if math.IsNaN(snr) {
		return eta
	}
	rel := math.Max(-1, math.Min(1, snr/lraAlpha/eta-1))
	return math.Min(1, eta*math.Exp(math.Min(lraGamma*eta, beta)*rel))
}
