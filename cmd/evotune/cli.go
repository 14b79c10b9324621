package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/evotune/evotune/tuner"
)

// Exit statuses, as docs/commands.md ("Exit status") documents them.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// A command is one subcommand: its flags live in a FlagSet of its own that
// setup fills, and run receives the arguments left after flag parsing.
type command struct {
	name     string
	synopsis string // arguments, shown after the name in usage lines
	summary  string // one line for "evotune help"
	// setup defines the flags on fs and returns the function that runs the
	// command once they are parsed.
	setup func(fs *flag.FlagSet) runFunc
	// tuning replaces setup in the commands that run a tuning (tune,
	// resume): they alone depend on the program's options.
	tuning func(fs *flag.FlagSet, o options) runFunc
}

// runFunc runs a command with the arguments left after its flags.
type runFunc = func(ctx context.Context, args []string, stdout, stderr io.Writer) error

// define defines c's flags on fs and returns what runs c.
func (c *command) define(fs *flag.FlagSet, o options) runFunc {
	if c.tuning != nil {
		return c.tuning(fs, o)
	}
	return c.setup(fs)
}

// options are what a program embedding the command line may change; the
// zero value is the evotune binary's.
type options struct {
	// newPool, if not nil, makes the pool that tune and resume play on,
	// instead of the local pool, unless a NATS flag hands the games to
	// workers: how the tests count, watch or interrupt a run's games.
	newPool func(workers int) tuner.Pool
	// signalsReady, if not nil, is called once Ctrl-C and SIGTERM cancel
	// the command instead of killing the process: the crash tests wait
	// for it before they interrupt a child, which a loaded machine may
	// start slowly.
	signalsReady func()
}

// pool returns the pool a run of workers workers plays on without NATS:
// newPool's, or nil for the tuner's local pool.
func (o options) pool(workers int) tuner.Pool {
	if o.newPool == nil {
		return nil
	}
	return o.newPool(workers)
}

var commands = []*command{
	tuneCommand,
	resumeCommand,
	exportCommand,
	playCommand,
	playerCommand,
	searchCommand,
	checkCommand,
	compareCommand,
	optbenchCommand,
	tunebenchCommand,
	objectiveCommand,
	reportCommand,
	workerCommand,
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// exitError carries the exit status a failure should produce.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usagef reports bad usage or bad input: exit status 2.
func usagef(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// badInput marks err (already carrying where) as bad input: exit status 2.
func badInput(err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: exitUsage, err: err}
}

// run is the whole program behind main, testable without a process.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runWith(ctx, options{}, args, stdout, stderr)
}

// runWith is run with options o.
func runWith(ctx context.Context, o options, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printHelp(stderr)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) == 0 {
			printHelp(stdout)
			return exitOK
		}
		if c := lookup(rest[0]); c != nil {
			name, rest = rest[0], []string{"-h"}
		} else {
			fmt.Fprintf(stderr, "evotune help: unknown command %q (commands: %s)\n", rest[0], commandNames())
			return exitUsage
		}
	}
	c := lookup(name)
	if c == nil {
		fmt.Fprintf(stderr, "evotune: unknown command %q (commands: %s; see evotune help)\n", name, commandNames())
		return exitUsage
	}
	fs := flag.NewFlagSet("evotune "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	do := c.define(fs, o)
	fs.Usage = func() {} // help is printed below, once
	if err := fs.Parse(interleave(fs, rest)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			commandUsage(stdout, c, fs)
			return exitOK
		}
		fmt.Fprintf(stderr, "evotune %s: %v (see evotune %s -h)\n", c.name, flagParseError(fs, err), c.name)
		return exitUsage
	}
	err := do(ctx, fs.Args(), stdout, stderr)
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "evotune %s: %v\n", c.name, err)
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		return ee.code
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	default:
		return exitFailure
	}
}

// interleave moves positional arguments after the flags, so that
// "evotune export runs/quick -o w.yaml" works like the documented synopsis
// even though the flag package stops at the first positional argument.
func interleave(fs *flag.FlagSet, args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue
		}
		if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
			continue
		}
		if i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	return append(flags, pos...)
}

func commandNames() string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}

func printHelp(w io.Writer) {
	fmt.Fprint(w, `evotune tunes the weights of a 2048 evaluation function with evolutionary search.

Usage:
  evotune COMMAND [flags] [arguments]

Commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Run "evotune COMMAND -h" for a command's flags, their defaults and units.
Exit status: 0 success, 1 failure, 2 bad usage or bad input, 130 interrupted.
`)
}

func commandUsage(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: evotune %s %s\n\n%s\n", c.name, c.synopsis, c.summary)
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		return
	}
	fmt.Fprint(w, "\nFlags:\n")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}
