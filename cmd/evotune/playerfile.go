package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/evotune/evotune/checkpoints"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/tuner"
	"github.com/evotune/evotune/tuner/playerpool"
)

// playerParams returns the params file of a run of an external player:
// the tuner's parameters and provenance, with checks pinned by starting
// the player and playing the run's first validation games with them, under
// opts's limits (those of --player-timeouts: a player slow enough to need
// them in the run needs them here too).
func playerParams(ctx context.Context, t *tuner.Tuner, opts playerpool.Options) (*eval.PlayerFile, error) {
	pf, err := t.PlayerFile()
	if err != nil {
		return nil, err
	}
	fam, err := playerpool.FamilyOf(t.Config().Player)
	if err != nil {
		return nil, err
	}
	if pf.Checks, err = playerpool.Pin(ctx, fam, pf.Values(), t.PinSeeds(), t.MaxMoves(), opts); err != nil {
		return nil, fmt.Errorf("pinning the moves of the params file: %w", err)
	}
	// The command as given, and where it just ran: a relative one
	// (./player, python3 player.py) means nothing without it.
	if pf.Player.Dir, err = os.Getwd(); err != nil {
		return nil, fmt.Errorf("the params file records the directory its command ran from: %w", err)
	}
	return pf, nil
}

// writePlayerParams writes a run's params file to dst ("-": w).
func writePlayerParams(ctx context.Context, t *tuner.Tuner, dst string, w io.Writer, opts playerpool.Options) error {
	pf, err := playerParams(ctx, t, opts)
	if err != nil {
		return err
	}
	data, err := pf.Marshal()
	if err != nil {
		return err
	}
	if dst == "-" {
		_, err = w.Write(data)
		return err
	}
	return checkpoints.WriteFile(dst, data)
}

// setLine is the set line of a params file: every parameter in the file's
// order (the player's declaration order), each number in the shortest form
// that reads back exactly; an int parameter is already rounded in the file.
func setLine(pf *eval.PlayerFile) string {
	var b strings.Builder
	b.WriteString("set")
	for _, p := range pf.Params {
		b.WriteString(" " + p.Name + "=" + strconv.FormatFloat(p.Value, 'g', -1, 64))
	}
	return b.String()
}

// readParamsFile reads path when it is a params file: ok is false for any
// other file (a weights file, a checkpoint), which the caller reads its
// own way.
func readParamsFile(path string) (pf *eval.PlayerFile, ok bool, err error) {
	st, err := os.Stat(path)
	if err != nil || st.IsDir() || st.Size() > 1<<20 {
		return nil, false, nil
	}
	data, err := os.ReadFile(path)
	if err != nil || !eval.IsPlayerFile(data) {
		return nil, false, nil
	}
	pf, err = eval.ParsePlayerFile(data, path)
	return pf, true, err
}
