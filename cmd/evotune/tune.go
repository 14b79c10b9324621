package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/evotune/evotune/configs"
	"github.com/evotune/evotune/tuner"
)

var tuneCommand = &command{
	name:     "tune",
	synopsis: "[--config FILE|PRESET] [--out DIR] [--seed N] [--generations N] [--duration 8h] [--workers N] [--games N] [--population N] [--depth N] [--nats URL | --nats-listen ADDR] [--local-slots N] [--nats-creds FILE] [--player CMD] [--player-timeouts F]",
	summary:  "tune evaluation weights by playing seeded games (the main job)",
	tuning:   setupTune,
}

func setupTune(fs *flag.FlagSet, opts options) runFunc {
	config := fs.String("config", "", "YAML config file, or the name of a preset built in: "+strings.Join(configs.Names(), ", ")+" (default: "+configs.Default+")")
	out := fs.String("out", "", "run directory (default: runs/NAME, NAME from the config; a fresh runs/NAME.2 etc. if that exists)")
	o := addOverrides(fs, "seed", "generations", "duration", "workers", "games", "population", "depth")
	nf := addNATSFlags(fs)
	pf := addPlayerFlags(fs, true)
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if len(args) > 0 {
			return usagef("unexpected argument %q (a config goes in --config)", args[0])
		}
		if err := pf.check(); err != nil {
			return err
		}
		cfg, err := loadConfig(*config)
		if err != nil {
			return err
		}
		if err := pf.apply(cfg); err != nil {
			return err
		}
		flags, err := o.apply(cfg)
		if err != nil {
			return err
		}
		// The player's declaration gives the names, defaults and bounds
		// that the config is resolved and validated against.
		if err := pf.declare(ctx, cfg); err != nil {
			return err
		}
		// A player's run is named after the player when nothing else
		// names it (a preset, or a config without name): its directory,
		// its report's title and its params file's provenance then say
		// which player it tuned, not "quick".
		if pc := cfg.Player; pc != nil && pc.Declared != nil && (cfg.Name == "" || pf.command != "" && fromPreset(*config)) {
			cfg.Name = pc.Declared.ID
		}
		cfg.Resolve()
		if err := cfg.Validate(); err != nil {
			return flagError(err, flags)
		}
		dir := *out
		if dir == "" {
			dir = freshDir(filepath.Join("runs", cfg.Name))
		}
		if cfg.Player != nil {
			nf.player = cfg.Player.Command
		}
		pool, release, err := nf.pool(ctx, dir, stderr, opts.pool(cfg.Workers), pf.options(dir))
		if err != nil {
			return err
		}
		defer release()
		pp := &playerPools{flags: pf, dir: dir, workers: func(c *tuner.Config) int { return c.Workers }, remote: nf.remote(pool)}
		defer pp.close()
		return runTuning(ctx, stdout, stderr, pf, pp, func(ev tuner.Events) (*tuner.Run, error) {
			r, err := tuner.Create(cfg, dir, tuner.Options{Pool: pool, Events: ev, PlayerPool: pp.make})
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
