package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/evotune/evotune/configs"
	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/tuner"
)

var tuneCommand = &command{
	name:     "tune",
	synopsis: "[--config FILE|PRESET] [--out DIR] [--seed N] [--generations N] [--duration 8h] [--workers N] [--games N] [--population N] [--depth N]",
	summary:  "tune evaluation weights by playing seeded games (the main job)",
	setup:    setupTune,
}

// overrides are the flags that override a config file: each maps to the
// config field it replaces, so errors can name the flag.
type overrides struct {
	fs          *flag.FlagSet
	seed        uint64
	generations int
	duration    time.Duration
	workers     int
	games       int
	population  int
	depth       int
}

var overrideFields = map[string]string{
	"seed": "seed", "generations": "generations", "duration": "duration", "workers": "workers",
	"games": "fitness.games", "population": "optimizer.population", "depth": "search.depth",
}

func addOverrides(fs *flag.FlagSet, which ...string) *overrides {
	o := &overrides{fs: fs}
	for _, name := range which {
		switch name {
		case "seed":
			fs.Uint64Var(&o.seed, "seed", 0, "run seed every game seed derives from (default: the config's)")
		case "generations":
			fs.IntVar(&o.generations, "generations", 0, "stop after this many generations in all, 0 = no limit (default: the config's)")
		case "duration":
			fs.DurationVar(&o.duration, "duration", 0, "wall-clock budget, e.g. 90m or 8h, 0 = none (default: the config's)")
		case "workers":
			fs.IntVar(&o.workers, "workers", 0, "games played at once, 0 = one per core; changes no result (default: the config's)")
		case "games":
			fs.IntVar(&o.games, "games", 0, "games per candidate per generation (default: the config's)")
		case "population":
			fs.IntVar(&o.population, "population", 0, "candidates per generation, 0 = the optimizer's default (default: the config's)")
		case "depth":
			fs.IntVar(&o.depth, "depth", 0, "search depth in plies (default: the config's)")
		}
	}
	return o
}

// apply writes the flags that were given into cfg and returns their names
// by config field. In a config 0 means "the default"; a flag set to 0 where
// that makes no sense is an error rather than a silent default.
func (o *overrides) apply(cfg *tuner.Config) (map[string]string, error) {
	var err error
	o.fs.Visit(func(f *flag.Flag) {
		switch {
		case f.Name == "depth" && engine.CheckDepth(o.depth) != nil:
			err = usagef("flag --depth: %v", engine.CheckDepth(o.depth))
		case f.Name == "games" && o.games < 1:
			err = usagef("flag --games: %d: want at least 1 game per candidate", o.games)
		}
	})
	if err != nil {
		return nil, err
	}
	set := map[string]string{}
	o.fs.Visit(func(f *flag.Flag) {
		field, ok := overrideFields[f.Name]
		if !ok {
			return
		}
		set[field] = "--" + f.Name
		switch f.Name {
		case "seed":
			cfg.Seed = o.seed
		case "generations":
			cfg.Generations = o.generations
		case "duration":
			cfg.Duration = tuner.Duration(o.duration)
		case "workers":
			cfg.Workers = o.workers
		case "games":
			cfg.Fitness.Games = o.games
		case "population":
			cfg.Optimizer.Population = o.population
		case "depth":
			cfg.Search.Depth = o.depth
		}
	})
	return set, nil
}

// flagError turns a config error about an overridden field into one naming
// the flag.
func flagError(err error, flags map[string]string) error {
	var fe *eval.FileError
	if errors.As(err, &fe) {
		if name, ok := flags[fe.Field]; ok {
			return usagef("flag %s: %s", name, fe.Msg)
		}
	}
	return badInput(err)
}

func setupTune(fs *flag.FlagSet) func(context.Context, []string, io.Writer, io.Writer) error {
	config := fs.String("config", "", "YAML config file, or the name of a preset built in: "+strings.Join(configs.Names(), ", ")+" (default: "+configs.Default+")")
	out := fs.String("out", "", "run directory (default: runs/NAME, NAME from the config; a fresh runs/NAME.2 etc. if that exists)")
	o := addOverrides(fs, "seed", "generations", "duration", "workers", "games", "population", "depth")
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if len(args) > 0 {
			return usagef("unexpected argument %q (a config goes in --config)", args[0])
		}
		cfg, pos, err := loadConfig(*config)
		if err != nil {
			return err
		}
		flags, err := o.apply(cfg)
		if err != nil {
			return err
		}
		cfg.Resolve()
		if err := cfg.Validate(pos); err != nil {
			return flagError(err, flags)
		}
		dir := *out
		if dir == "" {
			dir = freshDir(filepath.Join("runs", cfg.Name))
		}
		return runTuning(ctx, stdout, stderr, func(ev tuner.Events) (*tuner.Run, error) {
			r, err := tuner.Create(cfg, dir, ev)
			if errors.Is(err, tuner.ErrRunDir) {
				return nil, badInput(err)
			}
			return r, err
		})
	}
}

// freshDir returns dir if it does not exist or is empty, else the first of
// dir.2, dir.3, ... that does not.
func freshDir(dir string) string {
	for i := 1; ; i++ {
		d := dir
		if i > 1 {
			d = dir + "." + strconv.Itoa(i)
		}
		entries, err := os.ReadDir(d)
		if err != nil || len(entries) == 0 {
			return d
		}
	}
}

// runTuning runs a tuning run with progress on stderr and the summary on
// stdout; open creates or reopens the run with the given events.
func runTuning(ctx context.Context, stdout, stderr io.Writer, open func(tuner.Events) (*tuner.Run, error)) error {
	p := &tuneProgress{w: stderr, terminal: isTerminal(stderr), start: time.Now()}
	if path := os.Getenv("EVOTUNE_GAME_TRACE"); path != "" {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("EVOTUNE_GAME_TRACE: %w", err)
		}
		defer f.Close()
		p.trace = f
	}
	r, err := open(p.events())
	if err != nil {
		return err
	}
	defer r.Close()
	p.run = r
	t := r.Tuner()
	cfg := t.Config()
	if done := t.State().Done; done != "" {
		fmt.Fprintf(stdout, "run       %s is complete (%s after %d generations); nothing to do\n", r.Dir(), done, t.State().Generation)
		fmt.Fprintf(stdout, "weights   %s (evotune export %s writes them again)\n", filepath.Join(r.Dir(), tuner.WeightsFile), r.Dir())
		fmt.Fprintf(stdout, "more      evotune resume %s --generations N   (N above %d continues it)\n", r.Dir(), t.State().Generation)
		return nil
	}
	if p.terminal {
		p.bar = newBar(stderr, estimateGames(cfg, t.Lambda()), "validating start", "games")
	}
	fmt.Fprintf(stdout, "run       %s\n", r.Dir())
	fmt.Fprintf(stdout, "config    %s\n", describeConfig(cfg, t))
	fmt.Fprintf(stdout, "resume    evotune resume %s   (after Ctrl-C or a crash; progress is saved every generation)\n", r.Dir())
	start := time.Now()
	res, err := r.Run(ctx)
	p.finish()
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintf(stdout, "\ninterrupted after %d completed generations; everything finished is saved\n", res.Generations)
			fmt.Fprintf(stdout, "resume    evotune resume %s\n", r.Dir())
			return &exitError{code: exitInterrupted, err: fmt.Errorf("interrupted; continue with: evotune resume %s", r.Dir())}
		}
		return err
	}
	fmt.Fprintf(stdout, "\nstopped   %s after %d generations, %d games, %s\n", res.Stop, res.Generations, res.Games, time.Since(start).Round(time.Second))
	if res.Replayed > 0 {
		fmt.Fprintf(stdout, "journal   %d finished games taken from the journal instead of played again\n", res.Replayed)
	}
	m := t.Metric().String()
	if res.Start != nil {
		fmt.Fprintf(stdout, "start     %s %s on %d validation games (mean score %.0f ± %.0f)\n", m, fmtFitness(res.Start.Fitness), res.Start.Games, res.Start.Mean, res.Start.CI95)
	}
	if res.Final != nil {
		fmt.Fprintf(stdout, "tuned     %s %s on the same games (mean score %.0f ± %.0f), generation %d\n", m, fmtFitness(res.Final.Fitness), res.Final.Mean, res.Final.CI95, res.Final.Generation)
		fmt.Fprintf(stdout, "weights   %s\n", fmtWeights(t, res.Final.Weights))
	}
	fmt.Fprintf(stdout, "written   %s\n", res.WeightsPath)
	fmt.Fprintf(stdout, "next      evotune play --weights %s --depth %d --games 100\n", res.WeightsPath, cfg.Search.Depth)
	return nil
}

func fmtFitness(f float64) string {
	if f >= 100 {
		return fmt.Sprintf("%.0f", f)
	}
	return fmt.Sprintf("%.4g", f)
}

func fmtWeights(t *tuner.Tuner, w []float64) string {
	s := ""
	for i, name := range t.Set().FeatureNames() {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s %.4g", name, w[i])
	}
	return s
}

func describeConfig(cfg *tuner.Config, t *tuner.Tuner) string {
	gens := "no generation limit"
	if cfg.Generations > 0 {
		gens = fmt.Sprintf("%d generations", cfg.Generations)
	}
	if cfg.Duration > 0 {
		gens += fmt.Sprintf(", at most %v", time.Duration(cfg.Duration))
	}
	return fmt.Sprintf("%s on %s, %d candidates × %d games, %s, %s %s, seed %d, %d workers",
		cfg.Optimizer.Method, cfg.Features, t.Lambda(), cfg.Fitness.Games, gens,
		describeSearch(t.SearchConfig()), cfg.Fitness.Metric, cfg.Seed, engine.Workers(cfg.Workers))
}

// tuneProgress shows a run's progress: a bar on a terminal, one plain line
// per generation otherwise; never both.
type tuneProgress struct {
	w        io.Writer
	terminal bool
	run      *tuner.Run
	bar      *bar
	start    time.Time
	played   atomic.Int64 // games played by this process, not replayed
	// trace, when EVOTUNE_GAME_TRACE names a file, gets one line per game
	// played: the crash tests count with it the games an interruption
	// costs. Each line is one append-mode write, so the count survives
	// kill -9.
	trace *os.File
}

func (p *tuneProgress) events() tuner.Events {
	return tuner.Events{
		Game: func(replayed bool) {
			if !replayed {
				p.played.Add(1)
				if p.trace != nil {
					p.trace.Write([]byte("game\n"))
				}
			}
			p.bar.add(1)
		},
		Generation: p.generation,
		Validation: p.validation,
	}
}

func (p *tuneProgress) generation(rec tuner.Record) {
	cfg := p.run.Tuner().Config()
	of := ""
	if cfg.Generations > 0 {
		of = fmt.Sprintf("/%d", cfg.Generations)
	}
	if p.terminal {
		p.bar.describe(fmt.Sprintf("gen %d%s best %s", rec.Generation+1, of, fmtFitness(rec.Best)))
		return
	}
	line := fmt.Sprintf("gen %d%s  best %s  median %s  sigma %.3g  games %d  %.1f games/s  %s",
		rec.Generation, of, fmtFitness(rec.Best), fmtFitness(rec.Median), rec.Sigma, rec.Games,
		float64(p.played.Load())/max(time.Since(p.start).Seconds(), 1e-9), p.run.Elapsed().Round(time.Second))
	if v := rec.Validation; v != nil {
		line += fmt.Sprintf("  validated %s (mean score %.0f ± %.0f)", fmtFitness(v.Fitness), v.Mean, v.CI95)
	}
	fmt.Fprintln(p.w, line)
}

func (p *tuneProgress) validation(v *tuner.Validation, start bool) {
	if !start {
		return
	}
	msg := fmt.Sprintf("start     validated %s (mean score %.0f ± %.0f over %d games)", fmtFitness(v.Fitness), v.Mean, v.CI95, v.Games)
	if p.terminal {
		p.bar.println(msg)
		return
	}
	fmt.Fprintln(p.w, msg)
}

func (p *tuneProgress) finish() { p.bar.done() }

// estimateGames is the bar's total: every tuning and validation game the
// run will play at the current population size, or -1 with no generation
// limit.
func estimateGames(cfg *tuner.Config, lambda int) int {
	if cfg.Generations <= 0 {
		return -1
	}
	validations := 1 + cfg.Generations/cfg.Validation.Every
	if cfg.Generations%cfg.Validation.Every != 0 {
		validations++
	}
	return cfg.Generations*lambda*cfg.Fitness.Games + validations*cfg.Validation.Games
}
