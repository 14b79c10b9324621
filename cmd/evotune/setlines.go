package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/tuner"
)

// A set line alone cannot say what it is, so export --format set writes
// comment lines before it, as the player protocol writes comments: lines
// that begin with #. Whatever reads a set line (play --params,
// --params-file) skips them, so the output pastes and loads as it is.

// storySetLines is the set line of pf, the parameters a run hands over,
// after its story st: whether they are validated or the run is in
// progress, what it started from (each parameter's start as a set line of
// its own, commented), and which are held.
func storySetLines(st *tuner.Story, pf *eval.PlayerFile) string {
	var b strings.Builder
	for _, l := range st.Lines() {
		b.WriteString("# " + oneLine(l) + "\n")
	}
	b.WriteString("# start values: set")
	for i, name := range st.Names {
		b.WriteString(" " + name + "=" + strconv.FormatFloat(st.Starts[i], 'g', -1, 64))
	}
	b.WriteString("\n" + setLine(pf) + "\n")
	return b.String()
}

// fileSetLines is the set line of a params file after a comment line that
// says where it comes from and whether it is validated, as its provenance
// says.
func fileSetLines(pf *eval.PlayerFile) string {
	status := "not validated: the file has no figure of these parameters (an export of a run in progress, say)"
	from := "a params file"
	if p := pf.Provenance; p != nil {
		if p.Run != "" {
			from = fmt.Sprintf("run %s, generation %d", p.Run, p.Generation)
		}
		if f := p.Fitness; f != nil {
			status = fmt.Sprintf("validated: %s %s on %d validation games", f.Metric, fmtFitness(f.Mean), f.Games)
		}
	}
	return "# " + oneLine("from "+from+"; "+status) + "\n" + setLine(pf) + "\n"
}

// oneLine keeps a comment on its line whatever it holds.
func oneLine(s string) string { return strings.NewReplacer("\r", " ", "\n", " ").Replace(s) }

// withoutComments drops the comment lines (those that begin with #, after
// blanks) of what export --format set wrote, leaving the set line.
func withoutComments(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
