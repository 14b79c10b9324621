package tunebench

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/engine/stats"
	"github.com/evotune/evotune/internal/cputime"
	"github.com/evotune/evotune/tuner"
)

// DefaultSeeds are the run seeds a benchmark uses when Options gives none.
var DefaultSeeds = []uint64{1, 2, 3}

// Options say how a benchmark runs its problems. The zero value runs each
// problem as defined, on run seeds 1, 2 and 3, one worker per core.
type Options struct {
	// Seeds are the run seeds; nil means DefaultSeeds.
	Seeds []uint64
	// Workers is the games played at once, by the tuner and by the held-out
	// measurement; 0 means one per core. It changes CPU figures a little
	// (scheduling), no game.
	Workers int
	// Budget replaces each problem's tuning CPU budget when positive.
	Budget time.Duration
	// Full goes on after the target is met, to the budget (or the tuner's
	// own end), so that the final strength is what a run of that budget
	// ends with; without it a run stops at the validation that meets the
	// target.
	Full bool
	// Short shrinks every problem to a run of seconds: two generations of
	// four candidates on four games cut at 40 moves, four validation and
	// four held-out games. It checks that the benchmark works, not how
	// fast the tuner is.
	Short bool
	// Peer, if not empty, is an optimizer of one's own to run instead of
	// the tuner (RunPeer): the program, then its arguments.
	Peer []string
	// PeerStderr receives the peer's standard error; nil means this
	// process's.
	PeerStderr io.Writer
	// Progress, if not nil, is told about each point as it is measured.
	Progress func(problem string, seed uint64, p Point)
}

// A Point is the recommended weights at one validation of a run, measured
// on the held-out games.
type Point struct {
	// Generation counts the generations completed.
	Generation int `json:"generation"`
	// Recommended is the generation whose mean the recommended weights
	// are, when that is an earlier one (validation.recommend: best); 0
	// (omitted) when it is this one.
	Recommended int `json:"recommended,omitempty"`
	// Games counts the run's games so far, tuning and validation (not the
	// held-out games): the same for the same run seed, every time.
	Games int64 `json:"games"`
	// CPU is the tuning CPU time so far, in seconds: the process's CPU
	// time while the tuner ran, the held-out measurements left out.
	CPU float64 `json:"cpu_s"`
	// Mean is the recommended weights' mean score on the held-out games;
	// Ratio its ratio to the start's, paired by seed, with its 95%
	// interval.
	Mean      float64    `json:"mean"`
	Ratio     float64    `json:"ratio"`
	RatioCI95 [2]float64 `json:"ratio_ci95"`
}

// A Run is one run seed's run of a problem.
type Run struct {
	Seed uint64 `json:"seed"`
	// Reached is the first point that met the target, nil if none did.
	Reached *Point `json:"reached"`
	// Final is the last point: the strength the run ended with.
	Final Point `json:"final"`
	// Stop says why the run ended: "target", "budget", or the tuner's own
	// reason (say, its optimizer converged).
	Stop string `json:"stop"`
	// Points are every validation's, in order.
	Points []Point `json:"points"`
}

// A Result is a problem's runs and their medians.
type Result struct {
	Problem string `json:"problem"`
	// Config names the file the tuner settings came from when they are not
	// the problem's own (Problem.Text); "" for the problem's.
	Config string `json:"config,omitempty"`
	// Peer is the optimizer's command when a peer, not the tuner, ran
	// (RunPeer); a peer's points count its requests, not generations.
	Peer    string  `json:"peer,omitempty"`
	Target  float64 `json:"target"`
	HeldOut int     `json:"held_out_games"`
	// Budget is the tuning CPU budget of a run, in seconds.
	Budget float64 `json:"budget_cpu_s"`
	// Start is the starting weights' mean score on the held-out games.
	Start   float64 `json:"start_mean"`
	Runs    []Run   `json:"runs"`
	Reached int     `json:"reached"`
	// MedianCPU and MedianGames are the medians over the run seeds of the
	// tuning CPU seconds and games to the target, a run that did not reach
	// it counting as infinite: nil when the median run did not reach it.
	MedianCPU   *float64 `json:"median_cpu_s"`
	MedianGames *float64 `json:"median_games"`
	// MedianFinal is the median of the runs' final ratios.
	MedianFinal float64 `json:"median_final_ratio"`
}

// Bench runs each problem on each run seed and returns their results in
// order.
func Bench(ctx context.Context, ps []Problem, o Options) ([]Result, error) {
	var out []Result
	for _, p := range ps {
		run := RunProblem
		if len(o.Peer) > 0 {
			run = RunPeer
		}
		r, err := run(ctx, p, o)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// RunProblem runs problem p on each run seed of o.
func RunProblem(ctx context.Context, p Problem, o Options) (Result, error) {
	b, seeds := newBench(p, o)
	res := b.result()
	if p.Text != nil {
		res.Config = p.File
	}
	for _, seed := range seeds {
		run, err := b.run(ctx, seed)
		if err != nil {
			return res, fmt.Errorf("tunebench: %s, run seed %d: %w", p.Name, seed, err)
		}
		res.Runs = append(res.Runs, run)
	}
	res.Start = stats.Summarize(b.start).Mean
	res.summarize()
	return res, nil
}

// summarize fills the counts and medians from the runs.
func (r *Result) summarize() {
	cpu, games, final := make([]float64, len(r.Runs)), make([]float64, len(r.Runs)), make([]float64, len(r.Runs))
	for i, run := range r.Runs {
		cpu[i], games[i] = math.Inf(1), math.Inf(1)
		if run.Reached != nil {
			r.Reached++
			cpu[i], games[i] = run.Reached.CPU, float64(run.Reached.Games)
		}
		final[i] = run.Final.Ratio
	}
	r.MedianCPU, r.MedianGames = finite(stats.Median(cpu)), finite(stats.Median(games))
	r.MedianFinal = stats.Median(final)
}

// finite returns a pointer to x, or nil for an infinite or NaN x.
func finite(x float64) *float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return nil
	}
	return &x
}

// bench is one problem's benchmark in progress: the held-out pool and
// seeds, and the start's held-out games once measured (the same for every
// run seed: the start does not depend on it).
type bench struct {
	p       Problem
	o       Options
	heldOut *tuner.LocalPool
	seeds   []uint64
	start   []engine.Result
}

// newBench begins problem p's benchmark under o, and returns it with the
// run seeds: o's, or DefaultSeeds.
func newBench(p Problem, o Options) (*bench, []uint64) {
	seeds := o.Seeds
	if seeds == nil {
		seeds = DefaultSeeds
	}
	if o.Short {
		p.HeldOut = 4
	}
	if o.Budget > 0 {
		p.Budget = o.Budget
	}
	return &bench{p: p, o: o, heldOut: tuner.NewLocalPool(o.Workers), seeds: heldOutSeeds(p.HeldOut)}, seeds
}

// result is the benchmark's result before its runs.
func (b *bench) result() Result {
	return Result{Problem: b.p.Name, Target: b.p.Target, HeldOut: b.p.HeldOut, Budget: b.p.Budget.Seconds()}
}

// config returns the problem's config for run seed seed, resolved and
// valid.
func (b *bench) config(seed uint64) (*tuner.Config, error) {
	cfg, err := b.p.Config()
	if err != nil {
		return nil, err
	}
	if cfg.Generations != 0 {
		return nil, cfg.Errorf("generations", "the benchmark ends a run, not the problem: leave it out")
	}
	if cfg.Duration != 0 {
		return nil, cfg.Errorf("duration", "the benchmark ends a run, not the problem: leave it out")
	}
	for i, st := range cfg.Stages {
		// A stage's duration is wall time, which no run of the benchmark
		// may depend on; its generations are the same on every machine.
		if st.Duration != 0 {
			return nil, cfg.Errorf(tuner.StageField(i, "duration"), "a stage of a problem ends by its generations, not by wall time")
		}
	}
	if b.p.Text != nil {
		if err := b.sameProblem(cfg); err != nil {
			return nil, err
		}
	}
	cfg.Seed, cfg.Workers = seed, b.o.Workers
	if b.o.Short {
		shrink(cfg)
	}
	cfg.Resolve()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// sameProblem checks that cfg, tuner settings of one's own, poses the
// problem's question: the same feature set, start and held-out search, so
// that its figures compare with the problem's.
func (b *bench) sameProblem(cfg *tuner.Config) error {
	own, err := Lookup(b.p.Name)
	if err != nil {
		return err
	}
	orig, err := own.Config()
	if err != nil {
		return err
	}
	orig.Resolve()
	mine := *cfg
	mine.Resolve()
	switch {
	case mine.SetName != orig.SetName:
		return mine.Errorf("features", "%s: problem %s tunes %s", mine.SetName, b.p.Name, orig.SetName)
	case !maps.Equal(mine.Init, orig.Init):
		return mine.Errorf("init", "problem %s starts from %v", b.p.Name, orig.Init)
	case heldOutSearch(&mine) != heldOutSearch(orig):
		return mine.Errorf("search", "%s at the last stage: problem %s is judged at %s", heldOutSearch(&mine), b.p.Name, heldOutSearch(orig))
	}
	return nil
}

// shrink makes cfg a run of seconds whatever its search (see Options.Short).
func shrink(cfg *tuner.Config) {
	cfg.Generations = 2
	cfg.Optimizer.Population = 4
	cfg.Fitness.Games = 4
	cfg.Fitness.MaxMoves = 40
	cfg.Noise.Games = nil // the defaults around 4 games
	cfg.Validation.Every, cfg.Validation.Games = 1, 4
	for i := range cfg.Stages {
		st := &cfg.Stages[i]
		st.Games, st.Population = 4, 4
		if i < len(cfg.Stages)-1 {
			st.Generations = 1 // so that two generations see two stages
		}
	}
}

// run runs the problem with run seed seed.
func (b *bench) run(ctx context.Context, seed uint64) (Run, error) {
	cfg, err := b.config(seed)
	if err != nil {
		return Run{}, err
	}
	t, err := tuner.New(cfg, tuner.Options{Pool: tuner.NewLocalPool(cfg.Workers)})
	if err != nil {
		return Run{}, err
	}
	clock := &cpuClock{}
	// No wall clock: a problem has no duration, and nothing of the run may
	// depend on time.
	never := func() time.Duration { return 0 }
	if err := clock.do(func() error { return t.ValidateStart(ctx) }); err != nil {
		return Run{}, err
	}
	if b.start == nil {
		if b.start, err = b.measure(ctx, t, t.State().Start.Weights); err != nil {
			return Run{}, err
		}
	}
	run := Run{Seed: seed}
	for run.Stop == "" {
		if clock.used >= b.p.Budget {
			// The tuner's last word: its mean, validated now unless it was
			// at this generation.
			if err := clock.do(func() error { return t.Finish(ctx, "tunebench: budget spent") }); err != nil {
				return Run{}, err
			}
			run.Stop = "budget"
		} else {
			var rec tuner.Record
			if err := clock.do(func() (err error) { rec, err = t.Step(ctx, never); return err }); err != nil {
				return Run{}, err
			}
			if rec.Validation == nil {
				continue
			}
			if f := t.Finished(); f != "" {
				run.Stop = f
			}
		}
		st := t.State()
		n := len(run.Points)
		if n > 0 && run.Points[n-1].Generation == st.Validated.Generation {
			break // the budget's end came right after a validation
		}
		var prev *Point
		if n > 0 {
			prev = &run.Points[n-1]
		}
		pt, err := b.point(ctx, t, clock.used, prev)
		if err != nil {
			return Run{}, err
		}
		run.Points = append(run.Points, pt)
		if b.o.Progress != nil {
			b.o.Progress(b.p.Name, seed, pt)
		}
		if run.Reached == nil && pt.Ratio >= b.p.Target {
			run.Reached = &pt
			if !b.o.Full {
				run.Stop = "target" // even where the tuner stopped too: it says more
			}
		}
	}
	if len(run.Points) == 0 {
		return Run{}, fmt.Errorf("no validation before the run ended")
	}
	run.Final = run.Points[len(run.Points)-1]
	st := t.State()
	if err := checkDisjoint(seed, st.SeedCounter, cfg.Validation.Games, b.p.HeldOut); err != nil {
		return Run{}, err
	}
	return run, nil
}

// point measures the tuner's recommended weights on the held-out games,
// or takes the figures of prev, the run's previous point, when it
// recommended the same weights: the same weights play the same games.
func (b *bench) point(ctx context.Context, t *tuner.Tuner, used time.Duration, prev *Point) (Point, error) {
	st := t.State()
	v := st.Recommended()
	pt := Point{Generation: st.Validated.Generation, Games: st.Games, CPU: used.Seconds()}
	if v.Generation != pt.Generation {
		pt.Recommended = v.Generation
	}
	if prev != nil && prev.measured() == v.Generation {
		pt.Mean, pt.Ratio, pt.RatioCI95 = prev.Mean, prev.Ratio, prev.RatioCI95
		return pt, nil
	}
	if err := b.judge(ctx, t, v.Weights, &pt); err != nil {
		return Point{}, err
	}
	return pt, nil
}

// judge plays w on the held-out games and sets pt's figures: their mean
// and its ratio to the start's.
func (b *bench) judge(ctx context.Context, t *tuner.Tuner, w []float64, pt *Point) error {
	rs, err := b.measure(ctx, t, w)
	if err != nil {
		return err
	}
	c, err := stats.Compare(rs, b.start)
	if err != nil {
		return err
	}
	pt.Mean, pt.Ratio, pt.RatioCI95 = c.A.Mean, c.Ratio, [2]float64{c.RatioCI95.Lo, c.RatioCI95.Hi}
	return nil
}

// measured is the generation whose mean the point measured.
func (p Point) measured() int {
	if p.Recommended != 0 {
		return p.Recommended
	}
	return p.Generation
}

// heldOutSearch is the search the held-out games are played with: the
// last stage's validation search, the one the problem's weights are for. A
// ladder that tunes at 3 plies before 5 is judged, from its first
// validation on, at 5 plies, as a run without stages is.
func heldOutSearch(cfg *tuner.Config) engine.SearchConfig {
	return cfg.StageValidationSearch(len(cfg.StageList()) - 1)
}

// measure plays w on the held-out games with heldOutSearch and the tuner's
// move limit, on the benchmark's own pool: the tuner never sees them.
func (b *bench) measure(ctx context.Context, t *tuner.Tuner, w []float64) ([]engine.Result, error) {
	batch := &tuner.Batch{
		Players:  tuner.FeaturePlayers{Set: t.Set(), Search: heldOutSearch(t.Config())},
		Vectors:  [][]float64{slices.Clone(w)},
		Seeds:    b.seeds,
		MaxMoves: t.Config().Fitness.MaxMoves,
	}
	results := [][]engine.Result{make([]engine.Result, len(b.seeds))}
	if err := b.heldOut.Play(ctx, batch, results, nil); err != nil {
		return nil, fmt.Errorf("held-out games: %w", err)
	}
	return results[0], nil
}

// cpuClock adds up the process CPU time spent inside do: the tuning, and
// nothing of the held-out measurements between its calls.
type cpuClock struct{ used time.Duration }

func (c *cpuClock) do(f func() error) error {
	before, err := cputime.Process()
	if err != nil {
		return err
	}
	ferr := f()
	after, err := cputime.Process()
	if err != nil {
		return err
	}
	c.used += after - before
	return ferr
}
