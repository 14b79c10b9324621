package tuner

import (
	"math"
	"slices"
	"testing"
)

// TestOptimizerOptionRuns checks each of CMA-ES's opt-in options end to
// end: it changes the run, it shows where it should (its own check), the
// key survives the checkpoint's config, and the run is the same bytes on 1
// and 3 workers and resumed after kills.
func TestOptimizerOptionRuns(t *testing.T) {
	for _, c := range []struct {
		key   string
		gens  int
		set   func(*OptimizerConfig, bool)
		on    func(OptimizerConfig) bool
		cuts  [][]int64
		check func(t *testing.T, tu *Tuner, recs, plain []Record)
	}{
		{"lr_adapt", 12, func(o *OptimizerConfig, v bool) { o.LRAdapt = v }, func(o OptimizerConfig) bool { return o.LRAdapt },
			[][]int64{{9}, {41}, {60, 23}}, checkLearningRates},
		{"mirrored", 8, func(o *OptimizerConfig, v bool) { o.Mirrored = v }, func(o OptimizerConfig) bool { return o.Mirrored },
			[][]int64{{7}, {29}, {40, 13}}, checkMirrored},
	} {
		t.Run(c.key, func(t *testing.T) {
			config := func(on bool) *Config {
				cfg := smallConfig(t)
				cfg.Generations = c.gens
				c.set(&cfg.Optimizer, on)
				return cfg
			}
			dir, recs, _ := runBest(t, config(true))
			_, plain, _ := runBest(t, config(false))
			if slices.EqualFunc(recs, plain, func(a, b Record) bool { return slices.Equal(a.Weights.Values, b.Weights.Values) }) {
				t.Errorf("every mean is plain CMA-ES's: %s did not reach the optimizer", c.key)
			}
			tu, _, _, err := LoadCheckpoint(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !c.on(tu.Config().Optimizer) {
				t.Errorf("%s lost in the checkpoint's config", c.key)
			}
			c.check(t, tu, recs, plain)
			if diff := runOn(t, config(true), 3).equal(runOn(t, config(true), 1)); diff != "" {
				t.Errorf("3 workers differ from 1 in %s", diff)
			}
			checkResumeExact(t, func() *Config { return config(true) }, c.cuts)
		})
	}
}

// checkLearningRates: under lr_adapt every history line has both learning
// rates, below 1 from the first update on (its estimate starts from
// nothing); without it none has.
func checkLearningRates(t *testing.T, _ *Tuner, recs, plain []Record) {
	for i, r := range recs {
		if lr := r.LearningRates; lr == nil || !(lr.Mean > 0 && lr.Mean < 1 && lr.Covariance > 0 && lr.Covariance < 1) {
			t.Errorf("generation %d: learning rates %+v in the history, want both in (0, 1)", r.Generation, lr)
		}
		if plain[i].LearningRates != nil {
			t.Errorf("generation %d: learning rates in the history of a run without lr_adapt", r.Generation)
		}
	}
}

// checkMirrored: the optimizer the run restores from its checkpoint asks
// for pairs mirrored through its mean. (Generation 1 alone can agree with
// plain CMA-ES by chance: with λ 4, the pair winners are plain CMA-ES's
// first two samples when those two rank first, as this seed's do.)
func checkMirrored(t *testing.T, tu *Tuner, _, _ []Record) {
	xs, m := tu.opt.Ask(), tu.opt.Mean()
	if len(xs) != 4 {
		t.Fatalf("%d candidates, want 4", len(xs))
	}
	for k := 0; k < len(xs); k += 2 {
		for j := range m {
			if d := xs[k][j] + xs[k+1][j] - 2*m[j]; math.Abs(d) > 1e-9*math.Max(1, math.Abs(m[j])) || xs[k][j] == xs[k+1][j] {
				t.Errorf("candidates %d and %d, coordinate %d: %v and %v are not mirrored through the mean %v", k, k+1, j, xs[k][j], xs[k+1][j], m[j])
			}
		}
	}
}
