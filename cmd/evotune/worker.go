package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/evotune/evotune/tuner/natspool"
)

var workerCommand = &command{
	name:     "worker",
	synopsis: "--nats URL [--slots N] [--name NAME] [--nats-creds FILE]",
	summary:  "play the games of tuning runs on other machines (tune --nats or --nats-listen), until stopped",
	setup:    setupWorker,
}

func setupWorker(fs *flag.FlagSet) func(context.Context, []string, io.Writer, io.Writer) error {
	url := fs.String("nats", "", "the NATS server's `URL`, as in nats://[user:password@]host:4222 (required)")
	slots := fs.Int("slots", 0, "games played at once (default 0: one per core)")
	name := fs.String("name", "", "the worker's `NAME` in results and messages (default HOST-PID)")
	creds := fs.String("nats-creds", "", "NATS credentials `FILE`: one line user:password or a token, or a NATS .creds file")
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		switch {
		case len(args) > 0:
			return usagef("unexpected argument %q", args[0])
		case *url == "":
			return usagef("flag --nats is required: the URL of the server the coordinator uses, as in nats://host:4222")
		case *slots < 0:
			return usagef("flag --slots: %d: want 0 (one per core) or more", *slots)
		}
		var c natspool.Credentials
		if *creds != "" {
			var err error
			if c, err = natspool.ReadCredentials(*creds); err != nil {
				return badInput(fmt.Errorf("flag --nats-creds: %w", err))
			}
		}
		logf := func(format string, args ...any) { fmt.Fprintf(stderr, "worker    "+format+"\n", args...) }
		nc, err := natspool.Connect(*url, c, "evotune worker", logf)
		if errors.Is(err, natspool.ErrAuth) {
			return badInput(fmt.Errorf("flag --nats: %w", err))
		}
		if err != nil {
			return fmt.Errorf("flag --nats: %w", err)
		}
		defer nc.Close()
		w, err := natspool.NewWorker(nc, natspool.WorkerOptions{Name: *name, Slots: *slots, Logf: logf})
		if err != nil {
			return err
		}
		logf("%s ready: slots %d, jobs from %s; Ctrl-C stops it", w.Name(), w.Slots(), natspool.Redact(*url))
		w.Run(ctx)
		jobs, games := w.Played()
		fmt.Fprintf(stdout, "worker    %s stopped after %d jobs, %d games\n", w.Name(), jobs, games)
		return nil
	}
}
