package eval

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"

	yaml "go.yaml.in/yaml/v3"

	"github.com/evotune/evotune/engine"
)

// The format lines of weights files. Version 2 adds the shape parameters
// of sets that have them (params) and the search options version 1 cannot
// say (the nneonneo search, a probability cutoff). Marshal writes version 2
// exactly when a file needs it, so a file version 1 can hold stays
// readable by every version 1 reader.
const (
	FormatV1 = "evotune.weights/v1"
	FormatV2 = "evotune.weights/v2"
)

// A WeightsFile is the content of a weights file: a feature set, one weight
// per feature and, optionally, what the weights were tuned for, where they
// came from, and golden checks. docs/weights-file.md describes the
// format for other engines.
type WeightsFile struct {
	// Format is the format line read; Marshal writes the version the
	// content needs (see FormatV2) whatever it says, but rejects an unknown
	// one.
	Format  string
	SetName string // the feature set's name, under the key features
	// Weights has one weight per feature, in the set's order (the file maps
	// feature names to weights; it is written in the set's order).
	Weights []float64
	// Params has one value per shape parameter of the set, in its order;
	// nil means the set's defaults (always nil for a set without
	// parameters). Reading a version 2 file of a set with parameters sets it.
	Params     []float64
	Search     *engine.SearchConfig // optional; see Marshal for what is written
	Provenance *Provenance          // optional
	// Checks are the golden vectors. When reading, every check has been
	// verified. When writing, the checks are computed again from the
	// weights for the same boards, or for CheckBoards if there are none.
	Checks []Check
	// Notes are written as comments (see Notes); nil when reading.
	Notes *Notes
}

// Provenance records where the weights came from. Every field is optional
// and omitted from the file when zero.
type Provenance struct {
	Run         string // the tuning run's name
	Generation  int    // the generation whose distribution mean these weights are
	Optimizer   string // e.g. "cmaes", "cem"
	Seed        uint64 // the run seed every game seed derives from
	Evaluations int    // candidate evaluations spent
	// Init names the weights file the run started from, when it did not
	// start from the set's defaults or weights written in its config.
	Init string
	// Fitness is these weights' figure on validation games; Baseline is
	// the starting weights' figure on the same games, for comparison.
	Fitness  *Fitness
	Baseline *Fitness
	// Stage is the stage of a staged run the weights were tuned in (its
	// search is the file's search); nil for a run without stages. Format 2.
	Stage *Stage
}

// Stage names one stage of a run that was a ladder of searches.
type Stage struct {
	Index int    // from 1
	Of    int    // the run's stages
	Name  string // the stage's name in the run's config
}

// Fitness is a measured figure of a weight vector.
type Fitness struct {
	Metric string     // e.g. "mean_score", "median_score", "mean_log_score", "reach:2048"
	Mean   float64    // the metric's value
	CI95   float64    // half-width of its 95% confidence interval; 0 = not recorded
	Games  int        // games played
	Seeds  *SeedRange // the game seeds used; nil = not recorded
	// Search is the search the figure was measured with, when it is not
	// the file's own search (weights tuned at 3 plies and validated at 5,
	// say); nil means the file's search.
	Search *engine.SearchConfig
}

// SeedRange is Count consecutive game indices from First (the game seeds
// derive from them and the run seed).
type SeedRange struct {
	First uint64
	Count int
}

// NewWeightsFile returns a weights file for the weights w and shape
// parameters p of s (nil: the defaults), with golden checks on CheckBoards
// computed under p. It copies w and p, and fails if they do not compile.
// Marshal and ParseWeights find the set by the name the file gives, so a
// set of one's own must be registered (Register) to write or read its
// files.
func NewWeightsFile(s *FeatureSet, w, p []float64) (*WeightsFile, error) {
	if _, err := s.CompileParams(w, p); err != nil {
		return nil, err
	}
	wf := &WeightsFile{Format: FormatV1, SetName: s.Name, Weights: slices.Clone(w)}
	if len(s.Params) > 0 {
		wf.Format = FormatV2
		wf.Params = slices.Clone(s.params(p))
	}
	for _, b := range CheckBoards() {
		wf.Checks = append(wf.Checks, makeCheck(s, wf.Weights, wf.Params, b))
	}
	return wf, nil
}

// Set returns the file's feature set, the registered set it names.
func (wf *WeightsFile) Set() (*FeatureSet, error) { return Set(wf.SetName) }

// Compile compiles the file's weights under its parameters.
func (wf *WeightsFile) Compile() (engine.Evaluator, error) {
	s, err := wf.Set()
	if err != nil {
		return nil, err
	}
	return s.CompileParams(wf.Weights, wf.Params)
}

// NeedsV2 reports whether the file says something version 1 cannot: shape
// parameters, the nneonneo search, a probability cutoff, a figure measured
// with another search, or the stage of a staged run.
func (wf *WeightsFile) NeedsV2() bool {
	if s, err := wf.Set(); err == nil && len(s.Params) > 0 {
		return true
	}
	if p := wf.Provenance; p != nil && (p.Stage != nil || p.Fitness != nil && p.Fitness.Search != nil || p.Baseline != nil && p.Baseline.Search != nil) {
		return true
	}
	return wf.Search != nil && (wf.Search.Algorithm == engine.AlgorithmNneonneo || wf.Search.ProbCutoff != 0 || wf.Search.Adaptive)
}

// Marshal returns the YAML form of wf, with golden checks computed from
// its weights under its parameters (see WeightsFile.Checks), in FormatV2
// exactly when NeedsV2 and in FormatV1 otherwise. Floats are written in the shortest
// form that reads back bit for bit. The result is verified by reading it
// back, so whatever Marshal returns, ParseWeights accepts. Writing the bytes
// to disk is the caller's: a run directory's files all go through one
// atomic writer (checkpoints.WriteFile), which eval does not import.
func (wf *WeightsFile) Marshal() ([]byte, error) {
	if wf.Format != "" && wf.Format != FormatV1 && wf.Format != FormatV2 {
		return nil, fmt.Errorf("eval: cannot write weights: unknown format %q (want %s or %s)", wf.Format, FormatV1, FormatV2)
	}
	s, err := wf.Set()
	if err != nil {
		return nil, fmt.Errorf("eval: cannot write weights: %w", err)
	}
	if len(wf.Params) != 0 && len(s.Params) == 0 {
		return nil, fmt.Errorf("eval: cannot write weights: %w: %s has no parameters, got %d values", ErrParams, s.Name, len(wf.Params))
	}
	if _, err := s.CompileParams(wf.Weights, wf.Params); err != nil {
		return nil, fmt.Errorf("eval: cannot write weights: %w", err)
	}
	params := s.params(wf.Params)
	format := FormatV1
	if wf.NeedsV2() {
		format = FormatV2
	}
	root := &yaml.Node{Kind: yaml.MappingNode}
	add := func(key string, v *yaml.Node) { root.Content = append(root.Content, str(key), v) }
	add("format", str(format))
	add("features", str(s.Name))
	add("weights", featureMap(s, wf.Weights, 0, wf.Notes))
	if len(s.Params) > 0 {
		n := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
		for i, x := range params {
			n.Content = append(n.Content, str(s.Params[i].Name), float(x))
		}
		n.LineComment = wf.Notes.flowNote(s.Params)
		add("params", n)
	}
	if si := wf.Search; si != nil {
		// What the weights were tuned for matters to an engine that loads
		// them: tuned weights are only good for the search that tuned them,
		// and when the search adds move scores their scale matters too. The
		// file says move_scores, the positive form, for other engines.
		n, err := searchNode(si)
		if err != nil {
			return nil, err
		}
		add("search", n)
	}
	if p := wf.Provenance; p != nil {
		n, err := provenanceNode(p)
		if err != nil {
			return nil, err
		}
		add("provenance", n)
	}
	boards := CheckBoards()
	if len(wf.Checks) > 0 {
		boards = boards[:0]
		for _, c := range wf.Checks {
			boards = append(boards, c.Board)
		}
	}
	checks := &yaml.Node{Kind: yaml.SequenceNode}
	for _, b := range boards {
		c := makeCheck(s, wf.Weights, params, b)
		if math.IsInf(c.Value, 0) || math.IsNaN(c.Value) {
			return nil, fmt.Errorf("eval: cannot write weights: %w: %s: weights too large: the value of board %s overflows", ErrWeights, s.Name, b.Hex())
		}
		n := &yaml.Node{Kind: yaml.MappingNode}
		n.Content = append(n.Content,
			str("board"), &yaml.Node{Kind: yaml.ScalarNode, Style: yaml.DoubleQuotedStyle, Value: b.Hex(), LineComment: b.String()},
			str("features"), featureMap(s, c.Features, yaml.FlowStyle, nil),
			str("value"), float(c.Value))
		checks.Content = append(checks.Content, n)
	}
	add("checks", checks)

	doc := &yaml.Node{
		Kind:        yaml.DocumentNode,
		HeadComment: wf.Notes.headComment("evotune weights: the format and the features are defined in docs/weights-file.md (github.com/evotune/evotune)"),
		Content:     []*yaml.Node{root},
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("eval: cannot write weights: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("eval: cannot write weights: %w", err)
	}
	if _, err := ParseWeights(buf.Bytes(), "(written weights)"); err != nil {
		return nil, fmt.Errorf("eval: cannot write weights: %w", err)
	}
	return buf.Bytes(), nil
}

// searchNode writes a search description as a flow mapping.
func searchNode(si *engine.SearchConfig) (*yaml.Node, error) {
	if err := validSearch(*si); err != nil {
		return nil, fmt.Errorf("eval: cannot write weights: search: %w", err)
	}
	cutoff := si.Cutoff() // the one the search uses: nneonneo's 0 is written as its 1e-4
	n := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
	n.Content = append(n.Content, str("algorithm"), str(string(si.Algorithm)), str("depth"), integer(int64(si.Depth)))
	if si.Algorithm == engine.AlgorithmBeam && si.Width != 0 {
		n.Content = append(n.Content, str("width"), integer(int64(si.Width)))
	}
	n.Content = append(n.Content, str("move_scores"), boolean(si.ScoresMoves()))
	if cutoff != 0 {
		n.Content = append(n.Content, str("cutoff"), float(cutoff))
	}
	if si.Adaptive {
		n.Content = append(n.Content, str("adaptive"), boolean(true))
	}
	return n, nil
}

func provenanceNode(p *Provenance) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	if p.Run != "" {
		n.Content = append(n.Content, str("run"), str(p.Run))
	}
	if p.Generation != 0 {
		n.Content = append(n.Content, str("generation"), integer(int64(p.Generation)))
	}
	if p.Optimizer != "" {
		n.Content = append(n.Content, str("optimizer"), str(p.Optimizer))
	}
	if p.Seed != 0 {
		n.Content = append(n.Content, str("seed"), &yaml.Node{Kind: yaml.ScalarNode, Value: strconv.FormatUint(p.Seed, 10)})
	}
	if p.Evaluations != 0 {
		n.Content = append(n.Content, str("evaluations"), integer(int64(p.Evaluations)))
	}
	if p.Init != "" {
		n.Content = append(n.Content, str("init"), str(p.Init))
	}
	for _, f := range []struct {
		key string
		f   *Fitness
	}{{"fitness", p.Fitness}, {"baseline", p.Baseline}} {
		if f.f == nil {
			continue
		}
		m := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
		m.Content = append(m.Content, str("metric"), str(f.f.Metric), str("mean"), float(f.f.Mean))
		if f.f.CI95 != 0 {
			m.Content = append(m.Content, str("ci95"), float(f.f.CI95))
		}
		if f.f.Games != 0 {
			m.Content = append(m.Content, str("games"), integer(int64(f.f.Games)))
		}
		if r := f.f.Seeds; r != nil {
			sn := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
			sn.Content = append(sn.Content,
				str("first"), &yaml.Node{Kind: yaml.ScalarNode, Value: strconv.FormatUint(r.First, 10)},
				str("count"), integer(int64(r.Count)))
			m.Content = append(m.Content, str("seeds"), sn)
		}
		if f.f.Search != nil {
			sn, err := searchNode(f.f.Search)
			if err != nil {
				return nil, err
			}
			m.Content = append(m.Content, str("search"), sn)
		}
		n.Content = append(n.Content, str(f.key), m)
	}
	if st := p.Stage; st != nil {
		m := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
		m.Content = append(m.Content, str("index"), integer(int64(st.Index)), str("of"), integer(int64(st.Of)), str("name"), str(st.Name))
		n.Content = append(n.Content, str("stage"), m)
	}
	return n, nil
}

// featureMap maps the names of s's features to values, in the set's order,
// each with its note from notes (nil: none).
func featureMap(s *FeatureSet, v []float64, style yaml.Style, notes *Notes) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Style: style}
	for i, f := range s.Features {
		n.Content = append(n.Content, str(f.Name), notes.noted(f.Name, float(v[i])))
	}
	return n
}

func str(s string) *yaml.Node {
	n := &yaml.Node{}
	n.SetString(s)
	return n
}

// float writes x in the shortest form that parses back to the same bits
// ("-0" included: the reader parses numbers with strconv, not as YAML ints).
func float(x float64) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Value: strconv.FormatFloat(x, 'g', -1, 64)}
}

func integer(i int64) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Value: strconv.FormatInt(i, 10)}
}

func boolean(b bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Value: strconv.FormatBool(b)}
}
