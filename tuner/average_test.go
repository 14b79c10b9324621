package tuner

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// averagingConfig is noisyConfig with validation.average, over two stages
// so that a stage's start clears the means it averages.
func averagingConfig(t *testing.T) *Config {
	t.Helper()
	return parseResolved(t, `
name: averaging
seed: 7
generations: 7
sigma: 1
optimizer: {population: 8}
search: {depth: 1}
fitness: {games: 12}
validation: {every: 2, games: 4, average: 3}
noise: {block: 4, games: [8, 24]}
checkpoints: {keep: 2}
stages:
  - {generations: 4}
  - {search: {depth: 2}}
`)
}

// TestAverageOfMeans checks each validation of a run with
// validation.average against the history's own record of the means: the
// weights measured are the average of the stage's last means, written in
// the validation, and the run's export is the last of them.
func TestAverageOfMeans(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	r, err := Create(averagingConfig(t), dir, Options{Pool: NewLocalPool(2)})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, r)

	type line struct {
		Generation int                `json:"generation"`
		Stage      int                `json:"stage"`
		StageEnd   string             `json:"stage_end"`
		Weights    map[string]float64 `json:"weights"`
		Validation *struct {
			Weights  map[string]float64 `json:"weights"`
			Averaged int                `json:"averaged"`
		} `json:"validation"`
	}
	f, err := os.Open(filepath.Join(dir, HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stageMeans []map[string]float64
	stage, validations := 0, 0
	var last map[string]float64
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		if l.Stage != stage {
			stage, stageMeans = l.Stage, nil
		}
		stageMeans = append(stageMeans, l.Weights)
		if l.Validation == nil {
			continue
		}
		validations++
		window := stageMeans[max(0, len(stageMeans)-3):]
		if l.Validation.Averaged != len(window) {
			t.Errorf("generation %d: averaged %d means, want %d", l.Generation, l.Validation.Averaged, len(window))
		}
		for name := range l.Weights {
			var sum float64
			for _, m := range window {
				sum += m[name]
			}
			want := sum / float64(len(window))
			// The history writes the shortest decimal of each value,
			// so the average of the written means may differ in the
			// last bit from the average the tuner took.
			if got := l.Validation.Weights[name]; !near(got, want) {
				t.Errorf("generation %d: %s validated at %v, the average of the stage's last %d means is %v", l.Generation, name, got, len(window), want)
			}
		}
		last = l.Validation.Weights
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if validations < 4 || stage != 2 {
		t.Fatalf("%d validations, last stage %d: the run is too short to test anything", validations, stage)
	}
	data, err := os.ReadFile(filepath.Join(dir, WeightsFile))
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range last {
		if !strings.Contains(string(data), name+": "+formatFloat(v)) {
			t.Errorf("weights.yaml lacks %s: %s, the last validation's:\n%s", name, formatFloat(v), data)
		}
	}
}

func near(a, b float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d <= 1e-12*max(1, abs(a), abs(b))
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestAverageResume: a run with validation.average writes the same bytes
// resumed after kill points in either stage, with any number of workers.
func TestAverageResume(t *testing.T) {
	ref := filepath.Join(t.TempDir(), "ref")
	r, err := Create(averagingConfig(t), ref, Options{Pool: NewLocalPool(1)})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, r)
	want := readRun(t, ref)
	for _, cuts := range [][]int64{{60}, {150}, {150, 90}} {
		got := resumeAfterCuts(t, averagingConfig(t), cuts, func(last bool) Options {
			return Options{Pool: NewLocalPool(3)}
		})
		if diff := got.equal(want); diff != "" {
			t.Errorf("cuts %v: resumed run differs from the uninterrupted one in %s", cuts, diff)
		}
	}
}
