package tuner

import "slices"

// MaxValidationAverage bounds validation.average: the means it keeps are
// part of every checkpoint.
const MaxValidationAverage = 100

// averaging reports whether validations measure an average of means.
func (t *Tuner) averaging() bool { return t.cfg.Validation.Average > 1 }

// recordMean keeps the distribution mean just reached (the full vector)
// among the stage's last validation.average means, oldest first.
func (t *Tuner) recordMean(mean []float64) {
	if !t.averaging() {
		return
	}
	means := append(t.state.RecentMeans, slices.Clone(mean))
	if n := t.cfg.Validation.Average; len(means) > n {
		means = slices.Delete(means, 0, len(means)-n)
	}
	t.state.RecentMeans = means
}

// recommendedVector returns the vector a validation now measures: the
// current mean, or with validation.average the coordinate-wise average of
// the stage's last means (summed oldest first, so every run adds in the
// same order).
func (t *Tuner) recommendedVector() []float64 {
	mean := t.vector(t.opt.Mean())
	means := t.state.RecentMeans
	if !t.averaging() || len(means) == 0 {
		return mean
	}
	avg := make([]float64, len(mean))
	for _, m := range means {
		for i, x := range m {
			avg[i] += x
		}
	}
	for i := range avg {
		avg[i] /= float64(len(means))
	}
	return avg
}
