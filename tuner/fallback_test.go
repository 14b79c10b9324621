package tuner

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evotune/evotune/engine/stats"
)

// fallbackConfig is bestConfig (every generation validated on few games)
// under the default recommend rule, for ten generations, with the guard at
// level. At the loosest level, 0.5, the paired test's critical value is 0:
// the run falls back whenever a validated mean's games score below the
// anchor's, which few games make frequent.
func fallbackConfig(t *testing.T, level float64) *Config {
	t.Helper()
	cfg := bestConfig(t, "")
	cfg.Generations = 10
	cfg.Validation.Fallback = level
	return cfg
}

// TestFallback checks the guard step by step against a twin that keeps
// the anchor by hand: at level 0.5 a validation falls back exactly when
// its mean score is below the best validated one's. After a fallback the
// optimizer's mean is the anchor's weights, its step size half the one
// before, the anchor is recommended, and the history names it.
func TestFallback(t *testing.T) {
	ctx := context.Background()
	tu, err := New(fallbackConfig(t, 0.5), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := tu.ValidateStart(ctx); err != nil {
		t.Fatal(err)
	}
	var anchor *Validation
	fallbacks := 0
	for tu.Finished() == "" {
		sigma := tu.opt.Sigma()
		rec, err := tu.Step(ctx, func() time.Duration { return 0 })
		if err != nil {
			t.Fatal(err)
		}
		st := tu.State()
		v := st.Validated
		if v == nil || v.Generation != rec.Generation {
			t.Fatalf("generation %d: not validated", rec.Generation)
		}
		if anchor == nil || v.Fitness >= anchor.Fitness {
			anchor = v
			if rec.Validation.Fallback != 0 || st.Fallen != nil || st.Recommended() != v {
				t.Errorf("generation %d, the best so far: fell back to %d, recommends %d", rec.Generation, rec.Validation.Fallback, st.Recommended().Generation)
			}
			continue
		}
		fallbacks++
		if rec.Validation.Fallback != anchor.Generation || rec.Validation.Recommended != anchor.Generation {
			t.Errorf("generation %d (%v, below %v of generation %d): history falls back to %d, recommends %d", rec.Generation, v.Fitness, anchor.Fitness, anchor.Generation, rec.Validation.Fallback, rec.Validation.Recommended)
		}
		if st.Recommended() != anchor || st.Fallen != anchor {
			t.Errorf("generation %d: recommends generation %d, want the anchor %d", rec.Generation, st.Recommended().Generation, anchor.Generation)
		}
		if m := tu.vector(tu.opt.Mean()); !slices.Equal(m, anchor.Weights) {
			t.Errorf("generation %d: optimizer's mean %v after the fallback, want the anchor's %v", rec.Generation, m, anchor.Weights)
		}
		if rec.Stop == "" {
			if got, want := tu.opt.Sigma(), rec.Sigma/2; got != want {
				t.Errorf("generation %d: sigma %v after the fallback, want half of %v (it was %v before the generation)", rec.Generation, got, rec.Sigma, sigma)
			}
		}
		if got := tu.Evaluations(); got != rec.Evaluations {
			t.Errorf("generation %d: %d evaluations after the fallback, want the %d before it", rec.Generation, got, rec.Evaluations)
		}
	}
	if fallbacks < 2 {
		t.Fatalf("%d fallbacks in %d generations: the config no longer tests the guard", fallbacks, tu.State().Generation)
	}
	if got := tu.State().Fallbacks; got != fallbacks {
		t.Errorf("state counts %d fallbacks, want %d", got, fallbacks)
	}
}

// TestFallbackRuns checks the guard end to end: it changes the run, the
// key survives the checkpoint's config, and the run is the same bytes on 1
// and 3 workers and resumed after kills (the restarted optimizer and the
// anchor are in the checkpoint).
func TestFallbackRuns(t *testing.T) {
	_, recs, st := runBest(t, fallbackConfig(t, 0.5))
	_, plain, _ := runBest(t, fallbackConfig(t, 0))
	if st.Fallbacks == 0 {
		t.Fatal("no fallback: the config no longer tests the guard")
	}
	if slices.EqualFunc(recs, plain, func(a, b Record) bool { return slices.Equal(a.Weights.Values, b.Weights.Values) }) {
		t.Error("every mean is the run's without the guard")
	}
	data, err := MarshalConfig(fallbackConfig(t, 0.5))
	if err != nil {
		t.Fatal(err)
	}
	if back := parseResolved(t, string(data)); back.Validation.Fallback != 0.5 {
		t.Errorf("validation.fallback reads back as %v from\n%s", back.Validation.Fallback, data)
	}
	if diff := runOn(t, fallbackConfig(t, 0.5), 3).equal(runOn(t, fallbackConfig(t, 0.5), 1)); diff != "" {
		t.Errorf("3 workers differ from 1 in %s", diff)
	}
	checkResumeExact(t, func() *Config { return fallbackConfig(t, 0.5) }, [][]int64{{5}, {37}, {60, 21}})
}

// TestWorseThan checks the guard's test against the paired t statistic
// written out: mean difference over its standard error.
func TestWorseThan(t *testing.T) {
	m, err := ParseMetric("mean_score")
	if err != nil {
		t.Fatal(err)
	}
	val := func(scores ...int) *Validation {
		return &Validation{Games: len(scores), Scores: scores, MaxTiles: make([]int, len(scores))}
	}
	tstat := func(a, v []int) float64 {
		n := float64(len(a))
		var mean, ss float64
		for j := range a {
			mean += float64(a[j]-v[j]) / n
		}
		for j := range a {
			d := float64(a[j]-v[j]) - mean
			ss += d * d
		}
		return mean / math.Sqrt(ss/(n-1)/n)
	}
	a := val(1000, 1200, 900, 1500, 800, 1100, 1300, 1000)
	for _, c := range []struct {
		name  string
		v     *Validation
		alpha float64
	}{
		{"far below", val(500, 700, 400, 900, 500, 600, 800, 500), 0.01},
		{"a little below", val(1000, 1100, 950, 1400, 800, 1000, 1300, 1050), 0.05},
		{"a little below, loose", val(1000, 1100, 950, 1400, 800, 1000, 1300, 1050), 0.4},
		{"equal", val(1000, 1200, 900, 1500, 800, 1100, 1300, 1000), 0.5},
		{"above", val(1100, 1300, 1000, 1500, 900, 1100, 1300, 1100), 0.05},
	} {
		want := tstat(a.Scores, c.v.Scores) > stats.PairedTCritical(len(a.Scores), c.alpha)
		if got := worseThan(m, 1, c.v, a, c.alpha); got != want {
			t.Errorf("%s at %v: worse %v, want %v (t = %v)", c.name, c.alpha, got, want, tstat(a.Scores, c.v.Scores))
		}
	}
	if !worseThan(m, 1, val(500, 700, 400, 900, 500, 600, 800, 500), a, 0.01) || worseThan(m, 1, a, a, 0.5) {
		t.Error("the cases no longer cover both answers")
	}
	if worseThan(m, 1, &Validation{Games: 8}, a, 0.5) {
		t.Error("a validation without its games falls back")
	}
}

// TestFallbackStages checks the guard across a ladder: a stage whose last
// validation fell back hands the next stage the mean it went back to, and
// the next stage compares with its own validations only.
func TestFallbackStages(t *testing.T) {
	yml := strings.Replace(ladderYAML, "validation: {every: 2, games: 4}", "validation: {every: 1, games: 4, fallback: 0.5}", 1)
	handed := 0
	for _, seed := range []string{"seed: 3", "seed: 4", "seed: 9", "seed: 11"} {
		tu, err := New(parseResolved(t, strings.Replace(yml, "seed: 3", seed, 1)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if err := tu.ValidateStart(ctx); err != nil {
			t.Fatal(err)
		}
		means := map[int][]float64{} // every generation's validated mean
		for tu.Finished() == "" {
			rec, err := tu.Step(ctx, func() time.Duration { return 0 })
			if err != nil {
				t.Fatal(err)
			}
			means[rec.Generation] = rec.Weights.Values
			if rec.StageEnd == "" {
				continue
			}
			st := tu.State()
			want := rec.Weights.Values
			if g := rec.Validation.Fallback; g != 0 {
				handed++
				want = means[g]
			}
			if !slices.Equal(st.StageStart, want) {
				t.Errorf("%s: stage %d starts from %v, want %v (generation %d fell back to %d)", seed, st.Stage+1, st.StageStart, want, rec.Generation, rec.Validation.Fallback)
			}
			if st.Anchor != nil || st.Fallen != nil {
				t.Errorf("%s: stage %d begins with the previous stage's anchor", seed, st.Stage+1)
			}
		}
	}
	if handed == 0 {
		t.Fatal("no stage ended on a fallback: the seeds no longer test the hand-over")
	}
}
