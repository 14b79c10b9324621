package stats

// Sequential test. SPRT tests H0: R = ρ0 against H1: R = ρ1 (ρ0 < ρ1) on
// the same footing, as a generalized SPRT on θ = log R. The pseudo-values
// θ̂ + u_i have mean θ̂ and, to first order, the spread of θ̂'s errors, so
// the test treats them as n normal observations with mean θ and unknown
// variance; the generalized log-likelihood ratio of H1 against H0 after n
// games is then
//
//	LLR_n = (n/2) · log((σ̂² + (θ̂ - θ0)²) / (σ̂² + (θ̂ - θ1)²)),  σ̂² = Σ(u_i - ū)²/n,
//
// with θk = log ρk. For small effects it is ((θ̂-θ0)² - (θ̂-θ1)²)/(2σ̂²/n),
// the usual normal approximation; the log form is the exact likelihood
// ratio of the normal model with the variance profiled out, and it does not
// blow up when the spread estimated from few games is small by chance (in
// the simulation of sprt_test.go, hypotheses 1.00 against 1.10 or 1.20,
// allowed to stop after 4 games, the first-order form accepted the wrong
// hypothesis 8-11% of the time, the log form 6%). The test stops at the
// first n ≥ MinGames where LLR_n ≤ log(β/(1-α)) (accept H0) or
// LLR_n ≥ log((1-β)/α) (accept H1), Wald's bounds. Swapping A and B with
// mirrored hypotheses (1/ρ1, 1/ρ0) negates the LLR. A vs A (every u_i = 0,
// θ̂ = 0) gives a finite LLR unless a hypothesis is exactly 1, where it is
// infinite: the data rule that hypothesis out or in with certainty.

import (
	"fmt"
	"math"
)

// DefaultSPRTMinGames is the number of paired games an SPRT plays before
// it first looks at the LLR. The test estimates the spread of the pairs
// from the games themselves, and from very few games that estimate is
// poor; in the simulation of sprt_test.go, letting hypotheses 1.0 and
// 1.5 stop after 4 games accepted the wrong one 6% of the time, after 16
// games 2%. A decision that takes fewer games than this is not worth the
// risk.
const DefaultSPRTMinGames = 16

// SPRT is a sequential probability ratio test on the ratio of mean scores
// of A and B over paired games (see the file comment for the statistic).
// The zero values of Alpha, Beta and MinGames mean 0.05, 0.05 and
// DefaultSPRTMinGames.
type SPRT struct {
	H0, H1      float64 // ratios mean(a)/mean(b) under each hypothesis, 0 < H0 < H1
	Alpha, Beta float64 // error rates: of accepting H1 when H0 holds, H0 when H1 holds
	MinGames    int     // games before the first look
}

// Decision is the outcome of a sequential test.
type Decision int

const (
	Undecided Decision = iota
	AcceptH0
	AcceptH1
)

func (d Decision) String() string {
	switch d {
	case AcceptH0:
		return "accept H0"
	case AcceptH1:
		return "accept H1"
	}
	return "undecided"
}

// SPRTResult is where a sequential test stopped.
type SPRTResult struct {
	SPRT
	Games    int      // paired games the decision rests on
	LLR      float64  // after Games games; ±Inf only if the pairs do not vary and θ̂ is a hypothesis (A vs A, ρ = 1)
	Bounds   Interval // accept H0 at or below Lo, H1 at or above Hi
	Decision Decision
}

// Validate reports hypotheses or error rates the test cannot use.
func (s SPRT) Validate() error {
	s = s.resolved()
	switch {
	case !(s.H0 > 0) || !(s.H1 > s.H0) || math.IsInf(s.H1, 0):
		return fmt.Errorf("%w: SPRT hypotheses %v, %v: want ratios 0 < H0 < H1", ErrCompare, s.H0, s.H1)
	case !(s.Alpha > 0 && s.Alpha < 0.5) || !(s.Beta > 0 && s.Beta < 0.5):
		return fmt.Errorf("%w: SPRT error rates %v, %v: want each in (0, 0.5)", ErrCompare, s.Alpha, s.Beta)
	case s.MinGames < 2:
		return fmt.Errorf("%w: SPRT minimum games %d: want at least 2", ErrCompare, s.MinGames)
	}
	return nil
}

func (s SPRT) resolved() SPRT {
	if s.Alpha == 0 {
		s.Alpha = 0.05
	}
	if s.Beta == 0 {
		s.Beta = 0.05
	}
	if s.MinGames == 0 {
		s.MinGames = DefaultSPRTMinGames
	}
	return s
}

// Bounds returns Wald's bounds on the LLR: [log(β/(1-α)), log((1-β)/α)].
func (s SPRT) Bounds() Interval {
	s = s.resolved()
	return Interval{math.Log(s.Beta / (1 - s.Alpha)), math.Log((1 - s.Beta) / s.Alpha)}
}

// Test runs the test over paired scores a[i], b[i] in order and stops at
// the first game count n ≥ MinGames where the LLR reaches a bound. If none
// does, the result is Undecided at len(a) games, with the LLR of all of
// them. The result depends only on the scores, not
// on how they were batched, so a caller may play in batches of any size
// and call Test on everything played so far. Test panics if s is not
// valid or the lengths differ: callers validate hypotheses from input.
func (s SPRT) Test(a, b []float64) SPRTResult {
	if err := s.Validate(); err != nil {
		panic(err)
	}
	if len(a) != len(b) {
		panic(fmt.Sprintf("stats: SPRT.Test: %d scores of A, %d of B", len(a), len(b)))
	}
	s = s.resolved()
	r := SPRTResult{SPRT: s, Bounds: s.Bounds()}
	t0, t1 := math.Log(s.H0), math.Log(s.H1)
	var m pairMoments
	for i := range a {
		m.add(a[i], b[i])
		if m.n < s.MinGames {
			continue
		}
		r.Games, r.LLR = m.n, llr(m, t0, t1)
		switch {
		case r.LLR <= r.Bounds.Lo:
			r.Decision = AcceptH0
			return r
		case r.LLR >= r.Bounds.Hi:
			r.Decision = AcceptH1
			return r
		}
	}
	r.Games, r.LLR = m.n, llr(m, t0, t1)
	return r
}

// Verdict is what the test's decision says about A against B: accepting
// H1 with H0 ≥ 1 shows A better, accepting H0 with H1 ≤ 1 shows B better;
// any other outcome shows neither (accepting H0 in a test of 1.00 against
// 1.05 says A is not 5% better, not that B is better).
func (r SPRTResult) Verdict() Verdict {
	switch {
	case r.Decision == AcceptH1 && r.H0 >= 1:
		return ABetter
	case r.Decision == AcceptH0 && r.H1 <= 1:
		return BBetter
	}
	return NoDifference
}

// llr is the LLR of θ1 = log ρ1 against θ0 = log ρ0 after the games in m.
func llr(m pairMoments, t0, t1 float64) float64 {
	if m.n < 2 || !(m.meanA > 0) || !(m.meanB > 0) {
		return 0 // no spread yet, or no ratio to take the log of
	}
	theta := math.Log(m.meanA) - math.Log(m.meanB)
	// Σ(u_i - ū)² with u_i = a_i/meanA - b_i/meanB, from the co-moments.
	// For identical a and b the three terms are equal bits, so this is
	// exactly 0 and A vs A gets no rounding residue for a spread.
	ss := m.m2a/(m.meanA*m.meanA) + m.m2b/(m.meanB*m.meanB) - 2*m.cab/(m.meanA*m.meanB)
	v := max(0, ss) / float64(m.n)
	// With v = 0 one of the two squares can be 0 and the LLR ±Inf (never
	// 0/0: θ0 ≠ θ1).
	return float64(m.n) / 2 * math.Log((v+(theta-t0)*(theta-t0))/(v+(theta-t1)*(theta-t1)))
}

// pairMoments accumulates the means and centred second moments of paired
// values with Welford's updates, which stay accurate where the textbook
// Σx² - n·mean² would cancel.
type pairMoments struct {
	n             int
	meanA, meanB  float64
	m2a, m2b, cab float64 // Σ(a-meanA)², Σ(b-meanB)², Σ(a-meanA)(b-meanB)
}

func (m *pairMoments) add(a, b float64) {
	m.n++
	da := a - m.meanA
	db := b - m.meanB
	m.meanA += da / float64(m.n)
	m.meanB += db / float64(m.n)
	m.m2a += da * (a - m.meanA)
	m.m2b += db * (b - m.meanB)
	m.cab += da * (b - m.meanB)
}
