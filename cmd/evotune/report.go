package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/evotune/evotune/tuner/report"
)

var reportCommand = &command{
	name:     "report",
	synopsis: "DIR [-o FILE]",
	summary:  "write one self-contained HTML page with the charts and tables of a run, at any time",
	setup:    setupReport,
}

func setupReport(fs *flag.FlagSet) func(context.Context, []string, io.Writer, io.Writer) error {
	out := fs.String("o", "", "output file (default: "+report.DefaultFile+" in the run directory)")
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if len(args) != 1 {
			return usagef("want one run directory, got %d arguments (usage: evotune report DIR [-o FILE])", len(args))
		}
		dir := args[0]
		if _, err := os.Stat(dir); err != nil {
			return missingRun(dir, err)
		}
		r, err := report.Load(dir)
		if errors.Is(err, report.ErrNotRun) {
			return badInput(err)
		}
		if err != nil {
			return err
		}
		for _, n := range r.Notices {
			fmt.Fprintf(stderr, "notice    %s\n", n)
		}
		dst := *out
		if dst == "" {
			dst = filepath.Join(dir, report.DefaultFile)
		}
		if err := r.WriteFile(dst); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s: generation %d, %s\n", dst, r.State.Generation, r.Status())
		return nil
	}
}
