package main

import (
	"errors"
	"flag"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/internal/yamlx"
	"github.com/evotune/evotune/tuner"
)

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

// stageFlags are the flags a config with stages refuses.
var stageFlags = map[string]bool{"games": true, "population": true, "depth": true}

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
			fs.DurationVar(&o.duration, "duration", 0, "wall-clock budget in all, counting the time a resumed run has already spent, e.g. 90m or 8h, 0 = none (default: the config's)")
		case "workers":
			fs.IntVar(&o.workers, "workers", 0, "games played at once, 0 = one per core; changes no result (default: the config's)")
		case "games":
			fs.IntVar(&o.games, "games", 0, "games per candidate per generation; with noise handling the first generation's (in whole blocks of noise.block), and noise handling's bounds become N/4 to 4N, in place of the config's noise.games (default: the config's)")
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
//
// --depth replaces the search depth before the config is resolved, so the
// table and cutoff the config leaves out follow the new depth and those it
// writes stay: a config's keys are the user's settings, whereas a weights
// file's are a record of the search its weights were tuned with, which
// holds only at that search's depth (see searchFlags.merge).
func (o *overrides) apply(cfg *tuner.Config) (map[string]string, error) {
	var err error
	o.fs.Visit(func(f *flag.Flag) {
		switch {
		case f.Name == "depth" && engine.CheckDepth(o.depth) != nil:
			err = usagef("flag --depth: %v", engine.CheckDepth(o.depth))
		case f.Name == "games" && o.games < 1:
			err = usagef("flag --games: %d: want at least 1 game per candidate", o.games)
		case len(cfg.Stages) > 0 && stageFlags[f.Name]:
			// Each stage has its own search, games and population: which
			// of them a flag would change is no question to guess.
			err = usagef("flag --%s: the config has stages, each with its own search, games and population; edit the stages in the config instead (--generations and --duration limit the whole run)", f.Name)
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
			// Bounds of noise handling that the file set for its own
			// fitness.games would override the flag (12 to 48 in the quick
			// preset: --games 8 would play 12): they follow the flag, as
			// they follow fitness.games in a file that leaves them out.
			cfg.Fitness.Games, cfg.Noise.Games = o.games, nil
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
	var fe *yamlx.FileError
	if errors.As(err, &fe) {
		if name, ok := flags[fe.Field]; ok {
			return usagef("flag %s: %s", name, fe.Msg)
		}
	}
	return badInput(err)
}
