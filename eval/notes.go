package eval

import (
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Notes are what a file says to the people who read it, as YAML comments:
// every reader skips them, so a file with notes loads wherever the same
// file without them does, in evotune and in every port, and a note can
// change its wording without a new format version. What is for programs
// goes in keys (a figure in provenance.fitness, absent for weights not
// yet validated); what a tool says of the moment it wrote a file goes
// here. Reading a file drops its notes.
type Notes struct {
	// Head are the lines after the file's first comment line, one comment
	// line each.
	Head []string
	// Values are notes at the end of a weight's or parameter's line, by
	// name; a set's shape parameters share a line, and their notes it.
	Values map[string]string
}

// headComment is the file's first comment line followed by n's head lines.
func (n *Notes) headComment(first string) string {
	if n == nil || len(n.Head) == 0 {
		return first
	}
	lines := make([]string, len(n.Head))
	for i, l := range n.Head {
		lines[i] = oneLine(l)
	}
	return first + "\n\n" + strings.Join(lines, "\n")
}

// value returns the note of the value name, "" without one.
func (n *Notes) value(name string) string {
	if n == nil {
		return ""
	}
	return oneLine(n.Values[name])
}

// flowNote is the note of a line that holds the parameters ps (a set's
// shape parameters are written on one line): each one's note, by name.
func (n *Notes) flowNote(ps []Param) string {
	var parts []string
	for _, p := range ps {
		if v := n.value(p.Name); v != "" {
			parts = append(parts, p.Name+" "+v)
		}
	}
	return strings.Join(parts, "; ")
}

// noted returns the node v with name's note at the end of its line.
func (n *Notes) noted(name string, v *yaml.Node) *yaml.Node {
	v.LineComment = n.value(name)
	return v
}

// oneLine keeps a note on its line whatever it holds (a path, a run name).
func oneLine(s string) string { return strings.NewReplacer("\r", " ", "\n", " ").Replace(s) }
