package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/tuner/playerpool"
)

var playerCommand = &command{
	name:     "player",
	synopsis: "[--weights FILE | --eval NAME] [--search expectimax|beam|nneonneo] [--depth N] [--width K] [--cutoff P] [--table BITS] [--adaptive] [--loss V] [--protocol 1|2]",
	summary:  "serve a built-in player over the player protocol (evotune-player/1, or /2 with parameter sets) on standard input and output",
	setup:    setupPlayer,
}

// setupPlayer serves a feature set under a search, the reference player
// of the protocol: its parameters are the set's weights (bounded by
// playerpool.WeightBound times their defaults) and shape parameters (with
// the set's bounds), its defaults those of --eval or the weights file.
func setupPlayer(fs *flag.FlagSet) runFunc {
	sf := addSearchFlags(fs, "with --weights: the file's", "width", "cutoff", "table", "adaptive", "loss")
	ef := addEvalFlags(fs)
	version := fs.Int("protocol", 2, fmt.Sprintf("the protocol `VERSION` to speak: 2 declares %d parameter sets (\"protocol 2 %d\" after id), so that a request carries the games of several candidates; 1 declares none", playerpool.DefaultSets, playerpool.DefaultSets))
	return func(ctx context.Context, args []string, stdout, _ io.Writer) error {
		if len(args) > 0 {
			return usagef("unexpected argument %q", args[0])
		}
		if *version != 1 && *version != 2 {
			return usagef("flag --protocol: %d: want 1 or 2", *version)
		}
		set, v, err := ef.loadVector()
		if err != nil {
			return err
		}
		cfg, err := sf.merge(ef.fileSearch(), ef.weights, false)
		if err != nil {
			return err
		}
		p, err := playerpool.NewSearchPlayer(set, cfg, v)
		if err != nil {
			return badInput(err)
		}
		if *version == 1 {
			return playerpool.Serve(ctx, os.Stdin, stdout, playerpool.VersionOne(p))
		}
		return playerpool.Serve(ctx, os.Stdin, stdout, p)
	}
}

// loadVector returns the feature set and the vector (weights, then shape
// parameters) that --weights or --eval names, as load does for an
// evaluator.
func (f *evalFlags) loadVector() (*eval.FeatureSet, []float64, error) {
	if f.weights == "" {
		set, err := eval.Set(f.name)
		if err != nil {
			return nil, nil, usagef("flag --eval: unknown evaluator %q (want %s)", f.name, strings.Join(eval.Names(), ", "))
		}
		return set, set.DefaultVector(), nil
	}
	if _, _, err := f.load(); err != nil {
		return nil, nil, err
	}
	set, err := f.file.Set()
	if err != nil {
		return nil, nil, badInput(fmt.Errorf("%s: %w", f.weights, err))
	}
	p := f.file.Params
	if p == nil {
		p = set.DefaultParams()
	}
	return set, append(append([]float64(nil), f.file.Weights...), p...), nil
}
