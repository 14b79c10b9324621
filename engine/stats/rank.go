package stats

import (
	"cmp"
	"math"
	"slices"
)

// RankChange is UH-CMA-ES's uncertainty measure of one generation (Hansen,
// Niederberger, Guzzella and Koumoutsakos 2009, "A method for handling
// uncertainty in evolutionary optimization"), as pycma's
// NoiseHandler.update_measure computes it: fit holds the λ values as
// evaluated (minimised), fitre the same values with the re-evaluations of
// the candidates idx in place. It returns the mean over idx of |Δrank| −
// max(1, limit), where limit is the theta·50th percentile of the rank
// changes a random ranking would give (pycma's theta is 0.5): positive when
// re-evaluation moves ranks more than a random ranking usually would. Ties
// rank in index order (old values before new), which is what makes the
// result exact for equal inputs.
func RankChange(fit, fitre []float64, idx []int, theta float64) float64 {
	lam := len(fit)
	all := append(slices.Clone(fit), fitre...)
	order := make([]int, len(all))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(all[a], all[b]) })
	rank := make([]int, len(all)) // 0-based joint ranks
	for r, i := range order {
		rank[i] = r
	}
	r := make([]float64, 2*lam-1) // 1 .. 2λ-1
	limit := func(own, other int) float64 {
		c := own + 1
		if own > other {
			c--
		}
		for k := range r {
			r[k] = math.Abs(float64(k+1) - float64(c))
		}
		return prctile(r, theta*50)
	}
	sum := 0.0
	for _, i := range idx {
		r0, r1 := rank[i], rank[lam+i]
		delta := r0 - r1
		switch {
		case delta > 0:
			delta--
		case delta < 0:
			delta++
		}
		lim := 0.5 * (limit(r0, r1) + limit(r1, r0))
		sum += math.Abs(float64(delta)) - math.Max(lim, 1)
	}
	return sum / float64(len(idx))
}

// prctile is pycma's Mh.prctile: the p-th percentile of data with its
// interpolation rule (the first and last values beyond the ends).
func prctile(data []float64, p float64) float64 {
	d := slices.Clone(data)
	slices.Sort(d)
	n := float64(len(d))
	fi := p*n/100 - 0.5
	switch {
	case fi <= 0:
		return d[0]
	case fi >= n-1:
		return d[len(d)-1]
	}
	i := int(fi)
	return (float64(i)+1-fi)*d[i] + (fi-float64(i))*d[i+1]
}
