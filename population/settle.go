package population

import "math"

// settle is the state of settling (CMAESConfig.Settle): the moving averages
// of the mean's steps in the local coordinates of the distribution they
// were sampled from, and the learning rate η they set.
//
// On a plateau of noise the ranks of a generation are mostly luck, and
// plain CMA-ES moves the mean the whole way to the average of the lucky
// candidates: the mean random walks, and σ, which cumulative step-size
// adaptation moves by the length of those random steps, random walks on a
// log scale (it grows in some runs and collapses in others). Settling
// measures how consistent the mean's steps are, as learning rate
// adaptation does (LRA-CMA-ES, Nomura, Akimoto & Ono 2023: moving averages
// E of the step and V of its squared norm), and scales every update by the
// rate η it sets: the mean's step, the covariance's (c1 and cμ) and σ's
// log step. Unlike LRA it leaves σ where it is as η falls: LRA raises σ as
// 1/η, which keeps the mean's steps as long and the random walk going.
//
// The rate follows a test, not a target: the signal-to-noise estimate
// (‖E‖² − fV)/(V − ‖E‖²), where f is what ‖E‖²/V is for steps of pure noise
// (so the estimate is 0 there whatever the number of steps averaged),
// over its deviation under pure noise, f√(2/n)/(1 − f), is a z score:
// about 0 ± 1 on a plateau, 1 to 3 while a noisy run still climbs, more on
// a clear slope. From the 10th step on, η moves by a factor
// exp(0.1η·clip(z − 0.5, −1, 1)): on a plateau it falls about as
// 1/(1 + k/15) over k generations, the schedule of a stochastic
// approximation, so that the mean becomes an average of many generations'
// selections and stops wandering, and σ and C stop moving with it; a slope
// that returns raises it again, slowly once it is small.
type settle struct {
	e   []float64 // E of the local mean step, as an average of the steps so far
	v   float64   // E of its squared norm, likewise
	t   int       // steps averaged
	eta float64   // the learning rate, in (0, 1]

	// The distribution before the update, and work space.
	m0, c0, dl []float64
	sigma0     float64
}

// settleBeta is the moving averages' rate, LRA's β_m.
const settleBeta = 0.1

func newSettle(n int) *settle {
	return &settle{e: make([]float64, n), eta: 1, m0: make([]float64, n), c0: make([]float64, n*n), dl: make([]float64, n)}
}

// save keeps the distribution before an update.
func (s *settle) save(m []float64, sigma float64, c []float64) {
	copy(s.m0, m)
	copy(s.c0, c)
	s.sigma0 = sigma
}

// settleZ is the z score at which η holds: below it η falls, above it
// rises. Pure noise scores 0 ± 1; a run still climbing, its steps
// persistent but noisy, 1 to 3 (nneonneo at cap 1, λ 8).
const settleZ = 0.5

// settleWarmup is the steps averaged before η moves: 1/β, the averages'
// window. Fewer steps say too little (a run's first steps would lower η on
// the luck of two or three generations).
const settleWarmup = 10

// z returns the z score of the steps' signal-to-noise ratio, NaN before
// settleWarmup steps.
func (s *settle) z() float64 {
	if s.t < settleWarmup {
		return math.NaN()
	}
	// The weights of the t steps in the averages are β(1−β)^k, k < t;
	// divided by their sum (1 − (1−β)^t) the averages are unbiased, and f
	// is Σw²/(Σw)².
	q := 1 - settleBeta
	qt := math.Pow(q, float64(s.t))
	sum := 1 - qt
	f := settleBeta * settleBeta * (1 - qt*qt) / (1 - q*q) / (sum * sum)
	var e2 float64
	for _, x := range s.e {
		e2 += x * x
	}
	e2 /= sum * sum
	v := s.v / sum
	snr := (e2 - f*v) / (v - e2)
	return snr * (1 - f) / (f * math.Sqrt(2/float64(len(s.e))))
}

// adapt updates η from the local step local (C^(-1/2) of the plain step
// over σ: B⟨z⟩_w), then scales the plain update to (m, σ, C) down by it:
// m = m0 + η Δm, C = C0 + η ΔC (a convex combination of two positive
// definite matrices) and σ = σ0 (σ/σ0)^η.
func (s *settle) adapt(local, m []float64, sigma *float64, c []float64) {
	var l2 float64
	for i, x := range local {
		s.e[i] = (1-settleBeta)*s.e[i] + settleBeta*x
		l2 += x * x
	}
	s.v = (1-settleBeta)*s.v + settleBeta*l2
	s.t++
	if z := s.z(); !math.IsNaN(z) && !math.IsInf(z, 0) {
		rel := math.Max(-1, math.Min(1, z-settleZ))
		s.eta = math.Min(1, s.eta*math.Exp(settleBeta*s.eta*rel))
	}
	if s.eta == 1 {
		return
	}
	for i := range m {
		m[i] = s.m0[i] + s.eta*(m[i]-s.m0[i])
	}
	for i := range c {
		c[i] = s.c0[i] + s.eta*(c[i]-s.c0[i])
	}
	*sigma = s.sigma0 * math.Exp(s.eta*math.Log(*sigma/s.sigma0))
}
