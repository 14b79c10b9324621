package tuner

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// bestConfig is smallConfig validating every generation on few games, so
// that the validated means' figures swing and the best is not the last.
func bestConfig(t *testing.T, recommend string) *Config {
	t.Helper()
	cfg := smallConfig(t)
	cfg.Generations = 8
	cfg.Validation.Every = 1
	cfg.Validation.Recommend = recommend
	return cfg
}

// runBest runs cfg to its end in a fresh directory and returns the
// directory, its history (each line's weights in feature order) and the
// final state.
func runBest(t *testing.T, cfg *Config) (string, []Record, State) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	r, err := Create(cfg, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, r)
	tu, _, _, err := LoadCheckpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	recs := historyRecords(t, dir)
	f, err := os.Open(filepath.Join(dir, HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for i := 0; sc.Scan(); i++ {
		var line struct{ Weights map[string]float64 }
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		recs[i].Weights = WeightMap{Names: tu.Names()}
		for _, n := range tu.Names() {
			recs[i].Weights.Values = append(recs[i].Weights.Values, line.Weights[n])
		}
	}
	return dir, recs, tu.State()
}

// TestRecommendBest checks the best rule against the history: after each
// validation the recommended generation is the one with the highest
// validated fitness so far (the later of equals), the run's end
// recommends and exports it, and the tuning is the last rule's game for
// game.
func TestRecommendBest(t *testing.T) {
	_, recs, st := runBest(t, bestConfig(t, RecommendBest))
	best, bestFit := 0, 0.0
	for _, r := range recs {
		v := r.Validation
		if v == nil {
			t.Fatalf("generation %d: no validation, want one every generation", r.Generation)
		}
		if best == 0 || v.Fitness >= bestFit {
			best, bestFit = r.Generation, v.Fitness
		}
		if v.Recommended != best {
			t.Errorf("generation %d: history recommends generation %d, want %d (fitness %v)", r.Generation, v.Recommended, best, bestFit)
		}
	}
	if best == recs[len(recs)-1].Generation {
		t.Fatalf("the best validation is the last one (generation %d): the config no longer tests the rule", best)
	}
	rec := st.Recommended()
	if rec == nil || rec.Generation != best || rec.Fitness != bestFit {
		t.Fatalf("recommended %+v, want generation %d with fitness %v", rec, best, bestFit)
	}
	if i := slices.IndexFunc(recs, func(r Record) bool { return r.Generation == best }); !slices.Equal(recs[i].Weights.Values, rec.Weights) {
		t.Errorf("recommended weights %v, want generation %d's mean %v", rec.Weights, best, recs[i].Weights.Values)
	}
	if st.Validated.Generation != recs[len(recs)-1].Generation {
		t.Errorf("latest validation is generation %d, want %d", st.Validated.Generation, recs[len(recs)-1].Generation)
	}

	// The key survives the config's round trip through the checkpoint.
	data, err := MarshalConfig(bestConfig(t, RecommendBest))
	if err != nil {
		t.Fatal(err)
	}
	if back := parseResolved(t, string(data)); back.Validation.Recommend != RecommendBest {
		t.Errorf("validation.recommend reads back as %q from\n%s", back.Validation.Recommend, data)
	}

	// The rule picks among the same validations; it changes no game.
	_, lastRecs, lastSt := runBest(t, bestConfig(t, RecommendLast))
	if lastSt.Best != nil || lastSt.Recommended() != lastSt.Validated {
		t.Errorf("recommend: last keeps a best validation or recommends another than the latest")
	}
	if len(lastRecs) != len(recs) {
		t.Fatalf("%d generations with last, %d with best", len(lastRecs), len(recs))
	}
	for i := range recs {
		a, b := recs[i], lastRecs[i]
		if b.Validation.Recommended != 0 {
			t.Errorf("recommend: last writes recommended %d in generation %d", b.Validation.Recommended, b.Generation)
		}
		if a.Games != b.Games || a.Best != b.Best || !slices.Equal(a.Weights.Values, b.Weights.Values) || a.Validation.Fitness != b.Validation.Fitness {
			t.Errorf("generation %d differs between the rules: %+v and %+v", a.Generation, a, b)
		}
	}
}

// TestRecommendBestExport checks that the weights file is the best
// validation's, with its generation and figure as provenance.
func TestRecommendBestExport(t *testing.T) {
	dir, _, st := runBest(t, bestConfig(t, RecommendBest))
	tu, _, _, err := LoadCheckpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	wf, err := tu.WeightsFile()
	if err != nil {
		t.Fatal(err)
	}
	b := st.Best
	if wf.Provenance.Generation != b.Generation || wf.Provenance.Fitness.Mean != b.Fitness {
		t.Errorf("weights file from generation %d (%v), want the best validation's, %d (%v)", wf.Provenance.Generation, wf.Provenance.Fitness.Mean, b.Generation, b.Fitness)
	}
}

// TestRecommendBestResume checks that a run under the best rule, killed
// anywhere and resumed, ends with the bytes of the uninterrupted run.
func TestRecommendBestResume(t *testing.T) {
	checkResumeExact(t, func() *Config { return bestConfig(t, RecommendBest) }, [][]int64{{3}, {17}, {30, 11}})
}

// checkResumeExact runs the config cfg returns to its end, then again
// killed after each list of game counts in cuts and resumed, and checks
// that every resumed run ends with the uninterrupted run's bytes.
func checkResumeExact(t *testing.T, cfg func() *Config, cuts [][]int64) {
	t.Helper()
	ref := filepath.Join(t.TempDir(), "ref")
	r, err := Create(cfg(), ref, Options{})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, r)
	want := readRun(t, ref)
	for _, c := range cuts {
		if diff := resumeAfterCuts(t, cfg(), c, nil).equal(want); diff != "" {
			t.Errorf("cuts %v: resumed run differs from the uninterrupted one in %s", c, diff)
		}
	}
}

// TestRecommendBestStages checks the rule across a ladder: the next stage
// starts from the stage's best validated mean, and when the validation
// search changes, the earlier stage's figures no longer count.
func TestRecommendBestStages(t *testing.T) {
	yml := strings.Replace(ladderYAML, "validation: {every: 2, games: 4}", "validation: {every: 1, games: 4, recommend: best}", 1)
	for _, seed := range []string{"seed: 3", "seed: 4", "seed: 9"} {
		cfg := parseResolved(t, strings.Replace(yml, "seed: 3", seed, 1))
		_, recs, st := runBest(t, cfg)
		// Stage 1 is generations 1-3; its best (the later of equals).
		b1 := 0
		for i := 0; i < 3; i++ {
			if b1 == 0 || recs[i].Validation.Fitness >= recs[b1-1].Validation.Fitness {
				b1 = i + 1
			}
		}
		if !slices.Equal(st.StageStart, recs[b1-1].Weights.Values) {
			t.Errorf("%s: stage 2 started from %v, want stage 1's best, generation %d: %v", seed, st.StageStart, b1, recs[b1-1].Weights.Values)
		}
		// Stage 2 validates at 2 plies: only its own validations compete.
		b2 := 0
		for i := 3; i < len(recs); i++ {
			if b2 == 0 || recs[i].Validation.Fitness >= recs[b2-1].Validation.Fitness {
				b2 = i + 1
			}
			if recs[i].Validation.Recommended != b2 {
				t.Errorf("%s: generation %d recommends %d, want %d", seed, i+1, recs[i].Validation.Recommended, b2)
			}
		}
		if st.Best == nil || st.Best.Generation != b2 || st.Best.Stage != 1 {
			t.Errorf("%s: best at the end %+v, want generation %d of stage 2", seed, st.Best, b2)
		}
	}
}

// patienceStop returns the generation where a run with patience p stops,
// computed from the history of the same run without it: the first
// validation that leaves p validations in a row without a better one (the
// later of equals is better), or 0.
func patienceStop(recs []Record, p int) int {
	best, stale := 0.0, -1
	for _, r := range recs {
		switch v := r.Validation; {
		case v == nil:
		case stale < 0 || v.Fitness >= best:
			best, stale = v.Fitness, 0
		default:
			stale++
			if stale == p {
				return r.Generation
			}
		}
	}
	return 0
}

// TestPatience checks that a run with validation.patience stops at the
// validation that spends it, with the games of the run without it up to
// there, and stays stopped when resumed with a higher limit.
func TestPatience(t *testing.T) {
	long := bestConfig(t, RecommendBest)
	long.Generations = 30
	_, full, _ := runBest(t, long)
	stops := 0
	for _, p := range []int{1, 2, 3} {
		want := patienceStop(full, p)
		cfg := bestConfig(t, RecommendBest)
		cfg.Generations, cfg.Validation.Patience = 30, p
		dir, recs, st := runBest(t, cfg)
		if want == 0 {
			if len(recs) != 30 {
				t.Errorf("patience %d: stopped after %d generations, want 30 (never spent)", p, len(recs))
			}
			continue
		}
		stops++
		last := recs[len(recs)-1]
		if last.Generation != want || !strings.HasPrefix(last.Stop, "patience: ") || st.Finished != last.Stop {
			t.Errorf("patience %d: stopped after generation %d (%q), want %d on patience", p, last.Generation, last.Stop, want)
		}
		for i, r := range recs {
			if r.Games != full[i].Games || !slices.Equal(r.Weights.Values, full[i].Weights.Values) {
				t.Errorf("patience %d: generation %d differs from the run without patience", p, r.Generation)
			}
		}
		if st.Best.Generation != full[want-1].Validation.Recommended {
			t.Errorf("patience %d: recommends generation %d, want %d", p, st.Best.Generation, full[want-1].Validation.Recommended)
		}
		tu, _, _, err := LoadCheckpoint(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !tu.Converged() {
			t.Errorf("patience %d: a run that stopped on its patience does not say it converged", p)
		}
		tu.cfg.Generations = 60
		if tu.Reopen() {
			t.Errorf("patience %d: a run that stopped on its patience reopens with a higher limit", p)
		}
	}
	if stops == 0 {
		t.Fatal("no patience was spent in 30 generations: the config no longer tests it")
	}

	// Killed anywhere and resumed, it ends with the same bytes.
	checkResumeExact(t, func() *Config {
		cfg := bestConfig(t, RecommendBest)
		cfg.Generations, cfg.Validation.Patience = 30, 2
		return cfg
	}, [][]int64{{13}, {41, 7}})
}

// TestPatienceEndsAStage checks that patience spent in a stage that is
// not the last begins the next one, with its patience whole.
func TestPatienceEndsAStage(t *testing.T) {
	yml := strings.Replace(ladderYAML, "validation: {every: 2, games: 4}", "validation: {every: 1, games: 4, recommend: best, patience: 1}", 1)
	yml = strings.Replace(yml, "generations: 3\n", "generations: 8\n", 1)
	yml = strings.Replace(yml, "generations: 9\n", "generations: 20\n", 1)
	ended := 0
	for _, seed := range []string{"seed: 3", "seed: 4", "seed: 9"} {
		cfg := parseResolved(t, strings.Replace(yml, "seed: 3", seed, 1))
		_, recs, _ := runBest(t, cfg)
		want := patienceStop(recs, 1)
		for _, r := range recs {
			if r.Stage != 1 {
				break
			}
			if r.StageEnd != "" {
				if strings.HasPrefix(r.StageEnd, "patience: ") {
					ended++
				}
				if r.Generation != want {
					t.Errorf("%s: stage 1 ended after generation %d (%q), want %d", seed, r.Generation, r.StageEnd, want)
				}
			}
		}
		if stop := recs[len(recs)-1].Stop; stop != "generations: 20 done" && !strings.HasPrefix(stop, "last stage 2: patience: ") {
			t.Errorf("%s: the run stopped for %q, want its limit or the last stage's patience", seed, stop)
		}
		// Stage 2's first validation is recommended whatever its figure
		// (another search), so its patience starts whole.
		for i, r := range recs {
			if i > 0 && recs[i-1].Stage == 1 && r.Stage == 2 && r.Stop != "" {
				t.Errorf("%s: stage 2 stopped at its first generation: %q", seed, r.Stop)
			}
		}
	}
	if ended == 0 {
		t.Fatal("no stage ended on its patience: the config no longer tests it")
	}
}

// TestConverged checks which finished runs say they converged: one whose
// optimizer stopped (a step size below CMA-ES's TolX from the start) does,
// and stays closed under a higher limit; one that spent its generations
// does not, and reopens.
func TestConverged(t *testing.T) {
	for _, tc := range []struct {
		name      string
		sigma     float64
		converged bool
	}{
		{"optimizer stop", 1e-12, true},
		{"generations spent", 0, false},
	} {
		cfg := smallConfig(t)
		cfg.Generations = 3
		if tc.sigma != 0 {
			cfg.Sigma = tc.sigma
		}
		dir, recs, st := runBest(t, cfg)
		if st.Finished == "" {
			t.Fatalf("%s: the run did not finish", tc.name)
		}
		if got := strings.HasPrefix(recs[len(recs)-1].Stop, "optimizer: "); got != tc.converged {
			t.Fatalf("%s: stopped with %q: the config no longer tests this case", tc.name, recs[len(recs)-1].Stop)
		}
		tu, _, _, err := LoadCheckpoint(dir)
		if err != nil {
			t.Fatal(err)
		}
		if tu.Converged() != tc.converged {
			t.Errorf("%s: Converged() = %v after %q, want %v", tc.name, tu.Converged(), st.Finished, tc.converged)
		}
		tu.cfg.Generations = 10
		if open := tu.Reopen(); open == tc.converged {
			t.Errorf("%s: Reopen() = %v under a higher limit, want %v", tc.name, open, !tc.converged)
		}
		if !tc.converged && tu.Converged() {
			t.Errorf("%s: a reopened run says it converged", tc.name)
		}
	}
}
