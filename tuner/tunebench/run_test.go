package tunebench

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/evotune/evotune/engine"
)

func TestProblemsAreValid(t *testing.T) {
	if len(Problems()) < 4 {
		t.Fatalf("%d problems, want at least 4", len(Problems()))
	}
	for _, p := range Problems() {
		b := &bench{p: p}
		cfg, err := b.config(1)
		if err != nil {
			t.Errorf("%s: %v", p.Name, err)
			continue
		}
		if cfg.Name != p.Name {
			t.Errorf("%s: config named %q", p.Name, cfg.Name)
		}
		if !(p.Target > 1) || p.HeldOut < 200 || p.Budget < time.Minute || p.Summary == "" {
			t.Errorf("%s: target %v, %d held-out games, budget %v, summary %q", p.Name, p.Target, p.HeldOut, p.Budget, p.Summary)
		}
		if q, err := Lookup(p.Name); err != nil || !reflect.DeepEqual(q, p) {
			t.Errorf("Lookup(%q) = %v, %v", p.Name, q, err)
		}
	}
	if _, err := Lookup("nope"); err == nil {
		t.Error("Lookup of no problem succeeded")
	}
}

// withoutCPU returns r's points with their CPU time zeroed: all that may
// differ between two runs of the same seed.
func withoutCPU(r Run) []Point {
	ps := append([]Point(nil), r.Points...)
	for i := range ps {
		ps[i].CPU = 0
	}
	return ps
}

func TestShortRunsAreDeterministic(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"standard-3", "nneonneo-cap1"} {
		p, _ := Lookup(name)
		p.Target = 1.01 // reached in some runs, so that "games to target" is tested
		var runs [][]Run
		for _, workers := range []int{1, 2} {
			r, err := RunProblem(ctx, p, Options{Short: true, Seeds: []uint64{1, 2, 3}, Workers: workers, Full: true})
			if err != nil {
				t.Fatal(err)
			}
			runs = append(runs, r.Runs)
		}
		for i, run := range runs[0] {
			if len(run.Points) < 2 || run.Stop == "" || run.Final.Generation != 2 {
				t.Errorf("%s seed %d: %d points, stop %q, final %+v; want 2 or more, a reason and generation 2", name, run.Seed, len(run.Points), run.Stop, run.Final)
			}
			for _, other := range runs[1:] {
				a, b := withoutCPU(run), withoutCPU(other[i])
				if len(a) != len(b) {
					t.Fatalf("%s seed %d: %d points, then %d", name, run.Seed, len(a), len(b))
				}
				for k := range a {
					if !reflect.DeepEqual(a[k], b[k]) {
						t.Errorf("%s seed %d point %d: %+v, then %+v", name, run.Seed, k, a[k], b[k])
					}
				}
				if (run.Reached == nil) != (other[i].Reached == nil) ||
					run.Reached != nil && run.Reached.Games != other[i].Reached.Games {
					t.Errorf("%s seed %d: reached %+v, then %+v", name, run.Seed, run.Reached, other[i].Reached)
				}
			}
		}
	}
}

func TestShortBenchRunsEveryProblem(t *testing.T) {
	res, err := Bench(context.Background(), Problems(), nil, Options{Short: true, Seeds: []uint64{1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(Problems()) {
		t.Fatalf("%d results for %d problems", len(res), len(Problems()))
	}
	for _, r := range res {
		if len(r.Runs) != 1 || r.HeldOut != 4 || !(r.Start > 0) {
			t.Errorf("%s: %d runs, %d held-out games, start %v", r.Problem, len(r.Runs), r.HeldOut, r.Start)
			continue
		}
		run := r.Runs[0]
		if len(run.Points) == 0 || !reflect.DeepEqual(run.Final, run.Points[len(run.Points)-1]) || !(run.Final.Ratio > 0) {
			t.Errorf("%s: final %+v of %d points", r.Problem, run.Final, len(run.Points))
		}
		if run.Reached != nil && run.Stop != "target" {
			t.Errorf("%s: reached, but stopped for %q", r.Problem, run.Stop)
		}
	}
}

func TestBudgetStopsARun(t *testing.T) {
	p, _ := Lookup("standard-3")
	p.Target = math.Inf(1)
	r, err := RunProblem(context.Background(), p, Options{Short: true, Seeds: []uint64{1}, Budget: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	run := r.Runs[0]
	// Validating the start spends the budget: the run ends where it began,
	// its mean validated at generation 0.
	if run.Stop != "budget" || run.Reached != nil || len(run.Points) != 1 || run.Final.Generation != 0 || run.Final.Ratio != 1 {
		t.Errorf("stop %q, reached %v, points %+v: want the start, then budget", run.Stop, run.Reached, run.Points)
	}
	if r.MedianCPU != nil || r.Reached != 0 {
		t.Errorf("median CPU %v, reached %d of a run that never reached", r.MedianCPU, r.Reached)
	}
}

func TestMedians(t *testing.T) {
	pt := func(cpu float64, games int64, ratio float64) *Point {
		return &Point{CPU: cpu, Games: games, Ratio: ratio}
	}
	r := Result{Runs: []Run{
		{Reached: pt(10, 100, 1.6), Final: *pt(10, 100, 1.6)},
		{Final: *pt(50, 900, 1.2)},
		{Reached: pt(30, 300, 1.5), Final: *pt(30, 300, 1.5)},
	}}
	r.summarize()
	if r.Reached != 2 || r.MedianCPU == nil || *r.MedianCPU != 30 || *r.MedianGames != 300 || r.MedianFinal != 1.5 {
		t.Errorf("reached %d, median CPU %v, games %v, final %v; want 2, 30, 300, 1.5", r.Reached, r.MedianCPU, r.MedianGames, r.MedianFinal)
	}
	r.Runs[2].Reached = nil
	r.Reached = 0
	r.summarize()
	if r.MedianCPU != nil || r.MedianGames != nil {
		t.Errorf("median of one run reached out of three: %v, %v; want none", r.MedianCPU, r.MedianGames)
	}
}

// ladder is the nneonneo-cap2 problem's start tuned at cap 1 before cap 2.
const ladder = `name: ladder
features: nneonneo
init: {offset: 200000, empty: 270, merges: 700, monotonicity: 47, sum: 11, monotonicity_power: 4, sum_power: 3.5}
optimizer: {method: cmaes, population: 8}
search: {algorithm: nneonneo, depth: 5}
fitness: {games: 40}
validation: {games: 200}
stages:
  - {name: cap1, search: {depth: 3}, generations: 20}
  - {name: cap2}
`

func TestHeldOutSearchIsTheLastStages(t *testing.T) {
	p, _ := Lookup("nneonneo-cap2")
	p.Text, p.File = []byte(ladder), "ladder.yaml"
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	cfg, err := (&bench{p: p}).config(1)
	if err != nil {
		t.Fatal(err)
	}
	if got := heldOutSearch(cfg); got.Depth != 5 {
		t.Errorf("held-out search %v, want the last stage's, at depth 5", got)
	}
	if first := cfg.StageValidationSearch(0); first.Depth != 3 {
		t.Errorf("first stage validates at %v, want depth 3", first)
	}

	r, err := RunProblem(context.Background(), p, Options{Short: true, Seeds: []uint64{1}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Config != "ladder.yaml" || len(r.Runs[0].Points) < 2 {
		t.Fatalf("config %q, %d points; want ladder.yaml and a point in each stage", r.Config, len(r.Runs[0].Points))
	}
}

func TestProblemConfigErrors(t *testing.T) {
	p, _ := Lookup("standard-3")
	for _, tc := range []struct{ text, want string }{
		{"features: standard\ngenerations: 3\n", "x.yaml:2: generations: the benchmark ends a run"},
		{"features: standard\nduration: 1m\n", "x.yaml:2: duration: the benchmark ends a run"},
		{"features: standard\nstages:\n  - {generations: 2}\n  - {duration: 1m}\n", "x.yaml:4: stages.2.duration: a stage of a problem ends by its generations"},
		{"features: standard\nsigma: 0\n", "x.yaml:2: sigma"},
		{"features: classic\n", "x.yaml:1: features: classic: problem standard-3 tunes standard"},
		{"features: standard\ninit: {empty: 1}\n", "x.yaml:2: init: problem standard-3 starts from"},
		{"features: standard\nsearch: {depth: 5}\n", "x.yaml:2: search: expectimax"},
	} {
		p.Text, p.File = []byte(tc.text), "x.yaml"
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.text, err, tc.want)
		}
	}
}

// TestFinalRacePoints checks the points of a run that ends with its final
// race against the same run without one (validation.select: 0), whose
// tuning is the same game for game: every point before the end judges the
// average of the last means, the same in both; the end judges the race's
// winner, which is the other run's end where the average won, the start,
// named and judged as the start, or the latest mean.
func TestFinalRacePoints(t *testing.T) {
	ctx := context.Background()
	p, _ := Lookup("standard-3")
	p.Target = math.Inf(1)
	text, err := problemFiles.ReadFile(p.File)
	if err != nil {
		t.Fatal(err)
	}
	seeds := []uint64{1, 2, 3, 4, 5, 6}
	runs := map[string][]Run{}
	for rule, validation := range map[string]string{"race": "validation: {games: 200}", "none": "validation: {games: 200, select: 0}"} {
		q := p
		q.Text = []byte(strings.Replace(string(text), "validation: {games: 200}", validation, 1))
		if string(q.Text) == string(text) && rule == "none" {
			t.Fatal("the problem's config no longer says validation: {games: 200}, which the test replaces")
		}
		r, err := RunProblem(ctx, q, Options{Short: true, Seeds: seeds, Full: true})
		if err != nil {
			t.Fatal(err)
		}
		runs[rule] = r.Runs
	}
	earlier, latest := 0, 0
	for i, raced := range runs["race"] {
		plain := withoutCPU(runs["none"][i])
		got := withoutCPU(raced)
		byGen := map[int]Point{}
		for _, pt := range plain {
			byGen[pt.Generation] = pt
		}
		for k, pt := range got[:len(got)-1] {
			if !reflect.DeepEqual(pt, plain[k]) {
				t.Errorf("seed %d point %d: %+v, want the run without a race's %+v", raced.Seed, k, pt, plain[k])
			}
		}
		end, want := got[len(got)-1], plain[len(plain)-1]
		if end.Recommended != nil {
			earlier++
			if *end.Recommended != 0 {
				t.Errorf("seed %d: the end recommends generation %d, want the last generation's or the start", raced.Seed, *end.Recommended)
			}
			want.Ratio, want.RatioCI95 = 1, [2]float64{1, 1}
			want.Mean = end.Mean // the start's, on the held-out games
		} else if end.Mean != want.Mean {
			// The latest mean, not the average, won: another point.
			latest++
			continue
		}
		want.Recommended = end.Recommended
		want.Games = end.Games // the race's games
		if !reflect.DeepEqual(end, want) {
			t.Errorf("seed %d end: %+v, want %+v", raced.Seed, end, want)
		}
	}
	t.Logf("%d of %d races chose the start, %d the latest mean", earlier, len(seeds), latest)
}

// TestGrid checks the judge's grid: a step that passes several lines
// gives each a point on the same weights, measured once; the end adds a
// point only where the run moved on; the target is met at the first point
// over it.
func TestGrid(t *testing.T) {
	b := &bench{p: Problem{Name: "x", Target: 1.5}, grid: 1000, start: []engine.Result{{Score: 100}, {Score: 200}}}
	start, w, better := []float64{1}, []float64{2}, []float64{3}
	j := newJudge(b, nil, 1, start)
	// Weights already judged are not played again (a nil tuner would fail).
	j.figures[weightsKey(w)] = figures{150, 1.2, [2]float64{1.1, 1.3}}
	j.figures[weightsKey(better)] = figures{250, 1.6, [2]float64{1.5, 1.7}}
	ctx := context.Background()
	if j.crossed(999) || !j.crossed(1000) {
		t.Fatal("the first line is at 1,000 games")
	}
	if err := j.grid(ctx, Point{Games: 1200, Generation: 3}, start); err != nil {
		t.Fatal(err)
	}
	if err := j.grid(ctx, Point{Games: 3500, Generation: 9}, w); err != nil {
		t.Fatal(err)
	}
	if j.crossed(3999) || !j.crossed(4000) {
		t.Errorf("after 3,500 games the next line is at 4,000")
	}
	if err := j.end(ctx, Point{Games: 3500, Generation: 9}, w); err != nil {
		t.Fatal(err)
	}
	if err := j.end(ctx, Point{Games: 3700, Generation: 10}, better); err != nil {
		t.Fatal(err)
	}
	run, err := j.done("budget")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range run.Points {
		got = append(got, fmt.Sprintf("%d@%d:%.1f", p.Grid, p.Games, p.Ratio))
	}
	if want := "1000@1200:1.0 2000@3500:1.2 3000@3500:1.2 0@3700:1.6"; strings.Join(got, " ") != want {
		t.Errorf("points %s, want %s", strings.Join(got, " "), want)
	}
	if run.Reached == nil || run.Reached.Games != 3700 || run.Final.Ratio != 1.6 || run.Max.Ratio != 1.6 || run.Drop != 0 {
		t.Errorf("reached %+v, final %+v, best %+v, drop %v", run.Reached, run.Final, run.Max, run.Drop)
	}
}

// TestTunerBudgetGames checks that a budget in games stops the tuner at
// the last generation that fits, the same every time and with any number
// of workers. In short mode a generation of nneonneo-cap1 plays 16 games
// after the start's 4, and the second, which ends the run, its final race
// of three entrants (12 games) and the validation (4) too: 40 games hold
// one and the race after it (at most 12), not two.
func TestTunerBudgetGames(t *testing.T) {
	ctx := context.Background()
	p, _ := Lookup("nneonneo-cap1")
	var first []Run
	for _, workers := range []int{1, 2} {
		r, err := RunProblem(ctx, p, Options{Short: true, Seeds: []uint64{1, 2}, Workers: workers, BudgetGames: 40})
		if err != nil {
			t.Fatal(err)
		}
		for i, run := range r.Runs {
			if run.Stop != "budget" || run.Final.Games > 40 || run.Final.Generation != 1 {
				t.Errorf("seed %d: stop %q, final %+v; want the budget, generation 1, at most 40 games", run.Seed, run.Stop, run.Final)
			}
			if first != nil && !reflect.DeepEqual(withoutCPU(run), withoutCPU(first[i])) {
				t.Errorf("seed %d: %+v, then %+v", run.Seed, withoutCPU(first[i]), withoutCPU(run))
			}
		}
		first = r.Runs
	}
}
