package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/tuner"
)

// The constants of nneonneo/2048-ai's 2048.cpp that the nneonneo feature
// set tunes, in the order the program declares them, each with the weight
// (feature) or shape parameter of the set that holds its value.
var cppConstants = []struct {
	name  string
	param bool   // a shape parameter, not a weight
	of    string // the feature or parameter name
}{
	{"SCORE_LOST_PENALTY", false, "offset"},
	{"SCORE_MONOTONICITY_POWER", true, "monotonicity_power"},
	{"SCORE_MONOTONICITY_WEIGHT", false, "monotonicity"},
	{"SCORE_SUM_POWER", true, "sum_power"},
	{"SCORE_SUM_WEIGHT", false, "sum"},
	{"SCORE_MERGES_WEIGHT", false, "merges"},
	{"SCORE_EMPTY_WEIGHT", false, "empty"},
}

// cppSet is the one feature set --format cpp writes.
const cppSet = "nneonneo"

// cppBlock returns the lines of 2048.cpp that hold wf's weights and
// parameters, ready to paste over the program's own, after a comment that
// says where they go and where they came from (from: the file or run
// read). With st, the story of the run they were exported from (nil for a
// weights file), the comment says what st says: whether they are
// validated or the run is in progress, what it started from, and which
// are held; and each constant's line its start.
// The program's constants are float32, and so is the set's arithmetic
// (eval rounds weights and parameters to float32 when it compiles them):
// each value is float32 of the file's, written as the shortest decimal that
// reads back to that float32, so the program gets exactly the evaluator
// that was measured here.
func cppBlock(wf *eval.WeightsFile, from string, st *tuner.Story) (string, error) {
	if wf.SetName != cppSet {
		return "", usagef("--format cpp: %s holds %s weights; only %s weights are constants of 2048.cpp (nneonneo/2048-ai)", from, wf.SetName, cppSet)
	}
	if _, err := wf.Compile(); err != nil { // the weights must be constants the program can hold
		return "", fmt.Errorf("%s: %w", from, err)
	}
	set, err := wf.Set()
	if err != nil {
		return "", fmt.Errorf("%s: %w", from, err)
	}
	params := wf.Params
	if params == nil {
		params = set.DefaultParams()
	}
	var b strings.Builder
	b.WriteString("// 2048.cpp (nneonneo/2048-ai): these lines replace the seven SCORE_ constants under \"// Heuristic scoring settings\", above init_tables().\n")
	for _, l := range cppProvenance(wf, from, st) {
		fmt.Fprintf(&b, "// %s\n", l)
	}
	b.WriteString(cppLines(set, wf.Weights, params, cppNotes(set, wf.Search, st)))
	return b.String(), nil
}

// cppNotes returns the comment on each constant's line, by the set's
// name of its value: its start and whether the run held it, from the
// run's story st; for a file (st nil), which records no start, whether a
// tuner holds it under the file's search: the reference weight of a
// search that adds no move scores, whose scale alone it would change.
func cppNotes(set *eval.FeatureSet, search *engine.SearchConfig, st *tuner.Story) func(string) string {
	if st != nil {
		return func(name string) string {
			if i := slices.Index(st.Names, name); i >= 0 {
				return st.ValueNote(i, cppFloat)
			}
			return ""
		}
	}
	ref := ""
	if search != nil && set.ScaleInvariant && !search.ScoresMoves() {
		ref = set.Features[set.ReferenceIndex()].Name
	}
	return func(name string) string {
		if name != "" && name == ref {
			return "held: the set's reference weight, which a tuner holds under this search (no move scores: only the weights' directions matter)"
		}
		return ""
	}
}

// cppLines writes the constants of the weights w and parameters p of the
// nneonneo set s, each with its note (nil: none) at the end of its line.
func cppLines(s *eval.FeatureSet, w, p []float64, note func(name string) string) string {
	var b strings.Builder
	for _, k := range cppConstants {
		var x float64
		if k.param {
			x = p[s.ParamIndex(k.of)]
		} else {
			x = w[s.Index(k.of)]
		}
		fmt.Fprintf(&b, "static const float %s = %s;", k.name, cppFloat(x))
		if note != nil {
			if n := note(k.of); n != "" {
				b.WriteString(" // " + n)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// cppFloat writes float32(x) as a C++ float literal: the shortest decimal
// that reads back to the same float32, with a decimal point (a literal
// like 200000f is not C++) and the f suffix. The program's own constants
// come out as it writes them (200000.0f, 3.5f).
func cppFloat(x float64) string {
	s := strconv.FormatFloat(float64(float32(x)), 'g', -1, 32)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s + "f"
}

// cppProvenance says where the values came from (the run's story st, or a
// file's provenance) and what search they were tuned for, in a comment
// line each.
func cppProvenance(wf *eval.WeightsFile, from string, st *tuner.Story) []string {
	src := "From " + from
	var parts []string
	if p := wf.Provenance; p != nil {
		switch {
		case p.Run != "" && p.Generation != 0:
			src = fmt.Sprintf("From run %s, generation %d", p.Run, p.Generation)
		case p.Run != "":
			src = "From run " + p.Run + ", its starting weights"
		}
		if st == nil {
			if p.Fitness != nil {
				parts = append(parts, "validated "+cppFitness(p.Fitness))
			} else {
				parts = append(parts, "not validated: the file has no figure of them (an export of a run in progress, say)")
			}
			if p.Baseline != nil {
				parts = append(parts, "the starting weights "+cppFitness(p.Baseline))
			}
		}
	}
	lines := []string{strings.Join(append([]string{src}, parts...), "; ") + "."}
	if st != nil {
		lines = append(lines, st.Lines()...)
	}
	if s := wf.Search; s != nil {
		if s.Algorithm == engine.AlgorithmNneonneo {
			lines = append(lines, fmt.Sprintf("Tuned for the program's search at cap %d (%d plies): in score_toplevel_move, %s; CPROB_THRESH_BASE = %s.",
				(s.Depth-1)/2, s.Depth, cppDepthLimit((s.Depth-1)/2), cppFloat(s.Cutoff())))
		} else {
			lines = append(lines, fmt.Sprintf("Tuned for another search (%s, %d plies), not the program's.", s.Algorithm, s.Depth))
		}
	}
	oneLine := strings.NewReplacer("\n", " ", "\r", " ")
	for i, l := range lines { // one comment line each, whatever a run name holds
		lines[i] = oneLine.Replace(l)
	}
	return lines
}

// cppDepthLimit is the line of score_toplevel_move that caps the program's
// search at cap moves. The program's own limit, max(3, distinct tiles -
// 2), is never below 3, so a cap of 3 or less is a fixed depth, and the
// line says so rather than write a min whose max never counts.
func cppDepthLimit(cap int) string {
	if cap <= 3 {
		return fmt.Sprintf("state.depth_limit = %d; (the program's own std::max(3, count_distinct_tiles(board) - 2) is never below 3, so cap %d is a fixed depth)", cap, cap)
	}
	return fmt.Sprintf("state.depth_limit = std::min(%d, std::max(3, count_distinct_tiles(board) - 2));", cap)
}

func cppFitness(f *eval.Fitness) string {
	s := f.Metric + " " + fmtFitness(f.Mean)
	if f.CI95 != 0 {
		s += " ± " + fmtFitness(f.CI95)
	}
	if f.Games != 0 {
		s += fmt.Sprintf(" over %d games", f.Games)
	}
	return s
}
