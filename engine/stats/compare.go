package stats

// Paired statistics of two players, A and B, that played the same seeds.
//
// Pairing is what makes a comparison cheap: a game's score depends far more
// on its seed (the spawns) than on the player, so a_i - b_i varies much less
// than a_i or b_i do, and the interval of the difference is narrower than
// the two intervals of the means would suggest.
//
// Ratio of means. The ratio R = mean(a)/mean(b) is estimated by
// θ̂ = log mean(a) - log mean(b), whose standard error comes from the delta
// method on the paired data: θ̂ - θ is, to first order, the mean of
// u_i = a_i/mean(a) - b_i/mean(b), so se(θ̂) = sd(u)/√n, and the 95%
// interval is exp(θ̂ ± t·se) with Student's t at n-1 degrees of freedom.
// Working on the log makes the interval positive, and exactly mirrored:
// B/A's interval is the reciprocal of A/B's. Fieller's interval would only
// differ where mean(b) is within a few standard errors of zero, which game
// scores (coefficient of variation about 0.5) leave behind after a handful
// of games; it costs a quadratic with unbounded cases for no gain here.
//
import (
	"errors"
	"fmt"
	"math"

	"github.com/evotune/evotune/engine"
)

// ErrCompare is wrapped by errors about results that cannot be paired or
// SPRT hypotheses that cannot be tested.
var ErrCompare = errors.New("stats: cannot compare")

// Verdict is what a comparison concludes about A against B.
type Verdict int

const (
	NoDifference Verdict = iota // the data do not show either player better
	ABetter
	BBetter
)

func (v Verdict) String() string {
	switch v {
	case ABetter:
		return "A better"
	case BBetter:
		return "B better"
	}
	return "no difference shown"
}

// Interval is the closed interval [Lo, Hi].
type Interval struct{ Lo, Hi float64 }

// Rate is the share of games that reached something, with its 95% Wilson
// score interval.
type Rate struct {
	Hits, Games int
	CI95        Interval
}

// Value returns Hits/Games (0 for no games).
func (r Rate) Value() float64 {
	if r.Games == 0 {
		return 0
	}
	return float64(r.Hits) / float64(r.Games)
}

// TileReach is how often each player reached a tile.
type TileReach struct {
	Tile int
	A, B Rate
}

// Comparison holds the paired statistics of A and B on the same seeds.
type Comparison struct {
	Games int
	// A and B summarize each side alone (mean with its 95% t interval,
	// median, reach rates).
	A, B Summary
	// Diff is the mean of a_i - b_i; DiffCI95 its 95% t interval.
	Diff     float64
	DiffCI95 Interval
	// Ratio is mean(a)/mean(b), NaN unless mean(b) > 0; RatioCI95 its 95%
	// interval by the delta method on the log, NaN unless both means are
	// positive.
	Ratio     float64
	RatioCI95 Interval
	// Wins, Losses and Ties count the seeds on which A's score was above,
	// below or equal to B's.
	Wins, Losses, Ties int
	// Reach lists ReachTiles that A or B reached in some game, in
	// increasing order.
	Reach []TileReach
	// Verdict is ABetter when DiffCI95 lies above 0, BBetter when below,
	// else NoDifference (always for fewer than two games).
	Verdict Verdict
}

// Compare computes the paired statistics of a and b, where a[i] and b[i]
// are the games A and B played on the same seed.
func Compare(a, b []engine.Result) (Comparison, error) {
	if len(a) != len(b) {
		return Comparison{}, fmt.Errorf("%w: %d games of A, %d of B: want the same seeds", ErrCompare, len(a), len(b))
	}
	if len(a) == 0 {
		return Comparison{}, fmt.Errorf("%w: no games", ErrCompare)
	}
	for i := range a {
		if a[i].Seed != b[i].Seed {
			return Comparison{}, fmt.Errorf("%w: game %d: A played seed %d, B seed %d: want the same seeds", ErrCompare, i, a[i].Seed, b[i].Seed)
		}
	}
	n := len(a)
	c := Comparison{Games: n, A: Summarize(a), B: Summarize(b)}
	sa, sb := Scores(a), Scores(b)
	d := make([]float64, n)
	for i := range d {
		d[i] = sa[i] - sb[i]
		switch {
		case d[i] > 0:
			c.Wins++
		case d[i] < 0:
			c.Losses++
		default:
			c.Ties++
		}
	}
	var half float64
	c.Diff, half = MeanCI95(d)
	c.DiffCI95 = Interval{c.Diff - half, c.Diff + half}
	c.Ratio, c.RatioCI95 = ratioCI95(sa, sb)
	for _, t := range ReachTiles {
		ra, rb := Rate{Games: n}, Rate{Games: n}
		for i := range a {
			if a[i].MaxTile >= t {
				ra.Hits++
			}
			if b[i].MaxTile >= t {
				rb.Hits++
			}
		}
		if ra.Hits+rb.Hits == 0 {
			continue
		}
		ra.CI95, rb.CI95 = wilson95(ra.Hits, n), wilson95(rb.Hits, n)
		c.Reach = append(c.Reach, TileReach{Tile: t, A: ra, B: rb})
	}
	switch {
	case n < 2: // no interval from one game
	case c.DiffCI95.Lo > 0:
		c.Verdict = ABetter
	case c.DiffCI95.Hi < 0:
		c.Verdict = BBetter
	}
	return c, nil
}

// z975 is the 0.975 quantile of the standard normal distribution.
const z975 = 1.959963984540054

// wilson95 returns the 95% Wilson score interval of a proportion of hits
// in n trials: unlike p ± z·sqrt(p(1-p)/n) it stays inside [0, 1] and is
// not empty at 0 or n hits. For n = 0 it is [0, 1].
func wilson95(hits, n int) Interval {
	if n <= 0 {
		return Interval{0, 1}
	}
	p, nf, z2 := float64(hits)/float64(n), float64(n), z975*z975
	centre := (p + z2/(2*nf)) / (1 + z2/nf)
	half := z975 * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / (1 + z2/nf)
	iv := Interval{max(0, centre-half), min(1, centre+half)}
	// At 0 or n hits one end is exactly 0 or 1; rounding would leave dust.
	if hits == 0 {
		iv.Lo = 0
	}
	if hits == n {
		iv.Hi = 1
	}
	return iv
}

// ratioCI95 returns mean(a)/mean(b) for paired a and b and its 95%
// interval exp(θ̂ ± t·sd(u)/√n) (see the comment at the top of this file). The ratio is NaN
// unless mean(b) > 0, the interval NaN unless both means are positive.
func ratioCI95(a, b []float64) (float64, Interval) {
	nan := Interval{math.NaN(), math.NaN()}
	ma, _ := MeanCI95(a)
	mb, _ := MeanCI95(b)
	if !(mb > 0) {
		return math.NaN(), nan
	}
	ratio := ma / mb
	if !(ma > 0) {
		return ratio, nan
	}
	u := make([]float64, len(a))
	for i := range u {
		u[i] = a[i]/ma - b[i]/mb
	}
	// The mean of u is 0 up to rounding; MeanCI95 supplies t·sd(u)/√n.
	_, half := MeanCI95(u)
	return ratio, Interval{ratio * math.Exp(-half), ratio * math.Exp(half)}
}
