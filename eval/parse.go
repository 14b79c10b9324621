package eval

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/internal/yamlx"
)

// ErrWeightsFile is wrapped by every error about the content of a weights
// file (each is a *FileError, which says where).
var ErrWeightsFile = errors.New("eval: bad weights file")

// A FileError is a problem in an input file, a weights file or a tuner
// config: "file:line: field: what is allowed", wrapping the sentinel of
// the kind of file (ErrWeightsFile, tuner.ErrConfig). It is the error type
// of internal/yamlx, the strict decoder every input file goes through,
// named here so that code outside this module can inspect it.
type FileError = yamlx.FileError

// ReadWeightsFile reads and verifies the weights file at path (see
// ParseWeights). An error reading the file is returned as "path: reason",
// wrapping the fs error (errors.Is(err, fs.ErrNotExist) works).
func ReadWeightsFile(path string) (*WeightsFile, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return ParseWeights(data, path)
}

// readFile reads a file for ReadWeightsFile and ReadPlayerFile: an error is
// "path: reason", wrapping the fs error.
func readFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s: %w", path, pe.Err)
		}
		return nil, err
	}
	return data, nil
}

// ParseWeights decodes a weights file strictly and verifies it: the format
// (FormatV1 or FormatV2), the feature set, exactly one finite weight per
// feature, in a version 2 file of a set with shape parameters every
// parameter within its bounds, the optional search (its depth as its
// algorithm counts it) and provenance, and every golden check, whose
// features under the file's parameters this implementation must reproduce
// exactly and whose value within CheckTolerance. A version 2 key (params,
// search.cutoff, ...) in a version 1 file is an error; a version 1 file of
// a set with parameters reads with the defaults (Params nil). Unknown or
// repeated keys, YAML aliases and more than one document are errors. name
// is the file name errors start with; every error is a *FileError and
// wraps ErrWeightsFile.
func ParseWeights(data []byte, name string) (*WeightsFile, error) {
	f := yamlx.File{Name: name, Root: "weights file", Kind: ErrWeightsFile}
	root, err := f.Parse(data)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, f.At(1, "", "empty file (want a mapping with format, features and weights)")
	}
	if root.Kind == yaml.MappingNode && hasKey(root, "player") {
		// A params file of an external player: say so, rather than that
		// features and weights are missing.
		return nil, f.At(1, "", "a params file of an external player, not a feature set's weights (evotune check FILE verifies it with the player)")
	}
	p := &parser{lines: yamlx.NewLines(f)}
	var doc weightsDoc
	if err := p.lines.Decode(root, "", &doc); err != nil {
		return nil, err
	}
	return p.weightsFile(&doc)
}

// maxCount bounds counts read into an int (generations, games, widths).
const maxCount = math.MaxInt32

type parser struct {
	lines      *yamlx.Lines
	format     string      // the file's format, once known
	set        *FeatureSet // the file's feature set, once known
	fileParams []float64   // the file's parameters; nil: the set's defaults
}

func (p *parser) weightsFile(doc *weightsDoc) (*WeightsFile, error) {
	l := p.lines
	wf := &WeightsFile{Format: doc.Format, SetName: doc.Features}
	if wf.Format != FormatV1 && wf.Format != FormatV2 {
		return nil, l.Errorf("format", "unknown format %q (want %s or %s)", wf.Format, FormatV1, FormatV2)
	}
	p.format = wf.Format
	for _, k := range v2Keys {
		if _, ok := l.Line(k); ok && p.format == FormatV1 {
			return nil, l.Errorf(k, "an %s key in an %s file (write format: %s to use it)", FormatV2, FormatV1, FormatV2)
		}
	}
	var err error
	if p.set, err = Set(wf.SetName); err != nil {
		return nil, l.Errorf("features", "unknown feature set %q (known: %s)", wf.SetName, strings.Join(Names(), ", "))
	}
	if wf.Weights, err = p.named(doc.Weights, "weights", "feature", p.set.FeatureNames()); err != nil {
		return nil, err
	}
	switch {
	case doc.Params != nil && len(p.set.Params) == 0:
		return nil, l.Errorf("params", "%s has no parameters (remove the key)", p.set.Name)
	case doc.Params != nil:
		if wf.Params, err = p.params(doc.Params); err != nil {
			return nil, err
		}
	case wf.Format == FormatV2 && len(p.set.Params) > 0:
		return nil, l.Errorf("", "missing key \"params\" (%s has parameters %s)", p.set.Name, strings.Join(p.set.ParamNames(), ", "))
	}
	// The checks need the features under the file's parameters, and a file
	// that loads must compile: a set may refuse weights its arithmetic
	// cannot hold.
	p.fileParams = wf.Params
	if _, err = p.set.CompileParams(wf.Weights, wf.Params); err != nil {
		return nil, l.Errorf("weights", "%s", strings.TrimPrefix(err.Error(), ErrWeights.Error()+": "))
	}
	if wf.Search, err = p.search(doc.Search, "search"); err != nil {
		return nil, err
	}
	if wf.Provenance, err = p.provenance(doc.Provenance); err != nil {
		return nil, err
	}
	if wf.Checks, err = p.checks(doc.Checks, wf.Weights); err != nil {
		return nil, err
	}
	return wf, nil
}

// params reads the shape parameters: every parameter of the set, each a
// number within its bounds.
func (p *parser) params(n *yaml.Node) ([]float64, error) {
	v, err := p.named(n, "params", "parameter", p.set.ParamNames())
	if err != nil {
		return nil, err
	}
	for i, q := range p.set.Params {
		if !(v[i] >= q.Min && v[i] <= q.Max) {
			return nil, p.lines.Errorf("params."+q.Name, "%v is out of bounds (want %g to %g)", v[i], q.Min, q.Max)
		}
	}
	return v, nil
}

// named reads the mapping n at path what from each of names (features or
// parameters: nouns) to a finite number, and returns the numbers in the
// order of names.
func (p *parser) named(n *yaml.Node, what, noun string, names []string) ([]float64, error) {
	list := strings.Join(names, ", ")
	if n.Kind != yaml.MappingNode {
		return nil, p.lines.File().Errorf(n, what, "want a mapping of %s to numbers", list)
	}
	var m map[string]float64
	if err := p.lines.Decode(n, what, &m); err != nil {
		return nil, err
	}
	for _, k := range p.lines.Keys(what) {
		if !slices.Contains(names, k) {
			line, _ := p.lines.Line(what + "." + k)
			return nil, p.lines.File().At(line, what, "unknown %s %q (%ss of %s: %s)", noun, k, noun, p.set.Name, list)
		}
	}
	v := make([]float64, len(names))
	for i, name := range names {
		x, ok := m[name]
		if !ok {
			return nil, p.lines.File().Errorf(n, what, "missing %s %q (%s needs %s)", noun, name, p.set.Name, list)
		}
		v[i] = x
	}
	return v, nil
}

// search reads a search description at path what ("search", or a
// fitness's "provenance.fitness.search"); nil if the file has none. A
// search without move_scores adds move scores (the default search); a
// weights file does not record the loss value. A search's rules are
// engine.SearchConfig.Validate's (see validSearch); the file adds its own:
// the nneonneo search needs version 2, only a beam has a width, and the
// nneonneo search adds no move scores.
func (p *parser) search(d *searchDoc, what string) (*engine.SearchConfig, error) {
	if d == nil {
		return nil, nil
	}
	l := p.lines
	si := &engine.SearchConfig{Algorithm: engine.Algorithm(d.Algorithm), Depth: d.Depth, Adaptive: d.Adaptive}
	if d.Width != nil {
		si.Width = *d.Width
	}
	if d.MoveScores != nil {
		si.HeuristicOnly = !*d.MoveScores
	}
	if d.Cutoff != nil {
		si.ProbCutoff = *d.Cutoff
	}
	if err := validSearch(*si); err != nil {
		var se *engine.SearchError
		if errors.As(err, &se) {
			return nil, l.Errorf(what+"."+se.Key, "%s", se.Msg)
		}
		return nil, l.Errorf(what, "%v", err)
	}
	switch {
	case si.Algorithm == engine.AlgorithmNneonneo && p.format == FormatV1:
		return nil, l.Errorf(what+".algorithm", "the nneonneo search needs format %s (want expectimax or beam in an %s file)", FormatV2, FormatV1)
	case si.Algorithm == engine.AlgorithmNneonneo && d.MoveScores != nil && *d.MoveScores:
		return nil, l.Errorf(what+".move_scores", "the nneonneo search adds no move scores (want false, or leave it out)")
	case d.Width != nil && si.Algorithm != engine.AlgorithmBeam:
		return nil, l.Errorf(what+".width", "only beam search has a width")
	case d.Width != nil:
		if err := p.count(what+".width", si.Width, 1, maxCount); err != nil {
			return nil, err
		}
	}
	return si, nil
}

// validSearch checks a search a weights file holds by
// engine.SearchConfig.Validate. The file may leave a beam's width out, for
// its reader to choose.
func validSearch(si engine.SearchConfig) error {
	if si.Algorithm == engine.AlgorithmBeam && si.Width == 0 {
		si.Width = 1
	}
	return si.Validate()
}

// count checks that the integer at path field is in [lo, hi].
func (p *parser) count(field string, x, lo, hi int) error {
	if x < lo || x > hi {
		return p.lines.Errorf(field, "%d is out of range (want %d to %d)", x, lo, hi)
	}
	return nil
}

func (p *parser) provenance(d *provenanceDoc) (*Provenance, error) {
	if d == nil {
		return nil, nil
	}
	pr := &Provenance{Run: d.Run, Generation: d.Generation, Optimizer: d.Optimizer, Seed: d.Seed, Evaluations: d.Evaluations, Init: d.Init}
	if err := p.count("provenance.generation", d.Generation, 0, maxCount); err != nil {
		return nil, err
	}
	if err := p.count("provenance.evaluations", d.Evaluations, 0, math.MaxInt); err != nil {
		return nil, err
	}
	var err error
	if pr.Fitness, err = p.fitness(d.Fitness, "provenance.fitness"); err != nil {
		return nil, err
	}
	if pr.Baseline, err = p.fitness(d.Baseline, "provenance.baseline"); err != nil {
		return nil, err
	}
	if st := d.Stage; st != nil {
		// provenance.stage: {index: I, of: N, name: NAME}, 1 <= I <= N.
		if err := p.count("provenance.stage.of", st.Of, 1, maxCount); err != nil {
			return nil, err
		}
		if err := p.count("provenance.stage.index", st.Index, 1, st.Of); err != nil {
			return nil, err
		}
		if st.Name == "" {
			return nil, p.lines.Errorf("provenance.stage.name", "empty (want the stage's name)")
		}
		pr.Stage = (*Stage)(st)
	}
	return pr, nil
}

func (p *parser) fitness(d *fitnessDoc, what string) (*Fitness, error) {
	if d == nil {
		return nil, nil
	}
	if d.Metric == "" {
		return nil, p.lines.Errorf(what+".metric", "empty (want e.g. mean_score)")
	}
	if d.CI95 < 0 {
		return nil, p.lines.Errorf(what+".ci95", "%v is negative (want a half-width >= 0)", d.CI95)
	}
	if err := p.count(what+".games", d.Games, 0, maxCount); err != nil {
		return nil, err
	}
	f := &Fitness{Metric: d.Metric, Mean: d.Mean, CI95: d.CI95, Games: d.Games}
	if d.Seeds != nil {
		if err := p.count(what+".seeds.count", d.Seeds.Count, 0, maxCount); err != nil {
			return nil, err
		}
		f.Seeds = (*SeedRange)(d.Seeds)
	}
	var err error
	if f.Search, err = p.search(d.Search, what+".search"); err != nil {
		return nil, err
	}
	return f, nil
}

// checks reads and verifies the golden checks against the weights w.
func (p *parser) checks(items []*yaml.Node, w []float64) ([]Check, error) {
	if items == nil {
		return nil, nil
	}
	out := make([]Check, 0, len(items))
	for i, item := range items {
		what := fmt.Sprintf("checks[%d]", i)
		var d checkDoc
		if err := p.lines.Decode(item, what, &d); err != nil {
			return nil, err
		}
		c := Check{Board: engine.Board(d.Board), Value: d.Value, Line: max(item.Line, 1)}
		var err error
		if c.Features, err = p.named(d.Features, what+".features", "feature", p.set.FeatureNames()); err != nil {
			return nil, err
		}
		// Verify: exact features, then the value within tolerance.
		got := p.set.FeatureVector(c.Board, p.fileParams, nil)
		for j, f := range p.set.Features {
			if got[j] != c.Features[j] {
				return nil, p.lines.Errorf(what+".features."+f.Name, "the file says %v, this implementation computes %v for board %s (%s)",
					c.Features[j], got[j], c.Board.Hex(), c.Board)
			}
		}
		if !valueAgrees(c.Value, w, got) {
			return nil, p.lines.Errorf(what+".value", "the file says %v, this implementation computes %v for board %s with these weights (tolerance %g relative)",
				c.Value, Value(w, got), c.Board.Hex(), CheckTolerance)
		}
		out = append(out, c)
	}
	return out, nil
}
