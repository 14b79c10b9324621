// Command evotune tunes the weights of a 2048 evaluation function with
// evolutionary search. Run "evotune help" for the commands.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/evotune/evotune/internal/proctree"
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
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		// The first signal cancels ctx: commands stop handing out work,
		// end their players and peers and leave consistent files. A
		// second one ends every player and peer at once (a process in a
		// process group or Job object of its own would outlive a plain
		// exit) and then the process; what is saved is saved atomically,
		// so nothing saved is lost.
		select {
		case <-ctx.Done():
		case <-finished:
			return
		}
		again := make(chan os.Signal, 1)
		signal.Notify(again, os.Interrupt, syscall.SIGTERM) // before stop: no moment without a handler
		stop()
		fmt.Fprintln(os.Stderr, "evotune: stopping after the work in flight (Ctrl-C again to stop at once)")
		select {
		case <-again:
		case <-finished:
			signal.Stop(again)
			return
		}
		proctree.KillAll()
		fmt.Fprintln(os.Stderr, "evotune: interrupted again: players killed, stopping at once; the last checkpoint stands")
		os.Exit(exitFailure)
	}()
	return runWith(ctx, o, args, os.Stdout, os.Stderr)
}
