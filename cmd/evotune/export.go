package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/evotune/evotune/checkpoints"
	"github.com/evotune/evotune/tuner"
)

var exportCommand = &command{
	name:     "export",
	synopsis: "DIR|CHECKPOINT [-o FILE] [--format yaml|cpp]",
	summary:  "write the recommended weights of a run (its latest validated mean) as a weights file, or as 2048.cpp constants, at any time",
	setup:    setupExport,
}

func setupExport(fs *flag.FlagSet) func(context.Context, []string, io.Writer, io.Writer) error {
	out := fs.String("o", "", "output file, - for standard output (default: weights.yaml in the run directory; standard output for --format cpp)")
	format := fs.String("format", "yaml", "yaml: a weights file; cpp: the constants of 2048.cpp (nneonneo/2048-ai), for a run of the nneonneo feature set")
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if len(args) != 1 {
			return usagef("want one run directory or checkpoint file, got %d arguments (usage: evotune export DIR|CHECKPOINT [-o FILE] [--format yaml|cpp])", len(args))
		}
		if *format != "yaml" && *format != "cpp" {
			return usagef("flag --format: unknown format %q (want yaml or cpp)", *format)
		}
		src := args[0]
		st, err := os.Stat(src)
		if err != nil {
			return usagef("%v", err)
		}
		t, ckpt, notices, err := tuner.LoadCheckpoint(src)
		if err != nil {
			return err
		}
		for _, n := range notices {
			fmt.Fprintf(stderr, "notice    %s\n", n)
		}
		wf, err := t.WeightsFile()
		if err != nil {
			return err
		}
		if *format == "cpp" {
			block, err := cppBlock(wf, src)
			if err != nil {
				return err
			}
			if *out == "" || *out == "-" {
				_, err = io.WriteString(stdout, block)
				return err
			}
			return checkpoints.WriteFile(*out, []byte(block))
		}
		dst := *out
		if dst == "" {
			runDir := src
			if !st.IsDir() {
				// runs/NAME/checkpoints/gen-….ckpt belongs to runs/NAME.
				runDir = filepath.Dir(filepath.Dir(src))
			}
			dst = filepath.Join(runDir, tuner.WeightsFile)
		}
		data, err := wf.Marshal()
		if err != nil {
			return err
		}
		if dst == "-" {
			_, err = stdout.Write(data)
			return err
		}
		if err := checkpoints.WriteFile(dst, data); err != nil {
			return err
		}
		v := t.Recommended()
		what := fmt.Sprintf("the validated mean of generation %d", v.Generation)
		if v.Generation == 0 {
			what = "the starting weights (no generation validated yet)"
		}
		fmt.Fprintf(stdout, "wrote %s: %s, %s %s on %d validation games, from %s\n", dst, what, t.Metric(), fmtFitness(v.Fitness), v.Games, ckpt)
		return nil
	}
}
