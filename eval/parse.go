package eval

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"

	"github.com/evotune/evotune/engine"
)

// ErrWeightsFile is wrapped by every error about the content of a weights
// file (each is a *WeightsError, which says where).
var ErrWeightsFile = errors.New("eval: bad weights file")

// A WeightsError is a problem in a weights file, at a line.
type WeightsError struct {
	File string
	Line int // 1-based
	Msg  string
}

func (e *WeightsError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Is makes errors.Is(err, ErrWeightsFile) hold for every WeightsError.
func (e *WeightsError) Is(target error) bool { return target == ErrWeightsFile }

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

// ParseWeights decodes a weights file strictly and verifies it: the format,
// the feature set, exactly one finite weight per feature, the optional
// search and provenance, and every golden check, whose features this
// implementation must reproduce exactly and whose value within
// CheckTolerance. Unknown or repeated keys, YAML aliases and more than one
// document are errors. name is the file name errors start with; every error
// is a *WeightsError and wraps ErrWeightsFile.
func ParseWeights(data []byte, name string) (*WeightsFile, error) {
	p := &parser{file: name}
	if err := p.scanText(data); err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil, p.at(1, "empty file (want a mapping with format, features and weights)")
		}
		return nil, p.yamlError(err, data)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		return nil, p.at(max(extra.Line, 1), "a second YAML document (want exactly one)")
	case err != io.EOF:
		return nil, p.yamlError(err, data)
	}
	if len(doc.Content) != 1 {
		return nil, p.at(max(doc.Line, 1), "want a mapping with format, features and weights")
	}
	return p.weightsFile(doc.Content[0])
}

type parser struct {
	file string
	set  *FeatureSet
}

func (p *parser) at(line int, format string, args ...any) error {
	return &WeightsError{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) errorf(n *yaml.Node, format string, args ...any) error {
	return p.at(max(n.Line, 1), format, args...)
}

// scanText rejects what YAML cannot carry (invalid UTF-8, control
// characters) with the line it is on; the YAML decoder's own message would
// not say where.
func (p *parser) scanText(data []byte) error {
	line := 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return p.at(line, "invalid UTF-8 (a weights file is UTF-8 text)")
		case isBreak(r):
			if r == '\r' && i+1 < len(data) && data[i+1] == '\n' {
				size++
			}
			line++
		case r == '\t' || r == 0xFEFF:
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) && r != 0x85 || r == 0xFFFE || r == 0xFFFF:
			return p.at(line, "control character %U (not allowed in YAML)", r)
		}
		i += size
	}
	return nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
var yamlAnchor = regexp.MustCompile(`^yaml: unknown anchor '(.*)' referenced$`)

// yamlParserProblems are the problems the YAML parser (as opposed to its
// scanner) reports. For them the decoder's "line N" counts from 0 and names
// the line where the enclosing collection starts.
var yamlParserProblems = []string{
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"did not find expected '-' indicator",
	"did not find expected <document start>",
	"did not find expected <stream-start>",
	"did not find expected key",
	"did not find expected node content",
	"found duplicate %TAG directive",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
	"found undefined tag handle",
}

// yamlError turns a decoder error into a WeightsError. The decoder says
// "line N" (from 1 for scanner problems, from 0 for parser problems) except
// for problems on the first line, at the end of the input, and for unknown
// aliases, whose lines are found here.
func (p *parser) yamlError(err error, data []byte) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		if slices.Contains(yamlParserProblems, m[2]) {
			line++
		}
		// A problem at the end of the input is on the line after the
		// last.
		line = min(line, lineCount(data))
		return p.at(max(line, 1), "invalid YAML: %s", m[2])
	}
	line := 1
	switch {
	case strings.Contains(msg, "end of stream"):
		line = lineCount(data)
	case yamlAnchor.MatchString(msg):
		if i := bytes.Index(data, []byte("*"+yamlAnchor.FindStringSubmatch(msg)[1])); i >= 0 {
			line = 1 + bytes.Count(data[:i], []byte("\n"))
		}
	}
	return p.at(line, "invalid YAML: %s", strings.TrimPrefix(msg, "yaml: "))
}

// lineCount returns the number of the last line of data, at least 1,
// counting line breaks as YAML does (see isBreak).
func lineCount(data []byte) int {
	n, last := 1, true
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		last = false
		if isBreak(r) {
			if r == '\r' && i+1 < len(data) && data[i+1] == '\n' {
				size++
			}
			n++
			last = true
		}
		i += size
	}
	if last && n > 1 {
		n-- // a final line break does not start a line
	}
	return n
}

// isBreak reports whether YAML reads r as a line break: LF, CR (CR LF
// counts once), NEL, LS and PS.
func isBreak(r rune) bool {
	return r == '\n' || r == '\r' || r == 0x85 || r == 0x2028 || r == 0x2029
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
			return nil, p.errorf(k, "%s: a %s must be a plain name (%s: %s)", what, noun, label, strings.Join(allowed, ", "))
		}
		if !slices.Contains(allowed, k.Value) {
			return nil, p.errorf(k, "%s: unknown %s %q (%s: %s)", what, noun, k.Value, label, strings.Join(allowed, ", "))
		}
		if _, dup := out[k.Value]; dup {
			return nil, p.errorf(k, "%s: %s %q appears twice", what, noun, k.Value)
		}
		out[k.Value] = v
	}
	return out, nil
}

// kind checks a node's kind, rejecting aliases by name.
func (p *parser) kind(n *yaml.Node, k yaml.Kind, what, want string) error {
	switch {
	case n.Kind == yaml.AliasNode:
		return p.errorf(n, "%s: YAML aliases are not allowed (want %s)", what, want)
	case n.Kind != k:
		return p.errorf(n, "%s: want %s", what, want)
	}
	return nil
}

func (p *parser) required(m map[string]*yaml.Node, parent *yaml.Node, what string, keys ...string) error {
	for _, k := range keys {
		if m[k] == nil {
			return p.errorf(parent, "%s: missing key %q", what, k)
		}
	}
	return nil
}

func (p *parser) text(n *yaml.Node, what string) (string, error) {
	if err := p.kind(n, yaml.ScalarNode, what, "a string"); err != nil {
		return "", err
	}
	if n.ShortTag() != "!!str" {
		return "", p.errorf(n, "%s: %q is not a string", what, n.Value)
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
		return 0, p.errorf(n, "%s: %q is not a number", what, n.Value)
	}
	x, err := strconv.ParseFloat(n.Value, 64)
	if err != nil {
		if derr := n.Decode(&x); derr != nil {
			return 0, p.errorf(n, "%s: %q is not a number", what, n.Value)
		}
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, p.errorf(n, "%s: %s is not finite (want a finite number)", what, n.Value)
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
		return 0, p.errorf(n, "%s: %q is not an integer (want %d to %d)", what, n.Value, lo, hi)
	}
	if i < lo || i > hi {
		return 0, p.errorf(n, "%s: %d is out of range (want %d to %d)", what, i, lo, hi)
	}
	return i, nil
}

func (p *parser) unsigned(n *yaml.Node, what string) (uint64, error) {
	if err := p.kind(n, yaml.ScalarNode, what, "an integer"); err != nil {
		return 0, err
	}
	var u uint64
	if n.ShortTag() != "!!int" || n.Decode(&u) != nil {
		return 0, p.errorf(n, "%s: %q is not an integer (want 0 to %d)", what, n.Value, uint64(math.MaxUint64))
	}
	return u, nil
}

// maxCount bounds counts read into an int (generations, games, widths).
const maxCount = math.MaxInt32

func (p *parser) weightsFile(root *yaml.Node) (*WeightsFile, error) {
	m, err := p.fields(root, "weights file", "format", "features", "weights", "search", "provenance", "checks")
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
	if wf.Format != FormatV1 {
		return nil, p.errorf(m["format"], "format: unknown format %q (want %s)", wf.Format, FormatV1)
	}
	if wf.Features, err = p.text(m["features"], "features"); err != nil {
		return nil, err
	}
	if p.set, err = Set(wf.Features); err != nil {
		return nil, p.errorf(m["features"], "features: unknown feature set %q (known: %s)", wf.Features, strings.Join(Names(), ", "))
	}
	if wf.Weights, _, err = p.featureValues(m["weights"], "weights"); err != nil {
		return nil, err
	}
	if n := m["search"]; n != nil {
		if wf.Search, err = p.search(n); err != nil {
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
			return nil, nil, p.errorf(n, "%s: missing feature %q (%s needs %s)", what, name, p.set.Name, strings.Join(names, ", "))
		}
		if v[i], err = p.number(x, what+"."+name); err != nil {
			return nil, nil, err
		}
	}
	return v, m, nil
}

func (p *parser) search(n *yaml.Node) (*SearchInfo, error) {
	m, err := p.fields(n, "search", "algorithm", "depth", "width", "move_scores")
	if err != nil {
		return nil, err
	}
	if err := p.required(m, n, "search", "algorithm", "depth"); err != nil {
		return nil, err
	}
	si := &SearchInfo{}
	if si.Algorithm, err = p.text(m["algorithm"], "search.algorithm"); err != nil {
		return nil, err
	}
	if si.Algorithm != "expectimax" && si.Algorithm != "beam" {
		return nil, p.errorf(m["algorithm"], "search.algorithm: unknown algorithm %q (want expectimax or beam)", si.Algorithm)
	}
	d, err := p.integer(m["depth"], "search.depth", 1, 255)
	if err != nil {
		return nil, err
	}
	si.Depth = int(d)
	if x := m["width"]; x != nil {
		if si.Algorithm != "beam" {
			return nil, p.errorf(x, "search.width: only beam search has a width")
		}
		w, err := p.integer(x, "search.width", 1, maxCount)
		if err != nil {
			return nil, err
		}
		si.Width = int(w)
	}
	if x := m["move_scores"]; x != nil {
		var b bool
		if err := p.kind(x, yaml.ScalarNode, "search.move_scores", "true or false"); err != nil {
			return nil, err
		}
		if x.ShortTag() != "!!bool" || x.Decode(&b) != nil {
			return nil, p.errorf(x, "search.move_scores: %q is not true or false", x.Value)
		}
		si.MoveScores = &b
	}
	return si, nil
}

func (p *parser) provenance(n *yaml.Node) (*Provenance, error) {
	m, err := p.fields(n, "provenance", "run", "generation", "optimizer", "seed", "evaluations", "fitness", "baseline")
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
	return pr, nil
}

func (p *parser) fitness(n *yaml.Node, what string) (*Fitness, error) {
	m, err := p.fields(n, what, "metric", "mean", "ci95", "games", "seeds")
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
		return nil, p.errorf(m["metric"], "%s.metric: empty (want e.g. mean_score)", what)
	}
	if f.Mean, err = p.number(m["mean"], what+".mean"); err != nil {
		return nil, err
	}
	if x := m["ci95"]; x != nil {
		if f.CI95, err = p.number(x, what+".ci95"); err != nil {
			return nil, err
		}
		if f.CI95 < 0 {
			return nil, p.errorf(x, "%s.ci95: %v is negative (want a half-width >= 0)", what, f.CI95)
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
			return nil, p.errorf(bn, "%s.board: %v", what, strings.TrimPrefix(err.Error(), engine.ErrBoard.Error()+": "))
		}
		var fm map[string]*yaml.Node
		if c.Features, fm, err = p.featureValues(m["features"], what+".features"); err != nil {
			return nil, err
		}
		if c.Value, err = p.number(m["value"], what+".value"); err != nil {
			return nil, err
		}
		// Verify: exact features, then the value within tolerance.
		got := p.set.Vector(c.Board, nil)
		for j, f := range p.set.Features {
			if got[j] != c.Features[j] {
				return nil, p.errorf(fm[f.Name], "%s.features.%s: the file says %v, this implementation computes %v for board %s (%s)",
					what, f.Name, c.Features[j], got[j], c.Board.Hex(), c.Board)
			}
		}
		if !valueAgrees(c.Value, w, got) {
			return nil, p.errorf(m["value"], "%s.value: the file says %v, this implementation computes %v for board %s with these weights (tolerance %g relative)",
				what, c.Value, Value(w, got), c.Board.Hex(), CheckTolerance)
		}
		out = append(out, c)
	}
	return out, nil
}
