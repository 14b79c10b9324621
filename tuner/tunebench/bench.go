package tunebench

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/internal/cputime"
	"github.com/evotune/evotune/tuner"
)

// Short mode's grid and budget in games: two generations of the shrunk
// tuner (see shrink) play 2 × 4 × 4 games, up to three times that with noise
// handling's re-evaluations, and 3 × 4 validation games; they end by their
// generations, within the budget, which stops a peer.
const (
	shortGrid        = 20
	shortBudgetGames = 120
)

// Options say how a benchmark runs its problems. The zero value runs each
// problem as defined, on run seeds 1, 2 and 3, one worker per core, and
// keeps its results in memory only.
type Options struct {
	// Seeds are the run seeds; nil means DefaultSeeds, or ConfirmSeeds
	// under Confirm.
	Seeds []uint64
	// Confirm plays the rows on the confirmation block of held-out games
	// (ConfirmSeed), the start's figure measured there too, instead of the
	// development block (HeldOutSeed); Seeds may then hold no development
	// run seed (CheckConfirmSeeds). Settings are chosen on development
	// results; a confirmation reports them.
	Confirm bool
	// Out, if not empty, is a directory that keeps each run seed's result
	// as the seed ends and each row's as the row ends, and from which a
	// benchmark run again resumes: the results found there are read back,
	// not run again (see Bench).
	Out string
	// Note, if not nil, is told of each file written in or read back
	// from Out, with the problem (and its cell: "nneonneo-cap1 4x") and
	// the row's name (Result.Name).
	Note func(problem, tuner, what string)
	// Workers is the games played at once, by the tuner and by the held-out
	// measurement; 0 means one per core. It changes CPU figures a little
	// (scheduling), no game.
	Workers int
	// Cells names the cells each problem's rows run at, one row result
	// per problem, cell and row (see Cell): names such as "1x" and "4x",
	// each a cell of every problem, or AllCells alone for each problem's
	// own. A cell sets the budgets and the grid, and runs go on to its
	// budget (Full); nil runs one cell of the budgets below. Not with
	// Budget or BudgetGames.
	Cells []string
	// cell is the one cell a row runs at (Bench's, or oneCell's), nil for
	// the budgets below.
	cell *Cell
	// Budget replaces each problem's tuning CPU budget when positive.
	Budget time.Duration
	// BudgetGames, when positive, is a budget in games next to the CPU
	// budget: a run stops at whichever it meets first. The tuner's
	// generation (with its validation) or a peer's request that would
	// take a run past it is not played.
	BudgetGames int64
	// Grid, when positive, replaces each problem's games between two of a
	// run's points (not in Short mode): a coarser grid spends fewer
	// held-out games on long budgets, and resolves the CPU to the target
	// and the best point passed more coarsely.
	Grid int64
	// Full goes on after the target is met, to the budget (or the tuner's
	// own end), so that the final strength is what a run of that budget
	// ends with; without it a run stops at the point that meets the
	// target. A cell implies it.
	Full bool
	// Short shrinks every problem to a run of seconds: two generations of
	// four candidates on four games cut at 40 moves, four validation and
	// four held-out games, a grid of 20 games and a budget of 120. It
	// checks that the benchmark works, not how fast the tuner is.
	Short bool
	// Peer, if not empty, is an optimizer of one's own for RunPeer: the
	// program, then its arguments.
	Peer []string
	// PeerStderr receives the peer's standard error, up to a cap; nil
	// means this process's.
	PeerStderr io.Writer
	// PeerLimits are the limits a peer runs under; zero fields take their
	// defaults (see PeerLimits).
	PeerLimits PeerLimits
	// Command is recorded in each Result (Result.Command).
	Command string
	// Progress, if not nil, is told about each point as it is measured,
	// with the problem (and its cell, as Note) and the row's name
	// (Result.Name).
	Progress func(problem, tuner string, seed uint64, p Point)
}

// A Row is one tuner of a benchmark: evotune's tuner with the problem's
// settings (the zero Row), with tuner settings of one's own (Config and
// ConfigText: a file's name and contents, as Problem.File and
// Problem.Text), or a peer optimizer (Peer: a program and its
// arguments).
type Row struct {
	Config     string
	ConfigText []byte
	Peer       []string
}

// Bench runs each row on each problem, at each cell of Options.Cells, on
// each run seed, and returns their results in order: the first problem's
// rows at its first cell, then at its next cell, then the next
// problem's. Nil rows run the tuner alone, as one zero Row. A cell a
// problem has not is an error (ErrNoCell) before anything runs.
//
// A row that fails (a peer that crashes or breaks a limit, a tuner's
// error) costs only itself: its Result says why (Result.Error, Result.Err)
// and keeps the run seeds it finished, and the next row runs. Bench
// returns an error only when it cannot go on: ctx ended, or Options.Out
// cannot be read or written, or holds results of another benchmark
// (ErrOtherBench, before anything runs).
//
// With Options.Out each run seed's result is written as the seed ends and
// each row's as the row ends, atomically (checkpoints.WriteFile), so that
// a benchmark killed at any moment keeps all it finished; run again with
// the same problems and conditions, it reads them back: a finished row
// (its failure included: remove its row.json to run it again) is not run
// again, and an unfinished one runs only the run seeds it lacks. The files
// are laid out as storePaths says.
func Bench(ctx context.Context, ps []Problem, rows []Row, o Options) ([]Result, error) {
	if rows == nil {
		rows = []Row{{}}
	}
	// A job is one row at one cell of one problem.
	type job struct {
		p Problem
		o Options
	}
	var jobs []job
	for _, row := range rows {
		if row.Peer != nil {
			if err := cpuReadable(); err != nil {
				return nil, fmt.Errorf("tunebench: %w", err)
			}
			break
		}
	}
	for _, p := range ps {
		cs, err := cellsOf(p, o)
		if err != nil {
			return nil, err
		}
		at := []*Cell{nil}
		if cs != nil {
			at = nil
			for i := range cs {
				at = append(at, &cs[i])
			}
		}
		for _, c := range at {
			for _, row := range rows {
				q, ro := p, o
				ro.Peer, ro.cell = row.Peer, c
				if row.Peer == nil && row.ConfigText != nil {
					q.Text, q.File = row.ConfigText, row.Config
				}
				jobs = append(jobs, job{q, ro})
			}
		}
	}
	// Every file a row would read back is checked before the first row
	// runs: a directory of another benchmark is found in a second, not
	// after hours of rows.
	for _, j := range jobs {
		if err := checkStored(j.p, j.o); err != nil {
			return nil, err
		}
	}
	var out []Result
	for _, j := range jobs {
		r, err := runRow(ctx, j.p, j.o)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
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
	// startCPU is the CPU the start's held-out games took, a first
	// estimate of a game's cost (see peerRun.admit).
	startCPU time.Duration
	// grid and budgetGames are the problem's, or short mode's.
	grid, budgetGames int64
	// label names the row in progress lines (Result.Name).
	label string
	// block is the held-out games' block (Development or Confirmation),
	// runSeeds the row's run seeds.
	block    string
	runSeeds []uint64
}

// newBench begins problem p's benchmark under o, and returns it with the
// run seeds: o's, or the block's defaults.
func newBench(p Problem, o Options) (*bench, []uint64) {
	seeds, block := o.Seeds, Development
	if o.Confirm {
		block = Confirmation
	}
	if seeds == nil {
		seeds = DefaultSeeds
		if o.Confirm {
			seeds = ConfirmSeeds
		}
	}
	b := &bench{p: p, o: o, block: block, runSeeds: seeds, grid: p.Grid, budgetGames: o.BudgetGames}
	if c := o.cell; c != nil {
		b.p.Budget, b.budgetGames, b.grid, b.o.Full = c.Budget, c.BudgetGames, c.Grid, true
	}
	if o.Grid > 0 {
		b.grid = o.Grid
	}
	if o.Short {
		b.p.HeldOut, b.grid = 4, shortGrid
		if b.budgetGames == 0 {
			b.budgetGames = shortBudgetGames
		}
		if c := o.cell; c != nil {
			// The same two generations at every cell, its budgets
			// scaled so that each keeps conditions of its own.
			b.budgetGames = shortBudgetGames * int64(c.Scale)
		}
	}
	if o.Budget > 0 {
		b.p.Budget = o.Budget
	}
	if b.grid <= 0 {
		b.grid = 1000 // a problem of one's own without a grid
	}
	b.heldOut, b.seeds = tuner.NewLocalPool(o.Workers), heldOutSeeds(block, b.p.HeldOut)
	return b, seeds
}

// result is the row's result before its runs.
func (b *bench) result() Result {
	r := Result{
		Problem: b.p.Name, Command: b.o.Command, Target: b.p.Target, HeldOut: b.p.HeldOut,
		Budget: b.p.Budget.Seconds(), BudgetGames: b.budgetGames, Grid: b.grid, Full: b.o.Full, Short: b.o.Short,
		Block: b.block, RunSeeds: slices.Clone(b.runSeeds),
	}
	if b.o.cell != nil {
		r.Cell = b.o.cell.Name
	}
	if len(b.o.Peer) > 0 {
		r.Peer = joinCommand(b.o.Peer)
	} else if b.p.Text != nil {
		r.Config = b.p.File
	}
	return r
}

// name names the row being run, for progress lines.
func (b *bench) name() string { return b.label }

// where names the problem and the cell being run, for progress lines:
// the points of a problem's cells are told apart.
func (b *bench) where() string {
	if b.o.cell != nil {
		return b.p.Name + " " + b.o.cell.Name
	}
	return b.p.Name
}

// spent reports whether a run that has played games in used CPU time has
// spent a budget.
func (b *bench) spent(games int64, used time.Duration) bool {
	return used >= b.p.Budget || b.budgetGames > 0 && games >= b.budgetGames
}

// over reports whether a run that has played games in used CPU time has
// gone past a budget.
func (b *bench) over(games int64, used time.Duration) bool {
	return used > b.p.Budget || b.budgetGames > 0 && games > b.budgetGames
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
	cfg.Resolve()
	if b.o.Short {
		shrink(cfg) // on the resolved config: it shortens the final race it has
	}
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
	if cfg.Validation.Select > 0 {
		cfg.Validation.Select = 4 // races of four games
	}
	for i := range cfg.Stages {
		st := &cfg.Stages[i]
		st.Games, st.Population = 4, 4
		if i < len(cfg.Stages)-1 {
			st.Generations = 1 // so that two generations see two stages
		}
	}
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

// measureStart plays the start on the held-out games once per benchmark.
func (b *bench) measureStart(ctx context.Context, t *tuner.Tuner, w []float64) error {
	if b.start != nil {
		return nil
	}
	before, _ := cputime.Process()
	rs, err := b.measure(ctx, t, w)
	if err != nil {
		return err
	}
	after, _ := cputime.Process()
	b.start, b.startCPU = rs, after-before
	return nil
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

// joinCommand is a command's words as one line, for Result.Peer.
func joinCommand(words []string) string { return strings.Join(words, " ") }
