package tuner

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/internal/yamlx"
	"github.com/evotune/evotune/population"
)

// ErrConfig is wrapped by every error about a config file or its values.
var ErrConfig = errors.New("tuner: bad config")

// Config is a tuning run, as written in a YAML preset. Every key is
// optional: a key left out takes the default its field's comment gives, and
// Resolve fills the defaults in. Where 0 (or "") is a meaningful value the
// comment says what it means (generations: 0 is no limit); elsewhere an
// explicit 0 in a file is an error naming the line and the allowed range,
// not a silent default: "depth: 0" is more likely a slip than a wish for 3
// plies. In a Config built in Go, which has no absent keys, the zero value
// of every field means its default.
type Config struct {
	// Name names the run; its files go to runs/<name> unless --out says
	// otherwise. Absent: "run". Letters, digits, '.', '_' and '-' only.
	Name string `yaml:"name"`
	// Seed is the run seed every game seed derives from. Default 0, a seed
	// like any other.
	Seed uint64 `yaml:"seed"`
	// Generations stops the run after this many generations; 0 (the
	// default) means no limit (the run stops when it converges, runs out of
	// time or is stopped). With neither Generations nor Duration a run goes
	// on until interrupted, and says so on its first line.
	Generations int `yaml:"generations"`
	// Duration is a wall-clock budget in Go syntax ("8h", "90m"); 0 (the
	// default) means none. The generation in progress when it runs out is
	// finished.
	Duration Duration `yaml:"duration"`
	// Workers is the number of games played at once; 0 (the default) means
	// one per core. It does not change any result.
	Workers int `yaml:"workers"`
	// Features names the feature set whose weights are tuned. Absent:
	// "standard".
	Features string `yaml:"features"`
	// Init is the starting mean, by feature name; features left out start
	// at the set's default weight.
	Init map[string]float64 `yaml:"init"`
	// InitFrom is the weights file a config's init named instead of
	// listing weights (init: runs/quick/weights.yaml, relative to the
	// working directory): its weights, and parameters, become Init, and the
	// path is kept here and in the tuned weights' provenance, so any run can
	// continue from any earlier result. Written by evotune in the resolved
	// config; a config names the file in init.
	InitFrom string `yaml:"init_from,omitempty"`
	// Sigma is the initial step size relative to each weight's scale: the
	// optimizer works in coordinates where each weight is divided by the
	// magnitude of its starting value (1 where that is 0). In (0, 10];
	// absent: 0.3.
	Sigma float64 `yaml:"sigma"`
	// Bounds limits weights, by feature name: [lower, upper].
	Bounds map[string][]float64 `yaml:"bounds"`
	// Optimizer chooses and configures the optimizer.
	Optimizer OptimizerConfig `yaml:"optimizer"`
	// Search is the player every candidate plays with, under the key search:
	//   algorithm      "expectimax", "beam" or "nneonneo"; absent: "expectimax"
	//   depth          plies, engine.MinDepth to engine.MaxDepth; absent: 3
	//   width          the beam width, at least 1; absent: 8; expectimax
	//                  ignores it
	//   heuristic_only values positions by the evaluation alone, without
	//                  move scores; then the weights are scale-invariant and
	//                  one of them is held fixed (see
	//                  eval.FeatureSet.Reference); default false
	//   loss           the value of a lost position; absent:
	//                  engine.DefaultLossValue; 0 is meaningful (the exact
	//                  mode's value: losing is worth nothing)
	Search engine.SearchConfig `yaml:"search"`
	// Fitness says how candidates are scored.
	Fitness FitnessConfig `yaml:"fitness"`
	// Validation says how the distribution mean is re-evaluated.
	Validation ValidationConfig `yaml:"validation"`
	// Stages makes the run a ladder of searches (see StageConfig); absent,
	// the run is one stage with the top-level search, games, population
	// and sigma. An empty list is an error.
	Stages []StageConfig `yaml:"stages,omitempty"`
	// Checkpoints configures the run's checkpoints.
	Checkpoints CheckpointConfig `yaml:"checkpoints"`
	// Noise configures noise handling: games per candidate set by the
	// measured noise of the ranking, and racing (see NoiseConfig).
	Noise NoiseConfig `yaml:"noise"`

	// lines holds where each key of the file the config came from was,
	// and which keys the file wrote as zero; nil for a config built in Go.
	// Resolve leaves the keys written alone (so that Validate rejects a zero
	// that is out of range, or keeps one that means something), and
	// Validate names their lines.
	lines *yamlx.Lines
}

// StageConfig is one rung of a ladder of searches. A stage starts from the
// previous stage's validated mean (the first from init) with a fresh
// optimizer, and ends when its budget is spent or its optimizer converges;
// every stage but the last needs a budget (generations, duration or both).
// Keys left out take the top-level values; Resolve fills them in.
type StageConfig struct {
	// Name names the stage in output and provenance; absent: its 1-based
	// index ("1", "2", ...). Letters, digits, '.', '_' and '-' only.
	Name string `yaml:"name"`
	// Search is the stage's search; keys it leaves out take the top-level
	// search's, except the table and cutoff, which take the play defaults
	// of the stage's own algorithm and depth when those differ from the
	// top-level search (as validation.search does).
	Search *engine.SearchConfig `yaml:"search"`
	// Games per candidate; absent: fitness.games.
	Games int `yaml:"games"`
	// Population is the candidates per generation, 0 meaning the method's
	// default; absent: optimizer.population.
	Population int `yaml:"population"`
	// Sigma is the step size at the stage's start, in the run's relative
	// coordinates (as the top-level sigma); absent: sigma.
	Sigma float64 `yaml:"sigma"`
	// Generations is the stage's budget in generations; 0 (absent) means
	// none.
	Generations int `yaml:"generations,omitempty"`
	// Duration is the stage's budget in wall-clock time (the generation in
	// progress is finished); 0 (absent) means none.
	Duration Duration `yaml:"duration,omitempty"`
}

// fullSearch is a search as a resolved config writes it: every key, adaptive
// too, which engine.SearchConfig leaves out when false, and which a stage or
// validation.search left out would take from the top-level search.
type fullSearch struct {
	Algorithm     engine.Algorithm `yaml:"algorithm"`
	Depth         int              `yaml:"depth"`
	Width         int              `yaml:"width"`
	HeuristicOnly bool             `yaml:"heuristic_only"`
	LossValue     float64          `yaml:"loss"`
	ProbCutoff    float64          `yaml:"cutoff"`
	TableBits     int              `yaml:"table"`
	Adaptive      bool             `yaml:"adaptive"`
}

func full(q *engine.SearchConfig) *fullSearch {
	if q == nil {
		return nil
	}
	return &fullSearch{q.Algorithm, q.Depth, q.Width, q.HeuristicOnly, q.LossValue, q.ProbCutoff, q.TableBits, q.Adaptive}
}

// MarshalYAML writes a stage with its search in full (fullSearch).
func (s StageConfig) MarshalYAML() (any, error) {
	type stage struct {
		Name        string      `yaml:"name"`
		Search      *fullSearch `yaml:"search"`
		Games       int         `yaml:"games"`
		Population  int         `yaml:"population"`
		Sigma       float64     `yaml:"sigma"`
		Generations int         `yaml:"generations,omitempty"`
		Duration    Duration    `yaml:"duration,omitempty"`
	}
	return stage{Name: s.Name, Search: full(s.Search), Games: s.Games, Population: s.Population, Sigma: s.Sigma, Generations: s.Generations, Duration: s.Duration}, nil
}

// MarshalYAML writes validation.search in full (fullSearch), so that an
// explicit adaptive: false under a top-level adaptive: true reads back.
func (v ValidationConfig) MarshalYAML() (any, error) {
	type validation struct {
		Every  int         `yaml:"every"`
		Games  int         `yaml:"games"`
		Search *fullSearch `yaml:"search,omitempty"`
	}
	return validation{Every: v.Every, Games: v.Games, Search: full(v.Search)}, nil
}

// StageList returns the run's stages, resolved: the config's, or one stage
// made of the top-level search, games, population and sigma, without a
// budget, for a config without stages.
func (c *Config) StageList() []StageConfig {
	if len(c.Stages) > 0 {
		return c.Stages
	}
	search := c.Search
	return []StageConfig{{Name: "1", Search: &search, Games: c.Fitness.Games, Population: c.Optimizer.Population, Sigma: c.Sigma}}
}

// ValidationSearch returns the search validation plays with in the first
// stage (the only one of a run without stages).
func (c *Config) ValidationSearch() engine.SearchConfig { return c.StageValidationSearch(0) }

// StageValidationSearch returns the search validation plays with in stage
// i (0-based): validation.search if the config gives one, else the stage's
// own search.
func (c *Config) StageValidationSearch(i int) engine.SearchConfig {
	if c.Validation.Search != nil {
		return *c.Validation.Search
	}
	return *c.StageList()[i].Search
}

// resolveValidationSearch fills the keys validation.search leaves out from
// the tuning search (already resolved).
func (c *Config) resolveValidationSearch() {
	if c.Validation.Search != nil {
		c.resolveSearchFrom(c.Validation.Search, "validation.search.")
	}
}

// resolveStages fills every key a stage leaves out from the top-level
// values (already resolved).
func (c *Config) resolveStages() {
	for i := range c.Stages {
		st := &c.Stages[i]
		prefix := StageField(i, "")
		if c.absent(prefix+"name", st.Name == "") {
			st.Name = strconv.Itoa(i + 1)
		}
		if st.Search == nil {
			st.Search = &engine.SearchConfig{}
		}
		c.resolveSearchFrom(st.Search, prefix+"search.")
		if c.absent(prefix+"games", st.Games == 0) {
			st.Games = c.Fitness.Games
		}
		if c.absent(prefix+"population", st.Population == 0) {
			st.Population = c.Optimizer.Population
		}
		if c.absent(prefix+"sigma", st.Sigma == 0) {
			st.Sigma = c.Sigma
		}
	}
}

// StageField returns the dotted path of key in stage i (0-based) as errors
// name it: stages are numbered from 1, as in the output ("stages.2.games").
func StageField(i int, key string) string { return "stages." + strconv.Itoa(i+1) + "." + key }

// resolveSearchFrom fills the keys of the search v (at path prefix, ending
// in '.') the file leaves out from the tuning search (already resolved).
func (c *Config) resolveSearchFrom(v *engine.SearchConfig, prefix string) {
	base := c.Search
	unset := func(key string, zero bool) bool { return c.absent(prefix+key, zero) }
	if unset("algorithm", v.Algorithm == "") {
		v.Algorithm = base.Algorithm
	}
	if unset("depth", v.Depth == 0) {
		v.Depth = base.Depth
	}
	if unset("width", v.Width == 0) {
		v.Width = base.Width
	}
	if unset("heuristic_only", !v.HeuristicOnly) {
		v.HeuristicOnly = base.HeuristicOnly
	}
	if unset("loss", v.LossValue == 0) {
		v.LossValue = base.LossValue
	}
	// The table and cutoff suit a depth: a validation at another depth or
	// with another algorithm gets the defaults for its own.
	defaults := base
	if v.Algorithm != base.Algorithm || v.Depth != base.Depth {
		defaults = v.WithPlayDefaults()
	}
	if unset("cutoff", v.ProbCutoff == 0) {
		v.ProbCutoff = defaults.ProbCutoff
	}
	if unset("table", v.TableBits == 0) {
		v.TableBits = defaults.TableBits
	}
	if unset("adaptive", !v.Adaptive) {
		v.Adaptive = base.Adaptive
	}
}

// resolveSearchOptions gives the search the table and cutoff players use at
// its algorithm and depth (engine.WithPlayDefaults) where the config leaves
// them out; 0 written in a file is kept (no table; the exact search).
func (c *Config) resolveSearchOptions() {
	d := c.Search.WithPlayDefaults()
	if c.absent("search.cutoff", c.Search.ProbCutoff == 0) {
		c.Search.ProbCutoff = d.ProbCutoff
	}
	if c.absent("search.table", c.Search.TableBits == 0) {
		c.Search.TableBits = d.TableBits
	}
}

// asCheckpointed marks the search options an older evotune did not write
// into its checkpoints as written with their old value, so that a run it
// started resumes with the search it had (no cutoff) rather than today's
// defaults.
func (c *Config) asCheckpointed() {
	if c.lines == nil {
		return
	}
	// Noise handling came later still: its switches were off then.
	keys := []string{"search.cutoff", "noise.handling", "noise.racing"}
	if c.Validation.Search != nil {
		keys = append(keys, "validation.search.cutoff")
	}
	for _, k := range keys {
		if _, ok := c.lines.Line(k); !ok {
			c.lines.Mark(k, 0)
		}
	}
}

// absent reports whether the key at path field was left out of the file
// the config came from; for a config built in Go, which has no file,
// whether its value is zero.
func (c *Config) absent(field string, zero bool) bool {
	if c.lines == nil {
		return zero
	}
	_, ok := c.lines.Line(field)
	return !ok
}

// OptimizerConfig chooses the optimizer.
type OptimizerConfig struct {
	// Method is "cmaes" or "cem"; absent: "cmaes".
	Method string `yaml:"method"`
	// Population is the number of candidates per generation, at least 2;
	// 0 (the default) means the method's default (CMA-ES: 4 + floor(3 ln n)).
	Population int `yaml:"population"`
	// Elite is the fraction of candidates CEM refits to, in (0, 1); absent:
	// 0.25. CMA-ES ignores it.
	Elite float64 `yaml:"elite"`
	// Restarts is "none" or "ipop" (restart with a doubled population when
	// the optimizer converges); absent: "none".
	Restarts string `yaml:"restarts"`
}

// FitnessConfig says how a candidate's games become one number.
type FitnessConfig struct {
	// Games is the number of games every candidate plays per generation,
	// the same seeds for every candidate, at least 1; absent: 16.
	Games int `yaml:"games"`
	// Metric is mean_score, median_score, mean_log_score (the mean of
	// ln(1 + score)) or reach:TILE (the share of games reaching TILE, a
	// power of two from 4 to 32768); absent: mean_score.
	Metric string `yaml:"metric"`
	// MaxMoves stops each game after this many moves; 0 (the default)
	// means no limit.
	MaxMoves int `yaml:"max_moves"`
}

// ValidationConfig says how the distribution mean is re-evaluated on seeds
// disjoint from every tuning seed.
type ValidationConfig struct {
	// Every validates after every this many generations (and always at the
	// end), at least 1; absent: 5.
	Every int `yaml:"every"`
	// Games is the number of validation games, at least 2; absent: 100.
	Games int `yaml:"games"`
	// Search is the search validation plays with, so that weights tuned
	// with a cheap shallow search are measured at the depth they are
	// recommended for; absent: the tuning search. Keys it leaves out take
	// the tuning search's values (validation: {search: {depth: 5}}).
	Search *engine.SearchConfig `yaml:"search,omitempty"`
}

// CheckpointConfig configures checkpoints.
type CheckpointConfig struct {
	// Keep is the number of newest checkpoints kept, at least 1; absent: 3.
	Keep int `yaml:"keep"`
}

// Defaults, as the field comments state them.
const (
	DefaultName            = "run"
	DefaultFeatures        = "standard"
	DefaultSigma           = 0.3
	DefaultMethod          = string(population.MethodCMAES)
	DefaultElite           = 0.25
	DefaultRestarts        = string(population.NoRestarts)
	DefaultAlgorithm       = engine.AlgorithmExpectimax
	DefaultDepth           = 3
	DefaultWidth           = 8
	DefaultGames           = 16
	DefaultMetric          = "mean_score"
	DefaultValidationEvery = 5
	DefaultValidationGames = 100
	DefaultKeep            = 3
)

// Resolve fills in the default of every field a file left out (or that is
// zero in a Config built in Go), so the config can be written out as the
// run's resolved config and read back unchanged. A zero the file gave
// explicitly stays, for Validate to judge.
func (c *Config) Resolve() {
	setDefault(c, "name", &c.Name, DefaultName)
	setDefault(c, "features", &c.Features, DefaultFeatures)
	setDefault(c, "sigma", &c.Sigma, DefaultSigma)
	setDefault(c, "optimizer.method", &c.Optimizer.Method, DefaultMethod)
	setDefault(c, "optimizer.elite", &c.Optimizer.Elite, DefaultElite)
	setDefault(c, "optimizer.restarts", &c.Optimizer.Restarts, DefaultRestarts)
	setDefault(c, "search.algorithm", &c.Search.Algorithm, DefaultAlgorithm)
	setDefault(c, "search.depth", &c.Search.Depth, DefaultDepth)
	setDefault(c, "search.width", &c.Search.Width, DefaultWidth)
	setDefault(c, "search.loss", &c.Search.LossValue, engine.DefaultLossValue)
	setDefault(c, "fitness.games", &c.Fitness.Games, DefaultGames)
	setDefault(c, "fitness.metric", &c.Fitness.Metric, DefaultMetric)
	setDefault(c, "validation.every", &c.Validation.Every, DefaultValidationEvery)
	setDefault(c, "validation.games", &c.Validation.Games, DefaultValidationGames)
	setDefault(c, "checkpoints.keep", &c.Checkpoints.Keep, DefaultKeep)
	if set, err := eval.Set(c.Features); err == nil {
		names, defaults := set.VectorNames(), set.DefaultVector()
		init := make(map[string]float64, len(names))
		for i, name := range names {
			init[name] = defaults[i]
		}
		for k, v := range c.Init {
			init[k] = v
		}
		c.Init = init
	}
	c.resolveSearchOptions()
	c.resolveValidationSearch()
	c.resolveStages()
	c.resolveNoise()
}

// resolveNoise turns noise handling and racing on where a file leaves them
// out (a Config built in Go has them off unless set) and fills the block.
func (c *Config) resolveNoise() {
	if c.lines != nil {
		if c.absent("noise.handling", false) {
			c.Noise.Handling = true
		}
		if c.absent("noise.racing", false) {
			c.Noise.Racing = true
		}
	}
	setDefault(c, "noise.block", &c.Noise.Block, defaultBlock)
}

// zeroIsNoValue lists the fields whose zero is no meaningful value (Resolve
// gives them a default when absent, Validate rejects an explicit zero). The
// zeros of the other fields mean something, as their comments say. A
// stage's keys are looked up by their name in the stage (see stageKey).
var zeroIsNoValue = map[string]bool{
	"name": true, "features": true, "sigma": true,
	"optimizer.method": true, "optimizer.elite": true, "optimizer.restarts": true,
	"search.algorithm": true, "search.depth": true, "search.width": true,
	"fitness.games": true, "fitness.metric": true,
	"validation.every": true, "validation.games": true, "checkpoints.keep": true,
	"noise.block": true,
	"stages.name": true, "stages.search.algorithm": true, "stages.search.depth": true,
	"stages.search.width": true, "stages.games": true, "stages.sigma": true,
}

// stageKey maps a stage's field ("stages.2.games") to its entry in
// zeroIsNoValue ("stages.games"); other fields are returned as they are.
func stageKey(field string) string {
	rest, ok := strings.CutPrefix(field, "stages.")
	if !ok {
		return field
	}
	if _, key, ok := strings.Cut(rest, "."); ok {
		return "stages." + key
	}
	return field
}

// setDefault sets *p, the field at path field, to def if it is zero and
// was not written as zero in the file.
func setDefault[T comparable](c *Config, field string, p *T, def T) {
	var zero T
	if *p == zero && !c.writtenZero(field) {
		*p = def
	}
}

// writtenZero reports whether the file the config came from wrote the key
// at path field as zero.
func (c *Config) writtenZero(field string) bool { return c.lines != nil && c.lines.Zero(field) }

// LoadConfig reads and decodes a config file; see ParseConfig.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return ParseConfig(data, path)
}

// errorf returns the error about the config's key at path field, at its
// line if the config's file wrote it (a default or a value set in Go has
// none). Every config error is a *yamlx.FileError wrapping ErrConfig.
func (c *Config) errorf(field, format string, args ...any) error {
	l := c.lines
	if l == nil {
		return &yamlx.FileError{Field: field, Msg: fmt.Sprintf(format, args...), Kind: ErrConfig}
	}
	if l.Zero(field) && zeroIsNoValue[stageKey(field)] {
		// The file wrote 0 where 0 is no value: say how to get the default.
		format += " (leave the key out for the default)"
	}
	line, _ := l.Line(field)
	if rest, ok := strings.CutPrefix(field, "stages."); ok && line == 0 {
		// A stage's key left out (its default is wrong): the stage's line.
		n, _, _ := strings.Cut(rest, ".")
		line, _ = l.Line("stages." + n)
	}
	return l.File().At(line, field, format, args...)
}

// ParseConfig decodes a config strictly (internal/yamlx: one document of
// plain UTF-8 text; unknown keys, duplicate keys and values of the wrong
// type are errors that name the file, line and field), and remembers where
// each key was, for Resolve and Validate. It does not fill defaults or
// validate. init may name a weights file instead of listing weights: its
// weights become Init (see Config.InitFrom).
func ParseConfig(data []byte, file string) (*Config, error) {
	f := yamlx.File{Name: file, Root: "config", Kind: ErrConfig}
	root, err := f.Parse(data)
	if err != nil {
		return nil, err
	}
	c := &Config{lines: yamlx.NewLines(f)}
	root, initFile, err := cutInitFile(root, c.lines)
	if err != nil {
		return nil, err
	}
	if err := c.lines.Decode(root, "", c); err != nil {
		return nil, err
	}
	if initFile != nil {
		if c.InitFrom != "" {
			return nil, f.Errorf(initFile, "init", "a weights file here and init_from %q too: give one", c.InitFrom)
		}
		if err := c.initFromFile(initFile.Value); err != nil {
			return nil, f.Errorf(initFile, "init", "%v", err)
		}
	}
	return c, nil
}

// cutInitFile returns the document without its init key if that names a
// weights file (a string, where the decoder wants a mapping of weights),
// and the node of the file's name.
func cutInitFile(root *yaml.Node, lines *yamlx.Lines) (*yaml.Node, *yaml.Node, error) {
	if root == nil || root.Kind != yaml.MappingNode {
		return root, nil, nil
	}
	var inits []int
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "init" {
			inits = append(inits, i)
		}
	}
	for _, i := range inits {
		k, v := root.Content[i], root.Content[i+1]
		if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" {
			continue
		}
		if len(inits) > 1 {
			return nil, nil, lines.File().Errorf(root.Content[inits[1]], "init", "key given twice")
		}
		lines.Mark("init", k.Line)
		return &yaml.Node{Kind: root.Kind, Tag: root.Tag, Line: root.Line, Column: root.Column,
			Content: append(slices.Clone(root.Content[:i]), root.Content[i+2:]...)}, v, nil
	}
	return root, nil, nil
}

// initFromFile reads the starting weights (and parameters) from a weights
// file. The config's feature set, if it names one, must be the file's.
func (c *Config) initFromFile(path string) error {
	if path == "" {
		return fmt.Errorf("empty: want a mapping of weights or the path of a weights file")
	}
	wf, err := eval.ReadWeightsFile(path)
	if err != nil {
		return fmt.Errorf("want a weights file: %w", err)
	}
	if c.Features == "" {
		c.Features = wf.Features
	}
	if c.Features != wf.Features {
		return fmt.Errorf("%s holds %s weights, the config tunes %s", path, wf.Features, c.Features)
	}
	set, err := eval.Set(wf.Features)
	if err != nil {
		return err
	}
	c.Init = map[string]float64{}
	for i, f := range set.Features {
		c.Init[f.Name] = wf.Weights[i]
	}
	params := wf.Params
	if params == nil {
		params = set.DefaultParams()
	}
	for i, q := range set.Params {
		c.Init[q.Name] = params[i]
	}
	c.InitFrom = path
	return nil
}

// Duration is a time.Duration written in Go syntax ("8h0m0s") in YAML.
type Duration time.Duration

// MarshalYAML writes the duration in Go syntax.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// UnmarshalText reads a duration in Go syntax.
func (d *Duration) UnmarshalText(text []byte) error {
	x, err := time.ParseDuration(string(text))
	if err != nil {
		return fmt.Errorf("%q: want a duration such as 90m or 8h", text)
	}
	*d = Duration(x)
	return nil
}
