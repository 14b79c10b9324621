// Command evotune tunes the weights of a 2048 evaluation function with
// evolutionary search. Run "evotune help" for the commands.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() { os.Exit(runWithSignals(context.Background(), options{}, os.Args[1:])) }

// runWithSignals runs the command line with options o, and with Ctrl-C and
// SIGTERM wired to cancellation of a context derived from parent.
func runWithSignals(parent context.Context, o options, args []string) int {
	ctx, stop := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.signalsReady != nil {
		o.signalsReady()
	}
	go func() {
		// The first signal cancels ctx: commands stop handing out work and
		// leave consistent files. Restoring the default handlers makes a
		// second signal end the process at once.
		<-ctx.Done()
		stop()
	}()
	return runWith(ctx, o, args, os.Stdout, os.Stderr)
}
