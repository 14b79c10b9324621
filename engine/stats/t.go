package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// tQuantile is the p quantile of Student's t distribution with df degrees
// of freedom.
func tQuantile(p float64, df int) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(p)
}

// MeanCI95 returns the mean of xs and the half-width of its 95% confidence
// interval from Student's t distribution with len(xs)-1 degrees of freedom.
// The half-width is 0 for fewer than two values.
func MeanCI95(xs []float64) (mean, halfWidth float64) {
	n := len(xs)
	if n == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(n)
	if n < 2 {
		return mean, 0
	}
	ss := 0.0
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(ss / float64(n-1))
	return mean, tQuantile(0.975, n-1) * sd / math.Sqrt(float64(n))
}

// PairedT is the t statistic of the mean of a[j]-b[j]; +Inf when every
// difference is the same positive number, 0 when all are zero.
func PairedT(a, b []float64) float64 {
	n := float64(len(a))
	mean := 0.0
	for j := range a {
		mean += a[j] - b[j]
	}
	mean /= n
	ss := 0.0
	for j := range a {
		d := a[j] - b[j] - mean
		ss += d * d
	}
	if ss == 0 {
		switch {
		case mean > 0:
			return math.Inf(1)
		case mean < 0:
			return math.Inf(-1)
		}
		return 0
	}
	return mean / math.Sqrt(ss/(n-1)/n)
}

// PairedTCritical is the critical value of a one-sided paired t test at
// level alpha over n pairs: PairedT above it shows a larger mean at that
// level.
func PairedTCritical(n int, alpha float64) float64 {
	return tQuantile(1-alpha, n-1)
}
