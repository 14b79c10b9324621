package main

import (
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/evotune/evotune/configs"
	"github.com/evotune/evotune/tuner"
	"github.com/evotune/evotune/tuner/objective"
	"github.com/evotune/evotune/tuner/tunebench"
)

var objectiveCommand = &command{
	name:     "objective",
	synopsis: "[--config FILE|PRESET | --problem NAME] [--player CMD] [--seed N] [--workers N]",
	summary:  "serve a tuning problem's games to an optimizer of your own, as JSON lines on stdin and stdout",
	setup:    setupObjective,
}

func setupObjective(fs *flag.FlagSet) runFunc {
	config := fs.String("config", "", "YAML config file, or the name of a preset built in: "+strings.Join(configs.Names(), ", ")+" (default: "+configs.Default+")")
	problem := fs.String("problem", "", "serve a tunebench problem instead of a config: "+strings.Join(tunebench.Names(), ", "))
	o := addOverrides(fs, "seed", "workers", "depth")
	pf := addPlayerFlags(fs, true)
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if len(args) > 0 {
			return usagef("unexpected argument %q (objective takes flags; requests come on stdin)", args[0])
		}
		if err := pf.check(); err != nil {
			return err
		}
		var (
			cfg  *tuner.Config
			name string
			err  error
		)
		switch {
		case *problem != "" && *config != "":
			return usagef("flag --problem: a problem is its own config; leave --config out")
		case *problem != "":
			p, err := tunebench.Lookup(*problem)
			if err != nil {
				return usagef("flag --problem: %v", err)
			}
			if cfg, err = p.Config(); err != nil {
				return err
			}
			name = p.Name
		default:
			if cfg, err = loadConfig(*config); err != nil {
				return err
			}
			name = objectiveName(*config)
		}
		if err := pf.apply(cfg); err != nil {
			return err
		}
		if pf.command != "" {
			name = "player " + pf.command
		}
		flags, err := o.apply(cfg)
		if err != nil {
			return err
		}
		if err := pf.declare(ctx, cfg); err != nil {
			return err
		}
		cfg.Resolve()
		if err := cfg.Validate(); err != nil {
			return flagError(err, flags)
		}
		var (
			players tuner.Players
			pool    tuner.Pool
		)
		if cfg.Player != nil {
			dir, err := os.MkdirTemp("", "evotune-objective-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			pp := &playerPools{flags: pf, dir: dir, workers: func(c *tuner.Config) int { return c.Workers }}
			defer pp.close()
			if players, pool, err = pp.make(cfg); err != nil {
				return err
			}
		}
		p, err := objective.New(name, cfg, players, pool)
		if err != nil {
			return err
		}
		return (&objective.Server{P: p}).Serve(ctx, os.Stdin, stdout)
	}
}

// objectiveName names a config's problem in the first line: the preset's
// name or the file's base name.
func objectiveName(config string) string {
	if config == "" {
		return configs.Default
	}
	return strings.TrimSuffix(filepath.Base(config), ".yaml")
}
