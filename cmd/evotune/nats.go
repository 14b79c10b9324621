package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/evotune/evotune/tuner"
	"github.com/evotune/evotune/tuner/natspool"
	"github.com/evotune/evotune/tuner/playerpool"
)

// natsFlags are the flags with which tune and resume hand their games to
// workers on other machines.
type natsFlags struct {
	url, listen, creds string
	localSlots         int
	ackWait            time.Duration
	// player is the run's external player command, if any, for the hint
	// of how to start a worker: such a worker needs --player too.
	player []string
}

func addNATSFlags(fs *flag.FlagSet) *natsFlags {
	f := &natsFlags{}
	fs.StringVar(&f.url, "nats", "", "hand the games to workers (evotune worker) through the NATS server at `URL`, as in nats://[user:password@]host:4222")
	fs.StringVar(&f.listen, "nats-listen", "", "hand the games to workers through a NATS server started in this process, listening on `ADDR` (host:port; "+natspool.DefaultListen+" serves this machine only, other addresses need --nats-creds)")
	fs.StringVar(&f.creds, "nats-creds", "", "NATS credentials `FILE`: one line user:password or a token (with --nats also a NATS .creds file)")
	fs.IntVar(&f.localSlots, "local-slots", 0, "with --nats or --nats-listen, also play this many games at once in this process (default 0: workers play them all)")
	fs.DurationVar(&f.ackWait, "nats-ack-wait", natspool.DefaultAckWait, "with --nats or --nats-listen, how long a job may go without a sign of life from its worker before it goes to another: how long a dead worker delays a job (workers ping while they play, so games may take longer)")
	return f
}

// on reports whether the flags hand the games to workers.
func (f *natsFlags) on() bool { return f.url != "" || f.listen != "" }

// pool returns the pool a run in dir plays on, and what releases it: a
// pool of NATS workers when the flags ask for one, else fallback. Notices
// (the server's address, no worker taking jobs, refusals) go to stderr.
// The local slots of a run of an external player run it with local.
func (f *natsFlags) pool(ctx context.Context, dir string, stderr io.Writer, fallback tuner.Pool, local playerpool.Options) (tuner.Pool, func(), error) {
	switch {
	case f.url != "" && f.listen != "":
		return nil, nil, usagef("flags --nats and --nats-listen: give one (a server to connect to, or the address of one to start)")
	case f.url == "" && f.listen == "":
		if f.creds != "" || f.localSlots != 0 {
			return nil, nil, usagef("flags --nats-creds and --local-slots need --nats URL or --nats-listen ADDR")
		}
		return fallback, func() {}, nil
	case f.localSlots < 0:
		return nil, nil, usagef("flag --local-slots: %d: want 0 or more", f.localSlots)
	case f.ackWait < time.Second:
		return nil, nil, usagef("flag --nats-ack-wait: %v: want at least 1s", f.ackWait)
	}
	var creds natspool.Credentials
	if f.creds != "" {
		var err error
		if creds, err = natspool.ReadCredentials(f.creds); err != nil {
			return nil, nil, badInput(fmt.Errorf("flag --nats-creds: %w", err))
		}
	}
	host, _ := os.Hostname()
	release := func() {}
	url, flagName := f.url, "--nats"
	// A worker for a run of an external player must run it too.
	withPlayer := ""
	if len(f.player) > 0 {
		withPlayer = " --player " + shellQuote(playerpool.CommandString(f.player))
	}
	hint := "evotune worker --nats " + natspool.Redact(f.url) + withPlayer
	if f.listen != "" {
		flagName = "--nats-listen"
		srv, err := natspool.StartServer(f.listen, creds)
		if errors.Is(err, natspool.ErrInsecure) || errors.Is(err, natspool.ErrCredentials) || errors.Is(err, natspool.ErrAddress) {
			return nil, nil, badInput(fmt.Errorf("flag --nats-listen: %w", err))
		}
		if err != nil {
			return nil, nil, err
		}
		release = srv.Shutdown
		url = srv.URL()
		workerHost, _, _ := net.SplitHostPort(f.listen)
		if ip := net.ParseIP(workerHost); workerHost == "" || ip != nil && ip.IsUnspecified() {
			workerHost = host
		}
		hint = fmt.Sprintf("evotune worker --nats nats://%s", net.JoinHostPort(workerHost, fmt.Sprint(srv.Port())))
		if f.creds != "" {
			hint += " --nats-creds " + f.creds
		}
		hint += withPlayer
		fmt.Fprintf(stderr, "nats      serving jobs on %s; start workers with: %s\n", url, hint)
	}
	nc, err := natspool.Connect(url, creds, "evotune coordinator", func(format string, args ...any) {
		fmt.Fprintf(stderr, "nats      "+format+"\n", args...)
	})
	if err != nil {
		release()
		if errors.Is(err, natspool.ErrAuth) {
			return nil, nil, badInput(fmt.Errorf("flag %s: %w", flagName, err))
		}
		return nil, nil, fmt.Errorf("flag %s: %w", flagName, err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	p, err := natspool.NewPool(ctx, nc, natspool.Options{
		QueueOptions: natspool.QueueOptions{AckWait: f.ackWait},
		Run:          natspool.RunID(host, abs),
		LocalSlots:   f.localSlots,
		LocalName:    host + "-coordinator",
		LocalPlayer:  local,
		Notify:       func(msg string) { fmt.Fprintf(stderr, "nats      %s\n", msg) },
		Hint:         "start one with: " + hint,
	})
	if err != nil {
		nc.Close()
		release()
		return nil, nil, err
	}
	return p, func() {
		p.Close()
		nc.Close()
		release()
	}, nil
}

// remote returns pool if it is the NATS workers' pool (the flags ask for
// one), else nil.
func (f *natsFlags) remote(pool tuner.Pool) tuner.Pool {
	if f.on() {
		return pool
	}
	return nil
}

// shellQuote quotes s as one word for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
