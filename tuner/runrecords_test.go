package tuner

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
