package main

import (
	"context"
	"fmt"
	"io"

	"github.com/evotune/evotune/tuner/playerpool"
)

// complianceCommand runs check --player: one line per point of the
// compliance check, exit 1 if any fails; opts carries the limits of
// --player-timeouts.
func complianceCommand(ctx context.Context, command string, w io.Writer, opts playerpool.Options) error {
	words, err := playerpool.SplitCommand(command)
	if err != nil {
		return usagef("flag --player: %v", err)
	}
	fmt.Fprintf(w, "player    %s\n", command)
	failed := 0
	for _, pt := range playerpool.Compliance(ctx, words, opts) {
		verdict := "ok  "
		if !pt.OK {
			verdict = "FAIL"
			failed++
		}
		fmt.Fprintf(w, "%s  %-19s %s\n", verdict, pt.Name, pt.Figure)
		if pt.Fix != "" {
			fmt.Fprintf(w, "      %-19s %s\n", "to fix", pt.Fix)
		}
	}
	if failed > 0 {
		return fmt.Errorf("player %q: %d compliance points failed (the FAIL lines above)", command, failed)
	}
	fmt.Fprintf(w, "compliant: every point passed\n")
	return nil
}
