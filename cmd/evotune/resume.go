package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/evotune/evotune/checkpoints"
	"github.com/evotune/evotune/tuner"
)

var resumeCommand = &command{
	name:     "resume",
	synopsis: "DIR [--generations N] [--duration D] [--workers N] [--nats URL | --nats-listen ADDR] [--local-slots N] [--nats-creds FILE]",
	summary:  "continue an interrupted run from its newest good checkpoint, exactly as if it had not stopped",
	tuning:   setupResume,
}

func setupResume(fs *flag.FlagSet, opts options) runFunc {
	o := addOverrides(fs, "generations", "duration", "workers")
	nf := addNATSFlags(fs)
	pf := addPlayerFlags(fs, false)
	// Checkpoints leave the worker count out (it changes no result), so a
	// resumed run uses every core unless told otherwise.
	fs.Lookup("workers").Usage = "games played at once, 0 = one per core; changes no result (default: one per core)"
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if len(args) != 1 {
			return usagef("want one run directory, got %d arguments (usage: evotune resume DIR)", len(args))
		}
		dir := args[0]
		var ro tuner.ResumeOverrides
		var err error
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "generations":
				if o.generations < 0 {
					err = usagef("flag --generations: %d: want 0 (no limit) or more", o.generations)
				}
				ro.Generations = &o.generations
			case "duration":
				if o.duration < 0 {
					err = usagef("flag --duration: %v: want 0 (no limit) or more", o.duration)
				}
				ro.Duration = &o.duration
			case "workers":
				if o.workers < 0 {
					err = usagef("flag --workers: %d: want 0 (one per core) or more", o.workers)
				}
				ro.Workers = &o.workers
			}
		})
		if err != nil {
			return err
		}
		if err := pf.check(); err != nil {
			return err
		}
		if st, err := os.Stat(dir); err != nil {
			return missingRun(dir, err)
		} else if !st.IsDir() {
			return usagef("%s is not a run directory", dir)
		}
		workers := 0
		if ro.Workers != nil {
			workers = *ro.Workers
		}
		// The run's player, for the hint of how to start a worker; a config
		// that cannot be read fails the resume below, with its reason.
		if cfg, err := tuner.LoadConfig(filepath.Join(dir, "config.yaml")); err == nil && cfg.Player != nil {
			nf.player = cfg.Player.Command
		}
		pool, release, err := nf.pool(ctx, dir, stderr, opts.pool(workers), pf.options(dir))
		if err != nil {
			return err
		}
		defer release()
		// A run of an external player starts it again from the command its
		// config records, and checks that it declares what it did.
		pp := &playerPools{flags: pf, dir: dir, workers: func(c *tuner.Config) int { return c.Workers }, remote: nf.remote(pool)}
		defer pp.close()
		return runTuning(ctx, stdout, stderr, pf, pp, func(ev tuner.Events) (*tuner.Run, error) {
			var spent *tuner.SpentError
			r, err := tuner.Resume(dir, ro, tuner.Options{Pool: pool, Events: ev, PlayerPool: pp.make})
			switch {
			case errors.Is(err, checkpoints.ErrNoCheckpoint):
				return nil, fmt.Errorf("cannot resume %s: %w", dir, err)
			case errors.As(err, &spent):
				end := ""
				if !spent.Finished {
					end = fmt.Sprintf(", --generations %d ends it now", spent.Generation)
				}
				return nil, usagef("flag --duration: %v is not more than the %v %s has already spent (the budget counts that time, so the run would stop at once): --duration %v gives it an hour more%s",
					spent.Duration, tuner.RoundSpent(spent.Spent), dir, tuner.HourMore(spent.Spent), end)
			case err != nil:
				return nil, err
			}
			for _, n := range r.Notices {
				fmt.Fprintf(stderr, "notice    %s\n", n)
			}
			return r, nil
		})
	}
}

// describeResumed says where a resumed run goes on: the generation and
// stage, and the finished games its journal gives back.
func describeResumed(r *tuner.Run, journalled int) string {
	t := r.Tuner()
	s := t.State()
	at := fmt.Sprintf("at generation %d%s (%d done)", s.Generation+1, ofGenerations(t.Config()), s.Generation)
	if s.Start == nil {
		// Its figure is saved with generation 1; its games are in the
		// journal if they finished.
		at += ", the start's validation first"
	}
	if stages := t.Stages(); len(stages) > 1 {
		at += fmt.Sprintf(", stage %d/%d %q", s.Stage+1, len(stages), stages[s.Stage].Name)
	}
	switch {
	case journalled == 0 && t.Reopened():
		return at + "; the run had finished, and its new limits let it go on"
	case journalled == 0:
		return at + "; no finished game in the journal (the stop lost only the games in flight, or none)"
	}
	return fmt.Sprintf("%s; %d finished games in the journal, taken instead of played again", at, journalled)
}

// describeBudget says what a resumed run has spent, every process that
// ran it counted, and what its limits leave: the run's duration and
// generations, and its stage's budget in generations.
func describeBudget(r *tuner.Run) string {
	t := r.Tuner()
	cfg, s := t.Config(), t.State()
	spent := r.Elapsed()
	line := fmt.Sprintf("spent %v", spent.Round(time.Second))
	if cpu, ok := r.CPU(); ok {
		line += fmt.Sprintf(" (%v CPU)", cpu.Round(time.Second))
	}
	var left []string
	if d := time.Duration(cfg.Duration); d > 0 {
		left = append(left, fmt.Sprintf("%v of %v", max(d-spent, 0).Round(time.Second), d))
	}
	if n := cfg.Generations; n > 0 {
		left = append(left, fmt.Sprintf("%d of %d generations", max(n-s.Generation, 0), n))
	}
	if _, st := t.Stage(); len(t.Stages()) > 1 && st.Generations > 0 {
		left = append(left, fmt.Sprintf("%d of stage %q's %d generations", max(st.Generations-(s.Generation-s.StageGeneration), 0), st.Name, st.Generations))
	}
	if len(left) == 0 {
		return line + "; no limit: it runs until stopped"
	}
	return line + "; left " + strings.Join(left, ", ")
}
