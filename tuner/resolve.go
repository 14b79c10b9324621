package tuner

import (
	"strconv"
	"strings"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/population"
)

// Defaults, as the field comments state them.
const (
	DefaultName            = "run"
	DefaultSetName         = "standard"
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
	// DefaultAverage is validation.average: the most of the stage's last
	// means whose average is recommended (those of the last half of its
	// generations at most).
	DefaultAverage = 256
	// SpacingEven and SpacingDoubling are the values of
	// validation.spacing.
	SpacingEven     = "even"
	SpacingDoubling = "doubling"
	// DefaultSelectGames is validation.select: the most games an entrant
	// of the final race plays (raceBlocks blocks of 12).
	DefaultSelectGames = 96
)

// Resolve fills in the default of every field a file left out (or that is
// zero in a Config built in Go), so the config can be written out as the
// run's resolved config and read back unchanged. A zero the file gave
// explicitly stays, for Validate to judge.
func (c *Config) Resolve() {
	setDefault(c, "name", &c.Name, DefaultName)
	if c.Set != nil && c.SetName == "" {
		c.SetName = c.Set.Name
	}
	if c.Player == nil {
		setDefault(c, "features", &c.SetName, DefaultSetName)
	} else {
		c.resolvePlayer()
	}
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
	setDefault(c, "validation.average", &c.Validation.Average, DefaultAverage)
	if c.absent("validation.select", c.Validation.Select == 0) {
		c.Validation.Select = DefaultSelectGames
	}
	if set, err := c.FeatureSet(); err == nil && c.Player == nil {
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

// FeatureSet returns the feature set the config tunes: Set if it is
// given, else the registered set SetName names.
func (c *Config) FeatureSet() (*eval.FeatureSet, error) {
	if c.Set != nil {
		return c.Set, nil
	}
	return eval.Set(c.SetName)
}

// resolveNoise turns noise handling on where the config leaves it out,
// racing where the config leaves it out and noise handling is on, and
// fills the block.
func (c *Config) resolveNoise() {
	if c.absent("noise.handling", !c.Noise.Handling) {
		c.Noise.Handling = true
	}
	if c.absent("noise.racing", !c.Noise.Racing) {
		c.Noise.Racing = c.Noise.Handling
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
	"validation.every": true, "validation.games": true, "validation.average": true, "checkpoints.keep": true,
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

// asCheckpointed reads the config of a checkpoint of payload format
// format as the evotune that wrote it meant it: the search options an older
// evotune did not write are marked as written with their old value, so that
// a run it started resumes with the search it had (no cutoff) rather than
// today's defaults; and a config of payload format 1, from before the
// final race, keeps racing off without noise handling (where it did
// nothing), drops its recommendation rule (recommend, patience,
// fallback), which the final race replaced, and races what that rule
// recommended as a finalist against its single latest mean.
func (c *Config) asCheckpointed(format int) {
	if c.lines == nil {
		return
	}
	c.checkpointed = true
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
	if format < 2 {
		if !c.Noise.Handling {
			c.Noise.Racing = false
		}
		v := &c.Validation
		v.Recommend, v.Patience, v.Fallback = "", 0, 0
		// The old rule's recommendation races as a finalist (see
		// legacyState), and the mean it ran with was a single one.
		if v.Finalists == 0 {
			v.Finalists = 1
		}
		if _, ok := c.lines.Line("validation.average"); !ok {
			v.Average = 1
		}
	}
}
