package population

import "math"

// settle is the state of settling (CMAESConfig.Settle): the moving averages
// of the mean's steps in the local coordinates of the distribution they
// were sampled from, the generations' mean fitness, and the learning rate
// η they set.
//
// On a plateau of noise the ranks of a generation are mostly luck, and
// plain CMA-ES moves the mean the whole way to the average of the lucky
// candidates: the mean random walks, and σ, which cumulative step-size
// adaptation moves by the length of those random steps, random walks on a
// log scale (it grows in some runs and collapses in others). Settling
// scales every update by a rate η: the mean's step, the covariance's (c1
// and cμ) and σ's log step. Unlike learning rate adaptation (LRA-CMA-ES,
// Nomura, Akimoto & Ono 2023, lra.go), which raises σ as 1/η and so keeps
// the mean's steps as long and the random walk going, it leaves σ where
// it is as η falls.
//
// η follows two tests. The first asks whether the mean's steps point
// somewhere: LRA's moving averages E of the step and V of its squared norm
// (rate 0.1), kept as averages of the steps so far, give the
// signal-to-noise estimate (‖E‖² − fV)/(V − ‖E‖²), where f is what ‖E‖²/V
// is for steps of pure noise (so the estimate is 0 there however many
// steps it averages); over its deviation under pure noise, f√(2/n)/(1 − f),
// it is a z score, about 0 ± 1 on a plateau. The second asks whether the
// run still climbs: the generations' mean fitness over the latest quarter
// of the generations (5 at least) against the quarter before, by a z test
// at 2. A run still climbing under noise takes steps that do not keep
// their direction, so the first test alone would slow it (on nneonneo at
// cap 1 it cost 0.03 of the held-out ratio in 24 generations); the quarter
// windows grow with the run, so that a slow climb over a hundred
// generations is still seen.
//
// From the 10th generation on, η moves by a factor exp(0.1η·r), at most 1,
// where r is 1 while the run climbs and clip(z − 0.5, −1, 1) otherwise: on
// a plateau it falls about as 1/(1 + k/15) over k generations, the
// schedule of a stochastic approximation, so that the mean becomes an
// average of many generations' selections and stops wandering, and σ and C
// stop moving with it; a slope that returns raises it again, slowly once
// it is small.
type settle struct {
	e   []float64 // E of the local mean step, as an average of the steps so far
	v   float64   // E of its squared norm, likewise
	t   int       // generations since the (re)start
	eta float64   // the learning rate, in (0, 1]
	// fits are the mean fitness of the latest generations, oldest first:
	// the last half of them at most (the climb test's two quarters),
	// 10 at least.
	fits []float64

	// The distribution before the update, and work space.
	m0, c0, dl []float64
	sigma0     float64
}

const (
	// settleBeta is the moving averages' rate, LRA's β_m.
	settleBeta = 0.1
	// settleZ is the z score of the steps at which η holds: below it η
	// falls, above it rises. Pure noise scores 0 ± 1.
	settleZ = 0.5
	// settleWarmup is the generations before η moves: 1/β, the moving
	// averages' window, and the climb test's least two quarters.
	settleWarmup = 10
	// settleClimbZ is the z score of the climb test above which the run
	// climbs.
	settleClimbZ = 2
)

func newSettle(n int) *settle {
	return &settle{e: make([]float64, n), eta: 1, m0: make([]float64, n), c0: make([]float64, n*n), dl: make([]float64, n)}
}

// save keeps the distribution before an update.
func (s *settle) save(m []float64, sigma float64, c []float64) {
	copy(s.m0, m)
	copy(s.c0, c)
	s.sigma0 = sigma
}

// z returns the z score of the steps' signal-to-noise ratio.
func (s *settle) z() float64 {
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

// quarter is the climb test's window after t generations.
func quarter(t int) int { return max(settleWarmup/2, t/4) }

// settleKept is the number of fitness values settling holds after t
// generations: each generation adds one, and the oldest go beyond the two
// quarters the next generation's test reads (2·quarter(t+1)). That bound
// grows by two every fourth generation from t+1 = 24 on, and the values
// held catch up with it a generation later: they are one short of it when
// t+1 is a multiple of 4 (a state's t can be anything, so no loop).
func settleKept(t int) int {
	k := min(t, 2*quarter(t+1))
	if t+1 >= 24 && (t+1)%4 == 0 {
		k--
	}
	return k
}

// climbing reports whether the mean fitness of the latest quarter of the
// generations is below (better than) the quarter's before by more than
// settleClimbZ standard errors, from their pooled variance.
func (s *settle) climbing() bool {
	w := quarter(s.t)
	a, b := s.fits[len(s.fits)-2*w:len(s.fits)-w], s.fits[len(s.fits)-w:]
	var ma, mb float64
	for i := range w {
		ma += a[i]
		mb += b[i]
	}
	ma /= float64(w)
	mb /= float64(w)
	var ss float64
	for i := range w {
		ss += (a[i]-ma)*(a[i]-ma) + (b[i]-mb)*(b[i]-mb)
	}
	se := math.Sqrt(ss / float64(2*w-2) * 2 / float64(w))
	return ma-mb > settleClimbZ*se
}

// adapt records the generation (local: C^(-1/2) of the plain step over σ,
// B⟨z⟩_w; fit: its candidates' fitness), updates η, then scales the plain
// update to (m, σ, C) down by it: m = m0 + η Δm, C = C0 + η ΔC (a convex
// combination of two positive definite matrices) and σ = σ0 (σ/σ0)^η.
func (s *settle) adapt(local, fit, m []float64, sigma *float64, c []float64) {
	var l2 float64
	for i, x := range local {
		s.e[i] = (1-settleBeta)*s.e[i] + settleBeta*x
		l2 += x * x
	}
	s.v = (1-settleBeta)*s.v + settleBeta*l2
	var mf float64
	for _, f := range fit {
		mf += f
	}
	s.t++
	s.fits = append(s.fits, mf/float64(len(fit)))
	if keep := 2 * quarter(s.t+1); len(s.fits) > keep {
		s.fits = s.fits[len(s.fits)-keep:]
	}
	if s.t >= settleWarmup {
		z := s.z()
		if math.IsNaN(z) || math.IsInf(z, 0) {
			z = settleZ // no step at all: no evidence either way
		}
		r := math.Max(-1, math.Min(1, z-settleZ))
		if r < 0 && s.climbing() {
			r = 0
		}
		s.eta = math.Min(1, s.eta*math.Exp(settleBeta*s.eta*r))
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
