package eval

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/evotune/evotune/engine"
)

// ErrWeightsFile is wrapped by every error about the content of a weights
// file (each is a *FileError, which says where).
var ErrWeightsFile = errors.New("eval: bad weights file")

// ReadWeightsFile reads and verifies the weights file at path (see
// ParseWeights). An error reading the file is returned as "path: reason",
// wrapping the fs error (errors.Is(err, fs.ErrNotExist) works).
func ReadWeightsFile(path string) (*WeightsFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s: %w", path, pe.Err)
		}
		return nil, err
	}
	return ParseWeights(data, path)
}

// ParseWeights decodes a weights file strictly and verifies it: the format
// (FormatV1 or FormatV2), the feature set, exactly one finite weight per
// feature, in a version 2 file of a set with shape parameters every
// parameter within its bounds, the optional search (its depth as its
// algorithm counts it) and provenance, and every golden check, whose
// features under the file's parameters this implementation must reproduce
// exactly and whose value within CheckTolerance. A version 2 key (params,
// search.cutoff) in a version 1 file is an error; a version 1 file of a set
// with parameters reads with the defaults (Params nil). Unknown or repeated keys, YAML aliases and more than one
// document are errors. name is the file name errors start with; every error
// is a *FileError and wraps ErrWeightsFile.
func ParseWeights(data []byte, name string) (*WeightsFile, error) {
	p := &parser{YAMLFile: YAMLFile{File: name, Kind: ErrWeightsFile}}
	root, err := p.Parse(data)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, p.At(1, "", "empty file (want a mapping with format, features and weights)")
	}
	return p.weightsFile(root)
}

type parser struct {
	YAMLFile
	format   string      // the file's format, once known
	set      *FeatureSet // the file's feature set, once known
	compiled *Compiled   // a set with parameters: the file's weights and parameters
}

// fields checks that n is a mapping whose keys are distinct and among
// allowed, and returns the value node of each key present.
func (p *parser) fields(n *yaml.Node, what string, allowed ...string) (map[string]*yaml.Node, error) {
	return p.fieldsOf(n, what, "key", "allowed", allowed)
}

// fieldsOf is fields with the words of its messages: an unknown <noun>
// (<label>: <allowed>).
func (p *parser) fieldsOf(n *yaml.Node, what, noun, label string, allowed []string) (map[string]*yaml.Node, error) {
	if err := p.kind(n, yaml.MappingNode, what, "a mapping"); err != nil {
		return nil, err
	}
	out := make(map[string]*yaml.Node, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, p.Errorf(k, what, "a %s must be a plain name (%s: %s)", noun, label, strings.Join(allowed, ", "))
		}
		if !slices.Contains(allowed, k.Value) {
			return nil, p.Errorf(k, what, "unknown %s %q (%s: %s)", noun, k.Value, label, strings.Join(allowed, ", "))
		}
		if _, dup := out[k.Value]; dup {
			return nil, p.Errorf(k, what, "%s %q appears twice", noun, k.Value)
		}
		out[k.Value] = v
	}
	return out, nil
}

// kind checks a node's kind, rejecting aliases by name.
func (p *parser) kind(n *yaml.Node, k yaml.Kind, what, want string) error {
	switch {
	case n.Kind == yaml.AliasNode:
		return p.Errorf(n, what, "YAML aliases are not allowed (want %s)", want)
	case n.Kind != k:
		return p.Errorf(n, what, "want %s", want)
	}
	return nil
}

func (p *parser) required(m map[string]*yaml.Node, parent *yaml.Node, what string, keys ...string) error {
	for _, k := range keys {
		if m[k] == nil {
			return p.Errorf(parent, what, "missing key %q", k)
		}
	}
	return nil
}

func (p *parser) text(n *yaml.Node, what string) (string, error) {
	if err := p.kind(n, yaml.ScalarNode, what, "a string"); err != nil {
		return "", err
	}
	if n.ShortTag() != "!!str" {
		return "", p.Errorf(n, what, "%q is not a string", n.Value)
	}
	return n.Value, nil
}

// number reads a finite float64. It parses the text with strconv, which
// reads every float Marshal writes back to the same bits ("-0" included,
// which YAML would read as the integer 0); other YAML number forms (0x1f,
// 1_000) go through the YAML decoder.
func (p *parser) number(n *yaml.Node, what string) (float64, error) {
	if err := p.kind(n, yaml.ScalarNode, what, "a number"); err != nil {
		return 0, err
	}
	if tag := n.ShortTag(); tag != "!!int" && tag != "!!float" {
		return 0, p.Errorf(n, what, "%q is not a number", n.Value)
	}
	x, err := strconv.ParseFloat(n.Value, 64)
	if err != nil {
		if derr := n.Decode(&x); derr != nil {
			return 0, p.Errorf(n, what, "%q is not a number", n.Value)
		}
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, p.Errorf(n, what, "%s is not finite (want a finite number)", n.Value)
	}
	return x, nil
}

// integer reads an integer in [lo, hi].
func (p *parser) integer(n *yaml.Node, what string, lo, hi int64) (int64, error) {
	if err := p.kind(n, yaml.ScalarNode, what, "an integer"); err != nil {
		return 0, err
	}
	var i int64
	if n.ShortTag() != "!!int" || n.Decode(&i) != nil {
		return 0, p.Errorf(n, what, "%q is not an integer (want %d to %d)", n.Value, lo, hi)
	}
	if i < lo || i > hi {
		return 0, p.Errorf(n, what, "%d is out of range (want %d to %d)", i, lo, hi)
	}
	return i, nil
}

func (p *parser) unsigned(n *yaml.Node, what string) (uint64, error) {
	if err := p.kind(n, yaml.ScalarNode, what, "an integer"); err != nil {
		return 0, err
	}
	var u uint64
	if n.ShortTag() != "!!int" || n.Decode(&u) != nil {
		return 0, p.Errorf(n, what, "%q is not an integer (want 0 to %d)", n.Value, uint64(math.MaxUint64))
	}
	return u, nil
}

// maxCount bounds counts read into an int (generations, games, widths).
const maxCount = math.MaxInt32

// The top-level keys of each format version; params is the only key
// version 2 adds (search.cutoff is the other addition).
var (
	keysV1 = []string{"format", "features", "weights", "search", "provenance", "checks"}
	keysV2 = []string{"format", "features", "weights", "params", "search", "provenance", "checks"}
)

// formatOf returns the format a mapping states, if it is a known one; ""
// otherwise (weightsFile then reports what is wrong with it).
func formatOf(root *yaml.Node) string {
	if root.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k, v := root.Content[i], root.Content[i+1]; k.Kind == yaml.ScalarNode && k.Value == "format" && v.Kind == yaml.ScalarNode {
			if v.Value == FormatV1 || v.Value == FormatV2 {
				return v.Value
			}
		}
	}
	return ""
}

// v2Key returns the error for a version 2 key in a version 1 file.
func (p *parser) v2Key(n *yaml.Node, what string) error {
	return p.Errorf(n, what, "an %s key in an %s file (write format: %s to use it)", FormatV2, FormatV1, FormatV2)
}

func (p *parser) weightsFile(root *yaml.Node) (*WeightsFile, error) {
	p.format = formatOf(root)
	keys := keysV2
	if p.format == FormatV1 {
		keys = keysV1
		for i := 0; i+1 < len(root.Content); i += 2 {
			if k := root.Content[i]; k.Kind == yaml.ScalarNode && k.Value == "params" {
				return nil, p.v2Key(k, "params")
			}
		}
	}
	m, err := p.fields(root, "weights file", keys...)
	if err != nil {
		return nil, err
	}
	if err := p.required(m, root, "weights file", "format", "features", "weights"); err != nil {
		return nil, err
	}
	wf := &WeightsFile{}
	if wf.Format, err = p.text(m["format"], "format"); err != nil {
		return nil, err
	}
	if wf.Format != FormatV1 && wf.Format != FormatV2 {
		return nil, p.Errorf(m["format"], "format", "unknown format %q (want %s or %s)", wf.Format, FormatV1, FormatV2)
	}
	if wf.Features, err = p.text(m["features"], "features"); err != nil {
		return nil, err
	}
	if p.set, err = Set(wf.Features); err != nil {
		return nil, p.Errorf(m["features"], "features", "unknown feature set %q (known: %s)", wf.Features, strings.Join(Names(), ", "))
	}
	if wf.Weights, _, err = p.featureValues(m["weights"], "weights"); err != nil {
		return nil, err
	}
	if n := m["params"]; n != nil {
		if wf.Params, err = p.params(n); err != nil {
			return nil, err
		}
	} else if wf.Format == FormatV2 && len(p.set.Params) > 0 {
		return nil, p.Errorf(root, "weights file", "missing key \"params\" (%s has parameters %s)", p.set.Name, strings.Join(p.set.ParamNames(), ", "))
	}
	if len(p.set.Params) > 0 {
		// The checks need the features under the file's parameters, and a
		// file that loads must compile: the set may refuse weights its
		// arithmetic cannot hold.
		if p.compiled, err = p.set.CompileParams(wf.Weights, wf.Params); err != nil {
			return nil, p.Errorf(m["weights"], "weights", "%s", strings.TrimPrefix(err.Error(), ErrWeights.Error()+": "))
		}
	}
	if n := m["search"]; n != nil {
		if wf.Search, err = p.search(n, "search"); err != nil {
			return nil, err
		}
	}
	if n := m["provenance"]; n != nil {
		if wf.Provenance, err = p.provenance(n); err != nil {
			return nil, err
		}
	}
	if n := m["checks"]; n != nil {
		if wf.Checks, err = p.checks(n, wf.Weights); err != nil {
			return nil, err
		}
	}
	return wf, nil
}

// params reads the shape parameters: every parameter of the set, each a
// number within its bounds.
func (p *parser) params(n *yaml.Node) ([]float64, error) {
	s := p.set
	names := s.ParamNames()
	if len(names) == 0 {
		return nil, p.Errorf(n, "params", "%s has no parameters (remove the key)", s.Name)
	}
	if err := p.kind(n, yaml.MappingNode, "params", "a mapping of "+strings.Join(names, ", ")+" to numbers"); err != nil {
		return nil, err
	}
	m, err := p.fieldsOf(n, "params", "parameter", "parameters of "+s.Name, names)
	if err != nil {
		return nil, err
	}
	v := make([]float64, len(names))
	for i, q := range s.Params {
		x := m[q.Name]
		if x == nil {
			return nil, p.Errorf(n, "params", "missing parameter %q (%s needs %s)", q.Name, s.Name, strings.Join(names, ", "))
		}
		if v[i], err = p.number(x, "params."+q.Name); err != nil {
			return nil, err
		}
		if !(v[i] >= q.Min && v[i] <= q.Max) {
			return nil, p.Errorf(x, "params."+q.Name, "%s is out of bounds (want %g to %g)", x.Value, q.Min, q.Max)
		}
	}
	return v, nil
}

// featureValues reads a mapping from every feature of the set to a finite
// number: the numbers in the set's order, and the value node of each name.
func (p *parser) featureValues(n *yaml.Node, what string) ([]float64, map[string]*yaml.Node, error) {
	names := p.set.FeatureNames()
	if err := p.kind(n, yaml.MappingNode, what, "a mapping of "+strings.Join(names, ", ")+" to numbers"); err != nil {
		return nil, nil, err
	}
	m, err := p.fieldsOf(n, what, "feature", "features of "+p.set.Name, names)
	if err != nil {
		return nil, nil, err
	}
	v := make([]float64, len(names))
	for i, name := range names {
		x := m[name]
		if x == nil {
			return nil, nil, p.Errorf(n, what, "missing feature %q (%s needs %s)", name, p.set.Name, strings.Join(names, ", "))
		}
		if v[i], err = p.number(x, what+"."+name); err != nil {
			return nil, nil, err
		}
	}
	return v, m, nil
}

// search reads a weights file's search. A file without move_scores is read
// as the default search, which adds move scores; the loss value is not
// recorded.
// search reads a search description at path what ("search", or a
// fitness's "provenance.fitness.search").
func (p *parser) search(n *yaml.Node, what string) (*engine.SearchConfig, error) {
	if p.format == FormatV1 && n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Kind == yaml.ScalarNode && (k.Value == "cutoff" || k.Value == "adaptive") {
				return nil, p.v2Key(k, what+"."+k.Value)
			}
		}
	}
	keys := []string{"algorithm", "depth", "width", "move_scores"}
	if p.format != FormatV1 {
		keys = append(keys, "cutoff", "adaptive")
	}
	m, err := p.fields(n, what, keys...)
	if err != nil {
		return nil, err
	}
	if err := p.required(m, n, what, "algorithm", "depth"); err != nil {
		return nil, err
	}
	si := &engine.SearchConfig{}
	name, err := p.text(m["algorithm"], what+".algorithm")
	if err != nil {
		return nil, err
	}
	if si.Algorithm, err = engine.ParseAlgorithm(name); err != nil {
		return nil, p.Errorf(m["algorithm"], what+".algorithm", "%v", err)
	}
	if si.Algorithm == engine.AlgorithmNneonneo && p.format == FormatV1 {
		return nil, p.Errorf(m["algorithm"], what+".algorithm", "the nneonneo search needs format %s (want expectimax or beam in an %s file)", FormatV2, FormatV1)
	}
	d, err := p.integer(m["depth"], what+".depth", engine.MinDepth, engine.MaxDepth)
	if err != nil {
		return nil, err
	}
	si.Depth = int(d)
	if err := si.Algorithm.CheckDepth(si.Depth); err != nil {
		return nil, p.Errorf(m["depth"], what+".depth", "%v", err)
	}
	if x := m["width"]; x != nil {
		if si.Algorithm != engine.AlgorithmBeam {
			return nil, p.Errorf(x, what+".width", "only beam search has a width")
		}
		w, err := p.integer(x, what+".width", 1, maxCount)
		if err != nil {
			return nil, err
		}
		si.Width = int(w)
	}
	if x := m["move_scores"]; x != nil {
		var b bool
		if err := p.kind(x, yaml.ScalarNode, what+".move_scores", "true or false"); err != nil {
			return nil, err
		}
		if x.ShortTag() != "!!bool" || x.Decode(&b) != nil {
			return nil, p.Errorf(x, what+".move_scores", "%q is not true or false", x.Value)
		}
		if b && si.Algorithm == engine.AlgorithmNneonneo {
			return nil, p.Errorf(x, what+".move_scores", "the nneonneo search adds no move scores (want false, or leave it out)")
		}
		si.HeuristicOnly = !b
	}
	if x := m["adaptive"]; x != nil {
		if err := p.kind(x, yaml.ScalarNode, what+".adaptive", "true or false"); err != nil {
			return nil, err
		}
		if x.ShortTag() != "!!bool" || x.Decode(&si.Adaptive) != nil {
			return nil, p.Errorf(x, what+".adaptive", "%q is not true or false", x.Value)
		}
		if si.Adaptive && si.Algorithm != engine.AlgorithmExpectimax {
			return nil, p.Errorf(x, what+".adaptive", "only the expectimax search has this option")
		}
	}
	if x := m["cutoff"]; x != nil {
		if si.ProbCutoff, err = p.number(x, what+".cutoff"); err != nil {
			return nil, err
		}
		if !(si.ProbCutoff >= 0 && si.ProbCutoff < 1) {
			off := "0 (off)"
			if si.Algorithm == engine.AlgorithmNneonneo {
				off = "0 (the program's 1e-4)"
			}
			return nil, p.Errorf(x, what+".cutoff", "%s is out of range (want %s or a probability in (0, 1))", x.Value, off)
		}
	}
	return si, nil
}

func (p *parser) provenance(n *yaml.Node) (*Provenance, error) {
	keys := []string{"run", "generation", "optimizer", "seed", "evaluations", "init", "fitness", "baseline"}
	if p.format == FormatV1 && n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Kind == yaml.ScalarNode && k.Value == "stage" {
				return nil, p.v2Key(k, "provenance.stage")
			}
		}
	}
	if p.format != FormatV1 {
		keys = append(keys, "stage")
	}
	m, err := p.fields(n, "provenance", keys...)
	if err != nil {
		return nil, err
	}
	pr := &Provenance{}
	if x := m["run"]; x != nil {
		if pr.Run, err = p.text(x, "provenance.run"); err != nil {
			return nil, err
		}
	}
	if x := m["generation"]; x != nil {
		g, err := p.integer(x, "provenance.generation", 0, maxCount)
		if err != nil {
			return nil, err
		}
		pr.Generation = int(g)
	}
	if x := m["optimizer"]; x != nil {
		if pr.Optimizer, err = p.text(x, "provenance.optimizer"); err != nil {
			return nil, err
		}
	}
	if x := m["seed"]; x != nil {
		if pr.Seed, err = p.unsigned(x, "provenance.seed"); err != nil {
			return nil, err
		}
	}
	if x := m["evaluations"]; x != nil {
		e, err := p.integer(x, "provenance.evaluations", 0, math.MaxInt64)
		if err != nil {
			return nil, err
		}
		pr.Evaluations = int(e)
	}
	if x := m["init"]; x != nil {
		if pr.Init, err = p.text(x, "provenance.init"); err != nil {
			return nil, err
		}
	}
	if x := m["fitness"]; x != nil {
		if pr.Fitness, err = p.fitness(x, "provenance.fitness"); err != nil {
			return nil, err
		}
	}
	if x := m["baseline"]; x != nil {
		if pr.Baseline, err = p.fitness(x, "provenance.baseline"); err != nil {
			return nil, err
		}
	}
	if x := m["stage"]; x != nil {
		if pr.Stage, err = p.stage(x, "provenance.stage"); err != nil {
			return nil, err
		}
	}
	return pr, nil
}

// stage reads provenance.stage: {index: I, of: N, name: NAME}, 1 <= I <= N.
func (p *parser) stage(n *yaml.Node, what string) (*Stage, error) {
	m, err := p.fields(n, what, "index", "of", "name")
	if err != nil {
		return nil, err
	}
	if err := p.required(m, n, what, "index", "of", "name"); err != nil {
		return nil, err
	}
	of, err := p.integer(m["of"], what+".of", 1, maxCount)
	if err != nil {
		return nil, err
	}
	i, err := p.integer(m["index"], what+".index", 1, of)
	if err != nil {
		return nil, err
	}
	st := &Stage{Index: int(i), Of: int(of)}
	if st.Name, err = p.text(m["name"], what+".name"); err != nil {
		return nil, err
	}
	if st.Name == "" {
		return nil, p.Errorf(m["name"], what+".name", "empty (want the stage's name)")
	}
	return st, nil
}

func (p *parser) fitness(n *yaml.Node, what string) (*Fitness, error) {
	keys := []string{"metric", "mean", "ci95", "games", "seeds"}
	if p.format != FormatV1 {
		keys = append(keys, "search")
	}
	m, err := p.fields(n, what, keys...)
	if err != nil {
		return nil, err
	}
	if err := p.required(m, n, what, "metric", "mean"); err != nil {
		return nil, err
	}
	f := &Fitness{}
	if f.Metric, err = p.text(m["metric"], what+".metric"); err != nil {
		return nil, err
	}
	if f.Metric == "" {
		return nil, p.Errorf(m["metric"], what+".metric", "empty (want e.g. mean_score)")
	}
	if f.Mean, err = p.number(m["mean"], what+".mean"); err != nil {
		return nil, err
	}
	if x := m["ci95"]; x != nil {
		if f.CI95, err = p.number(x, what+".ci95"); err != nil {
			return nil, err
		}
		if f.CI95 < 0 {
			return nil, p.Errorf(x, what+".ci95", "%v is negative (want a half-width >= 0)", f.CI95)
		}
	}
	if x := m["games"]; x != nil {
		g, err := p.integer(x, what+".games", 0, maxCount)
		if err != nil {
			return nil, err
		}
		f.Games = int(g)
	}
	if x := m["seeds"]; x != nil {
		sm, err := p.fields(x, what+".seeds", "first", "count")
		if err != nil {
			return nil, err
		}
		if err := p.required(sm, x, what+".seeds", "first", "count"); err != nil {
			return nil, err
		}
		r := &SeedRange{}
		if r.First, err = p.unsigned(sm["first"], what+".seeds.first"); err != nil {
			return nil, err
		}
		c, err := p.integer(sm["count"], what+".seeds.count", 0, maxCount)
		if err != nil {
			return nil, err
		}
		r.Count = int(c)
		f.Seeds = r
	}
	if x := m["search"]; x != nil {
		if f.Search, err = p.search(x, what+".search"); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// checks reads and verifies the golden checks against the weights w.
func (p *parser) checks(n *yaml.Node, w []float64) ([]Check, error) {
	if err := p.kind(n, yaml.SequenceNode, "checks", "a list of {board, features, value}"); err != nil {
		return nil, err
	}
	out := make([]Check, 0, len(n.Content))
	for i, item := range n.Content {
		what := fmt.Sprintf("checks[%d]", i)
		m, err := p.fields(item, what, "board", "features", "value")
		if err != nil {
			return nil, err
		}
		if err := p.required(m, item, what, "board", "features", "value"); err != nil {
			return nil, err
		}
		c := Check{Line: max(item.Line, 1)}
		bn := m["board"]
		if err := p.kind(bn, yaml.ScalarNode, what+".board", `a board, "0x..." or "2 4 8 16/32 64 0 0/..."`); err != nil {
			return nil, err
		}
		if c.Board, err = engine.ParseBoard(bn.Value); err != nil {
			return nil, p.Errorf(bn, what+".board", "%v", strings.TrimPrefix(err.Error(), engine.ErrBoard.Error()+": "))
		}
		var fm map[string]*yaml.Node
		if c.Features, fm, err = p.featureValues(m["features"], what+".features"); err != nil {
			return nil, err
		}
		if c.Value, err = p.number(m["value"], what+".value"); err != nil {
			return nil, err
		}
		// Verify: exact features, then the value within tolerance.
		var got []float64
		if p.compiled != nil {
			got = p.compiled.Features(c.Board, nil)
		} else {
			got = p.set.Vector(c.Board, nil)
		}
		for j, f := range p.set.Features {
			if got[j] != c.Features[j] {
				return nil, p.Errorf(fm[f.Name], what+".features."+f.Name, "the file says %v, this implementation computes %v for board %s (%s)",
					c.Features[j], got[j], c.Board.Hex(), c.Board)
			}
		}
		if !valueAgrees(c.Value, w, got) {
			return nil, p.Errorf(m["value"], what+".value", "the file says %v, this implementation computes %v for board %s with these weights (tolerance %g relative)",
				c.Value, Value(w, got), c.Board.Hex(), CheckTolerance)
		}
		out = append(out, c)
	}
	return out, nil
}
