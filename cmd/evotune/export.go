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
	"github.com/evotune/evotune/tuner/playerpool"
)

var exportCommand = &command{
	name:     "export",
	synopsis: "DIR|CHECKPOINT|PARAMS [-o FILE] [--format yaml|cpp|set] [--stage NAME]",
	summary:  "write what a run hands over now, at any moment after tune starts (validated, or while a stage goes on not yet validated: each form says which, and why, in itself) as a weights file, or as 2048.cpp constants; a run of a player: its params file, or its set line; --stage: the winner of one stage of a ladder",
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
		fi, err := os.Stat(src)
		if err != nil {
			return missingRun(src, err)
		}
		if pf, ok, err := readParamsFile(src); ok {
			if err != nil {
				return badInput(err)
			}
			if *format != "set" {
				return usagef("%s is a params file: export --format set prints its set line", src)
			}
			return writeOut(*out, stdout, []byte(fileSetLines(pf)))
		}
		t, ckpt, notices, err := tuner.LoadCheckpoint(src)
		if err != nil {
			return err
		}
		for _, n := range notices {
			fmt.Fprintf(stderr, "notice    %s\n", n)
		}
		if *stage != "" {
			if err := selectStage(t, src, fi.IsDir(), *stage); err != nil {
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
			return exportPlayer(ctx, t, src, fi.IsDir(), *format, *out, ckpt, stdout, pf.options(""))
		}
		if *format == "set" {
			return usagef("flag --format set: the run tunes feature set %s, not a player (want yaml or cpp)", t.Config().SetName)
		}
		wf, err := t.WeightsFile()
		if err != nil {
			return err
		}
		st := t.Story()
		if *format == "cpp" {
			block, err := cppBlock(wf, src, &st)
			if err != nil {
				return err
			}
			return writeExport(stdout, *out, []byte(block), t, src, fi.IsDir(), ckpt)
		}
		dst := defaultDst(*out, src, fi.IsDir())
		data, err := wf.Marshal()
		if err != nil {
			return err
		}
		return writeExport(stdout, dst, data, t, src, fi.IsDir(), ckpt)
	}
}

// writeExport writes an export's data to dst ("" or "-": stdout, whose
// data says what it is) and, to a file, prints the line that says what it
// wrote.
func writeExport(stdout io.Writer, dst string, data []byte, t *tuner.Tuner, src string, isDir bool, ckpt string) error {
	if dst == "" || dst == "-" {
		_, err := stdout.Write(data)
		return err
	}
	if err := checkpoints.WriteFile(dst, data); err != nil {
		return err
	}
	writtenLine(stdout, t, dst, runDirOf(src, isDir), ckpt)
	return nil
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
	return filepath.Join(runDirOf(src, isDir), tuner.WeightsFile)
}

// runDirOf is the run directory of export's argument src: itself, or for a
// checkpoint file (runs/NAME/checkpoints/gen-….ckpt) runs/NAME.
func runDirOf(src string, isDir bool) string {
	if isDir {
		return src
	}
	return filepath.Dir(filepath.Dir(src))
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
// set line after comment lines that tell its story.
func exportPlayer(ctx context.Context, t *tuner.Tuner, src string, isDir bool, format, out, ckpt string, stdout io.Writer, opts playerpool.Options) error {
	switch format {
	case "cpp":
		return usagef("flag --format cpp: the run tunes player %s, not the nneonneo feature set (want yaml or set)", t.Config().Player.Declared.ID)
	case "set":
		pf, err := t.PlayerFile()
		if err != nil {
			return err
		}
		st := t.Story()
		return writeExport(stdout, out, []byte(storySetLines(&st, pf)), t, src, isDir, ckpt)
	}
	dst := defaultDst(out, src, isDir)
	if err := writePlayerParams(ctx, t, dst, stdout, opts); err != nil {
		return err
	}
	if dst == "-" {
		return nil
	}
	writtenLine(stdout, t, dst, runDirOf(src, isDir), ckpt)
	return nil
}

// writtenLine says what export wrote to dst, from the checkpoint ckpt of
// the run in runDir: what the run hands over and its status (the Story),
// and for weights not yet validated how to end the run now.
func writtenLine(stdout io.Writer, t *tuner.Tuner, dst, runDir, ckpt string) {
	st := t.Story()
	from := ckpt
	if k := t.StartKept(); k != "" {
		from += " and " + k
	}
	line := fmt.Sprintf("wrote %s: %s; %s; from %s", dst, st.What, st.Status, from)
	if !st.Validated() {
		line += fmt.Sprintf("; evotune resume %s --generations %d ends the run now, with its final race and the winner validated", runDir, t.State().Generation)
	}
	fmt.Fprintln(stdout, line)
}
