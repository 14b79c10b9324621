package report

import (
	"bytes"
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/tuner"
)

// The config as the run ran it. The newest checkpoint holds the config the
// run goes on with, resolved: every default filled in, and the limits a
// resume changed (--generations, --duration), which config.yaml, written
// when the run began, does not show. A value can also mean more than it
// says: the nneonneo search reads cutoff 0 as the program's 1e-4 and adds
// no move scores whatever heuristic_only says. So the page writes the
// checkpoint's config with a comment on each value that differs from
// config.yaml and on each value a search reads otherwise: what the run did,
// not what a file left to interpretation.

// configText is the run's config as the page shows it (see above).
func (r *Run) configText() (string, error) {
	now, err := configNode(r.Config)
	if err != nil {
		return "", err
	}
	var was *yaml.Node
	if r.Config0 != nil {
		if was, err = configNode(r.Config0); err != nil {
			return "", err
		}
	}
	annotate(now, was, "")
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(now); err != nil {
		return "", err
	}
	if err := enc.Close(); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// configNode is cfg as the run directory's config.yaml writes it, as a
// YAML tree.
func configNode(cfg *tuner.Config) (*yaml.Node, error) {
	yml, err := tuner.MarshalConfig(cfg)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(yml, &doc); err != nil {
		return nil, err
	}
	return doc.Content[0], nil
}

// annotate comments the values of n, a mapping or sequence of the
// checkpoint's config at path (dotted), against was, the same place in
// config.yaml (nil: not there), and the values a search reads otherwise.
func annotate(n, was *yaml.Node, path string) {
	switch n.Kind {
	case yaml.SequenceNode:
		for i, c := range n.Content {
			var w *yaml.Node
			if was != nil && was.Kind == yaml.SequenceNode && i < len(was.Content) {
				w = was.Content[i]
			}
			annotate(c, w, path+strconv.Itoa(i+1)+".")
		}
	case yaml.MappingNode:
		nneonneo := value(n, "algorithm") == string(engine.AlgorithmNneonneo)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i].Value, n.Content[i+1]
			var w *yaml.Node
			if was != nil && was.Kind == yaml.MappingNode {
				w = child(was, k)
			}
			if v.Kind != yaml.ScalarNode {
				annotate(v, w, path+k+".")
				continue
			}
			v.LineComment = changed(path+k, v, w)
			if nneonneo {
				v.LineComment = join(v.LineComment, nneonneoReads(k, v.Value))
			}
		}
	}
}

// changed says how the value v at key differs from config.yaml's, w.
func changed(key string, v, w *yaml.Node) string {
	if w == nil || w.Kind != yaml.ScalarNode || w.Value == v.Value {
		return ""
	}
	switch key {
	case "generations", "duration":
		return fmt.Sprintf("config.yaml: %s; changed by a resume's --%s", w.Value, key)
	case "workers":
		return fmt.Sprintf("config.yaml: %s; checkpoints leave it out: it changes no result", w.Value)
	}
	return "config.yaml: " + w.Value
}

// nneonneoReads says what the nneonneo search makes of a search key's
// value, where it is not what the value says.
func nneonneoReads(key, value string) string {
	switch {
	case key == "cutoff" && value == "0":
		return fmt.Sprintf("the nneonneo search: %g, the program's", engine.NneonneoCutoff)
	case key == "heuristic_only" && value == "false":
		return "the nneonneo search adds no move scores: heuristic only"
	}
	return ""
}

// value returns the scalar value of key in the mapping n, "" without one.
func value(n *yaml.Node, key string) string {
	if c := child(n, key); c != nil && c.Kind == yaml.ScalarNode {
		return c.Value
	}
	return ""
}

// child returns the value of key in the mapping n, nil without one.
func child(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}
