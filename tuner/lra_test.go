package tuner

import (
	"slices"
	"testing"
)

// lraConfig is smallConfig with learning rate adaptation, long enough for
// the learning rates to move.
func lraConfig(t *testing.T) *Config {
	t.Helper()
	cfg := smallConfig(t)
	cfg.Generations = 12
	cfg.Optimizer.LRAdapt = true
	return cfg
}

// TestLRARun checks optimizer.lr_adapt end to end: it changes the run
// (from the first update on), survives the checkpoint's config, and the
// run is the same bytes on 1 and 3 workers and resumed after kills.
func TestLRARun(t *testing.T) {
	dir, recs, _ := runBest(t, lraConfig(t))
	plain := lraConfig(t)
	plain.Optimizer.LRAdapt = false
	_, base, _ := runBest(t, plain)
	if slices.Equal(recs[0].Weights.Values, base[0].Weights.Values) {
		t.Error("generation 1's mean is plain CMA-ES's: lr_adapt did not reach the optimizer")
	}
	for i, r := range recs {
		if lr := r.LearningRates; lr == nil || !(lr.Mean > 0 && lr.Mean < 1 && lr.Covariance > 0 && lr.Covariance < 1) {
			t.Errorf("generation %d: learning rates %+v in the history, want both in (0, 1)", r.Generation, lr)
		}
		if base[i].LearningRates != nil {
			t.Errorf("generation %d: learning rates in the history of a run without lr_adapt", r.Generation)
		}
	}
	tu, _, _, err := LoadCheckpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !tu.Config().Optimizer.LRAdapt {
		t.Error("lr_adapt lost in the checkpoint's config")
	}

	if diff := runOn(t, lraConfig(t), 3).equal(runOn(t, lraConfig(t), 1)); diff != "" {
		t.Errorf("3 workers differ from 1 in %s", diff)
	}
	checkResumeExact(t, func() *Config { return lraConfig(t) }, [][]int64{{9}, {41}, {60, 23}})
}
