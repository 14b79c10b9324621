package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/evotune/evotune/tuner/natspool"
	"github.com/evotune/evotune/tuner/playerpool"
)

var workerCommand = &command{
	name:     "worker",
	synopsis: "--nats URL [--wait D] [--slots N] [--name NAME] [--nats-creds FILE] [--player CMD [--player-logs DIR] [--player-timeouts F]]",
	summary:  "play the games of tuning runs on other machines (tune --nats or --nats-listen), until stopped",
	setup:    setupWorker,
}

func setupWorker(fs *flag.FlagSet) func(context.Context, []string, io.Writer, io.Writer) error {
	url := fs.String("nats", "", "the NATS server's `URL`, as in nats://[user:password@]host:4222 (required)")
	wait := fs.Duration("wait", 0, "how long to wait for the NATS server at start, a `DURATION` as in 30s, 10m or 2h (default 0: for ever); once connected, the worker waits for ever for a server that goes away")
	slots := fs.Int("slots", 0, "games played at once (default 0: one per core)")
	name := fs.String("name", "", "the worker's `NAME` in results and messages (default HOST-PID)")
	creds := fs.String("nats-creds", "", "NATS credentials `FILE`: one line user:password or a token, or a NATS .creds file")
	pf := addPlayerFlags(fs, false)
	fs.StringVar(&pf.command, "player", "", "also play the jobs of runs of the external player this `COMMAND` runs (split as tune --player splits it): runs whose player declares the same id, version and parameters; without it the worker refuses external players' jobs")
	logs := fs.String("player-logs", "", "with --player, the `DIR` of the player's logs, slot-N.log for slot N (default worker-logs/NAME in the working directory)")
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		switch {
		case len(args) > 0:
			return usagef("unexpected argument %q", args[0])
		case *url == "":
			return usagef("flag --nats is required: the URL of the server the coordinator uses, as in nats://host:4222")
		case *wait < 0:
			return usagef("flag --wait: %v: want 0 (wait for ever) or a positive duration, as in 30s or 10m", *wait)
		case *slots < 0:
			return usagef("flag --slots: %d: want 0 (one per core) or more", *slots)
		case *logs != "" && pf.command == "":
			return usagef("flag --player-logs needs --player")
		}
		if err := pf.check(); err != nil {
			return err
		}
		var player []string
		if pf.command != "" {
			var err error
			if player, err = playerpool.SplitCommand(pf.command); err != nil {
				return usagef("flag --player: %v", err)
			}
		}
		if *name == "" {
			// natspool's default, made here because it names the log folder.
			host, _ := os.Hostname()
			*name = fmt.Sprintf("%s-%d", host, os.Getpid())
		}
		popts := pf.options("")
		popts.LogDir = *logs
		if popts.LogDir == "" {
			popts.LogDir = filepath.Join("worker-logs", *name)
		}
		var c natspool.Credentials
		if *creds != "" {
			var err error
			if c, err = natspool.ReadCredentials(*creds); err != nil {
				return badInput(fmt.Errorf("flag --nats-creds: %w", err))
			}
		}
		logf := func(format string, args ...any) { fmt.Fprintf(stderr, "worker    "+format+"\n", args...) }
		// Service managers start workers and the coordinator in any order.
		nc, err := natspool.Dial(ctx, *url, c, "evotune worker", *wait, logf)
		switch {
		case errors.Is(err, natspool.ErrAuth):
			return badInput(fmt.Errorf("flag --nats: %w", err))
		case ctx.Err() != nil:
			fmt.Fprintf(stdout, "worker    %s stopped before the NATS server came\n", *name)
			return nil
		case errors.Is(err, natspool.ErrNoServer):
			return fmt.Errorf("flag --nats: %w; is the coordinator (tune --nats-listen) or nats-server running there? --wait 0 waits for ever", err)
		case err != nil:
			return fmt.Errorf("flag --nats: %w", err)
		}
		defer nc.Close()
		w, err := natspool.NewWorker(nc, natspool.WorkerOptions{Name: *name, Slots: *slots, Logf: logf, Player: player, PlayerOptions: popts})
		if err != nil {
			return err
		}
		with := ""
		if fam, ok := w.Player(); ok {
			with = fmt.Sprintf(", player %s %s (logs in %s)", fam.ID, fam.Version, popts.LogDir)
		}
		logf("%s ready: slots %d, jobs from %s%s; Ctrl-C stops it", w.Name(), w.Slots(), natspool.Redact(*url), with)
		w.Run(ctx)
		jobs, games := w.Played()
		fmt.Fprintf(stdout, "worker    %s stopped after %d jobs, %d games\n", w.Name(), jobs, games)
		return nil
	}
}
