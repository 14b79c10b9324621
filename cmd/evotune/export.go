package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/evotune/evotune/checkpoints"
	"github.com/evotune/evotune/tuner"
	"github.com/evotune/evotune/tuner/playerpool"
)

var exportCommand = &command{
	name:     "export",
	synopsis: "DIR|CHECKPOINT|PARAMS [-o FILE] [--format yaml|cpp|set] [--stage NAME]",
	summary:  "write the recommended weights of a run (the winner of its final race, validated; while it goes on, the average of its last means, not yet validated) as a weights file, or as 2048.cpp constants, at any time; a run of a player: its params file, or its set line; --stage: the winner of one stage of a ladder",
	setup:    setupExport,
}

func setupExport(fs *flag.FlagSet) func(context.Context, []string, io.Writer, io.Writer) error {
	out := fs.String("o", "", "output file, - for standard output (default: weights.yaml in the run directory; standard output for --format cpp)")
	format := fs.String("format", "yaml", "yaml: a weights file (a params file for a run of a player); cpp: the constants of 2048.cpp (nneonneo/2048-ai), for a run of the nneonneo feature set; set: the set line of a player's parameters, for a run of a player or a params file")
	stage := fs.String("stage", "", "a stage of a ladder, by `NAME` or number from 1: write the winner of its final race, validated with its search, read from the run's history, instead of the run's result (default file: weights-NAME.yaml in the run directory)")
	pf := addPlayerFlags(fs, false)
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if err := pf.check(); err != nil {
			return err
		}
		if len(args) != 1 {
			return usagef("want one run directory or checkpoint file, got %d arguments (usage: evotune export DIR|CHECKPOINT [-o FILE] [--format yaml|cpp])", len(args))
		}
		if *format != "yaml" && *format != "cpp" && *format != "set" {
			return usagef("flag --format: unknown format %q (want yaml, cpp or set)", *format)
		}
		src := args[0]
		st, err := os.Stat(src)
		if err != nil {
			return usagef("%v", err)
		}
		if pf, ok, err := readParamsFile(src); ok {
			if err != nil {
				return badInput(err)
			}
			if *format != "set" {
				return usagef("%s is a params file: export --format set prints its set line", src)
			}
			return writeOut(*out, stdout, []byte(setLine(pf)+"\n"))
		}
		t, ckpt, notices, err := tuner.LoadCheckpoint(src)
		if err != nil {
			return err
		}
		for _, n := range notices {
			fmt.Fprintf(stderr, "notice    %s\n", n)
		}
		if *stage != "" {
			if err := selectStage(t, src, st.IsDir(), *stage); err != nil {
				return err
			}
			name := t.Stages()[t.Handover().Stage].Name
			ckpt = fmt.Sprintf("the final race of stage %s in %s", name, filepath.Join(src, tuner.HistoryFile))
			if *out == "" && *format == "yaml" {
				// Beside the run's own result, which it leaves alone.
				*out = filepath.Join(src, "weights-"+name+".yaml")
			}
		}
		if t.Config().Player != nil {
			return exportPlayer(ctx, t, src, st.IsDir(), *format, *out, ckpt, stdout, pf.options(""))
		}
		if *format == "set" {
			return usagef("flag --format set: the run tunes feature set %s, not a player (want yaml or cpp)", t.Config().SetName)
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
		dst := defaultDst(*out, src, st.IsDir())
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
		writtenLine(stdout, t, dst, ckpt, "weights")
		return nil
	}
}

// selectStage makes t's handover the winner of the stage a user named
// (export --stage), read from the history of the run directory src.
func selectStage(t *tuner.Tuner, src string, isDir bool, name string) error {
	if !isDir {
		return usagef("flag --stage: %s is a file; give the run directory, whose %s has every stage's winner", src, tuner.HistoryFile)
	}
	i, err := t.StageIndex(name)
	if err != nil {
		return usagef("flag --stage: %v", err)
	}
	path := filepath.Join(src, tuner.HistoryFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return badInput(fmt.Errorf("flag --stage: %w", err))
	}
	if err := t.SelectStage(data, i); err != nil {
		return badInput(fmt.Errorf("flag --stage: %s: %w", path, err))
	}
	return nil
}

// defaultDst is where export writes: -o, else the run directory's
// weights.yaml.
func defaultDst(out, src string, isDir bool) string {
	if out != "" {
		return out
	}
	runDir := src
	if !isDir {
		// runs/NAME/checkpoints/gen-….ckpt belongs to runs/NAME.
		runDir = filepath.Dir(filepath.Dir(src))
	}
	return filepath.Join(runDir, tuner.WeightsFile)
}

// writeOut writes data to the file out, or to w for "" and "-".
func writeOut(out string, w io.Writer, data []byte) error {
	if out == "" || out == "-" {
		_, err := w.Write(data)
		return err
	}
	return checkpoints.WriteFile(out, data)
}

// exportPlayer exports a run of an external player: its params file
// (which starts the player, under opts's limits, to pin its moves), or its
// set line.
func exportPlayer(ctx context.Context, t *tuner.Tuner, src string, isDir bool, format, out, ckpt string, stdout io.Writer, opts playerpool.Options) error {
	switch format {
	case "cpp":
		return usagef("flag --format cpp: the run tunes player %s, not the nneonneo feature set (want yaml or set)", t.Config().Player.Declared.ID)
	case "set":
		pf, err := t.PlayerFile()
		if err != nil {
			return err
		}
		return writeOut(out, stdout, []byte(setLine(pf)+"\n"))
	}
	dst := defaultDst(out, src, isDir)
	if err := writePlayerParams(ctx, t, dst, stdout, opts); err != nil {
		return err
	}
	if dst == "-" {
		return nil
	}
	writtenLine(stdout, t, dst, ckpt, "parameters")
	return nil
}

// writtenLine says what export wrote to dst: the weights handed over
// (noun: weights or parameters), their validation or that they have none
// yet, and the checkpoint they came from.
func writtenLine(stdout io.Writer, t *tuner.Tuner, dst, ckpt, noun string) {
	v := t.Handover()
	what := fmt.Sprintf("the validated mean of generation %d", v.Generation)
	if v.Average > 0 {
		what = fmt.Sprintf("the validated average of the means of generations %d-%d", v.Generation-v.Average+1, v.Generation)
	}
	if v.Generation == 0 && v.Average == 0 {
		what = "the starting " + noun + " (no generation recommended yet)"
	}
	if v.Games == 0 {
		what = strings.Replace(what, "the validated ", "the ", 1)
		dir := filepath.Dir(filepath.Dir(ckpt)) // DIR/checkpoints/FILE
		fmt.Fprintf(stdout, "wrote %s: %s, not yet validated: the run goes on, and measures what it recommends when it ends (evotune resume %s --generations %d ends it now), from %s\n", dst, what, dir, t.State().Generation, ckpt)
		return
	}
	fmt.Fprintf(stdout, "wrote %s: %s, %s %s on %d validation games, from %s\n", dst, what, t.Metric(), fmtFitness(v.Fitness), v.Games, ckpt)
}
