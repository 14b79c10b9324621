package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/tuner/playerpool"
)

// checkParams verifies a params file with its player: says which command
// it runs and where, before it runs it (a params file from someone else
// names a program), starts it, sets the file's parameters, asks the pinned
// boards and reports each check. override, if not "", is a --player
// command line that replaces the file's command, run from the current
// directory. A move the player no longer makes is a failure (exit 1): the
// file is well formed, the player is not the one that was tuned.
func checkParams(ctx context.Context, w io.Writer, path string, pf *eval.PlayerFile, override string, opts playerpool.Options) error {
	var b strings.Builder
	fmt.Fprintf(&b, "file:        %s\n", path)
	fmt.Fprintf(&b, "format:      %s\n", eval.FormatV2)
	fmt.Fprintf(&b, "player:      %s %s\n", pf.Player.ID, pf.Player.Version)
	fileCmd := playerpool.CommandString(pf.Player.Command)
	run := *pf
	switch {
	case override != "":
		words, err := playerpool.SplitCommand(override)
		if err != nil {
			return usagef("flag --player: %v", err)
		}
		run.Player.Command = words
		fmt.Fprintf(&b, "command:     %s   (--player, in place of the file's %s)\n", playerpool.CommandString(words), fileCmd)
	case pf.Player.Dir != "":
		opts.Dir = pf.Player.Dir
		fmt.Fprintf(&b, "command:     %s   (run in %s, where it was tuned; --player CMD runs another)\n", fileCmd, pf.Player.Dir)
	default:
		fmt.Fprintf(&b, "command:     %s   (run in the current directory: the file records none; --player CMD runs another)\n", fileCmd)
	}
	params := make([]string, len(pf.Params))
	for i, p := range pf.Params {
		params[i] = p.Name + " " + num(p.Value)
	}
	fmt.Fprintf(&b, "params:      %s\n", strings.Join(params, ", "))
	writeProvenance(&b, pf.Provenance, "starting parameters")
	// What will run is on the screen before it runs.
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	b.Reset()
	if override == "" && pf.Player.Dir != "" {
		if st, err := os.Stat(pf.Player.Dir); err != nil || !st.IsDir() {
			return fmt.Errorf("%s: the player's command %s ran in %s, which is not a directory here: give the player with --player CMD (evotune check %s --player CMD)", path, fileCmd, pf.Player.Dir, path)
		}
	}
	got, err := playerpool.Verify(ctx, &run, opts)
	if err != nil {
		if errors.Is(err, playerpool.ErrStart) && override == "" {
			where := "the current directory"
			if pf.Player.Dir != "" {
				where = pf.Player.Dir
			}
			return fmt.Errorf("%w; the file's command runs in %s: if the player is elsewhere on this machine, give it with --player CMD (evotune check %s --player CMD)", err, where, path)
		}
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
		return fmt.Errorf("%s: the player chose another move on %d of %d pinned boards: it is not the player these parameters were tuned with, or it did not load them (a player that ignores set, or reads the values in another order)", path, bad, len(pf.Checks))
	}
	return nil
}
