package population

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

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

// axisRatio is max(d)/min(d) for the eigenvalue roots d of a covariance
// matrix: the ratio of its longest to its shortest principal axis, +Inf
// when the smallest is not positive.
func axisRatio(d []float64) float64 {
	lo, hi := minMax(d)
	if !(lo > 0) {
		return math.Inf(1)
	}
	return hi / lo
}

// eigenAxisRatio is √(λ_max/λ_min) of the symmetric n×n matrix c (row-major)
// from an eigendecomposition of its own (values only): for callers whose
// stored eigenvalues are older than c. +Inf when c is not positive definite
// or cannot be factorised.
func eigenAxisRatio(n int, c []float64) float64 {
	for _, v := range c {
		if !finite(v) {
			return math.Inf(1)
		}
	}
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(n, c), false) {
		return math.Inf(1)
	}
	vals := es.RawValues() // ascending
	lo, hi := vals[0], vals[n-1]
	if !(lo > 0) || math.IsInf(hi, 1) {
		return math.Inf(1)
	}
	return math.Sqrt(hi / lo)
}
