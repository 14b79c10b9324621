package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/tuner/playerpool"
)

// checkParams verifies a params file with its player: starts the file's
// command, sets the file's parameters, asks the pinned boards and reports
// each check. A move the player no longer makes is a failure (exit 1):
// the file is well formed, the player is not the one that was tuned.
func checkParams(ctx context.Context, w io.Writer, path string, pf *eval.PlayerFile, opts playerpool.Options) error {
	var b strings.Builder
	fmt.Fprintf(&b, "file:        %s\n", path)
	fmt.Fprintf(&b, "format:      %s\n", eval.FormatV2)
	fmt.Fprintf(&b, "player:      %s %s (command: %s)\n", pf.Player.ID, pf.Player.Version, strings.Join(pf.Player.Command, " "))
	params := make([]string, len(pf.Params))
	for i, p := range pf.Params {
		params[i] = p.Name + " " + num(p.Value)
	}
	fmt.Fprintf(&b, "params:      %s\n", strings.Join(params, ", "))
	writeProvenance(&b, pf.Provenance, "starting parameters")
	got, err := playerpool.Verify(ctx, pf, opts)
	if err != nil {
		io.WriteString(w, b.String())
		return err
	}
	if len(pf.Checks) == 0 {
		fmt.Fprintf(&b, "checks:      none in the file: the player started and took the parameters, no moves to reproduce\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	bad := 0
	var lines strings.Builder
	for i, c := range pf.Checks {
		if got[i] == c.Move {
			fmt.Fprintf(&lines, "  ok        line %-4d %s  %-5s  %s\n", c.Line, c.Board.Hex(), c.Move, c.Board)
			continue
		}
		bad++
		fmt.Fprintf(&lines, "  MISMATCH  line %-4d %s  the file says %s, the player chose %s  %s\n", c.Line, c.Board.Hex(), c.Move, got[i], c.Board)
	}
	fmt.Fprintf(&b, "checks:      %d of %d moves reproduced by the player\n", len(pf.Checks)-bad, len(pf.Checks))
	b.WriteString(lines.String())
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if bad > 0 {
		return fmt.Errorf("%s: the player chose another move on %d of %d pinned boards: it is not the player these parameters were tuned with, or it did not load them", path, bad, len(pf.Checks))
	}
	return nil
}
