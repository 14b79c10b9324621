package tuner

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/population"
)

// State is everything a run needs to continue exactly where it stopped
// between two generations. It holds no wall-clock time, so equal runs have
// equal states.
type State struct {
	// Generation counts the completed generations.
	Generation int `json:"generation"`
	// Games counts every game played so far, tuning and validation.
	Games int64 `json:"games"`
	// Optimizer is the optimizer's serialized state, RNG included.
	Optimizer []byte `json:"optimizer"`
	// Start is the starting weights' validation; Validated the latest
	// validated distribution mean (the recommended weights).
	Start     *Validation `json:"start,omitempty"`
	Validated *Validation `json:"validated,omitempty"`
	// Done is why the run finished; empty while it goes on.
	Done string `json:"done,omitempty"`
	// SeedCounter counts the tuning seeds taken so far by a run with noise
	// handling, whose games per generation vary (see takeSeeds); a run
	// without it uses TuningSeed.
	SeedCounter uint64 `json:"seed_counter,omitempty"`
	// Noise is noise handling's state, nil before its first generation.
	Noise *NoiseState `json:"noise,omitempty"`
}

// Validation is a weight vector measured on the validation seeds.
type Validation struct {
	Generation int       `json:"generation"` // completed generations when measured (0 = start)
	Weights    []float64 `json:"weights"`    // the full vector, in feature order
	Fitness    float64   `json:"fitness"`    // the fitness metric over the validation games
	Mean       float64   `json:"mean"`       // mean score
	CI95       float64   `json:"ci95"`       // half-width of the mean score's 95% t interval
	Median     float64   `json:"median"`     // median score
	Games      int       `json:"games"`
	// Scores and MaxTiles are the games one by one, in seed order, so that
	// two validations on the same seeds compare game by game (Paired).
	Scores   []int `json:"scores,omitempty"`
	MaxTiles []int `json:"max_tiles,omitempty"`
}

// Results returns the validation's games as results on the validation
// seeds of the run seed runSeed (nil if the games were not recorded).
func (v *Validation) Results(runSeed uint64) []engine.Result {
	if v == nil || len(v.Scores) != v.Games || len(v.MaxTiles) != v.Games {
		return nil
	}
	rs := make([]engine.Result, v.Games)
	for j := range rs {
		rs[j] = engine.Result{Seed: ValidationSeed(runSeed, j), Score: v.Scores[j], MaxTile: v.MaxTiles[j]}
	}
	return rs
}

// Events receives progress; every field may be nil. Game is called from the
// pool's goroutines as each game ends (replayed: taken from the journal, not
// played); Validation from the goroutine that runs the tuner; Generation by
// a Run once the generation is saved.
type Events struct {
	Game       func(replayed bool)
	Generation func(Record)
	Validation func(v *Validation, start bool)
}

// Options are what a tuner is given besides its config. The zero value
// plays on this machine's cores and reports nothing.
type Options struct {
	// Pool plays the games; nil means NewLocalPool(cfg.Workers).
	Pool Pool
	// Events receives progress.
	Events Events
}

// Tuner owns the search state of one run: the optimizer, the generation
// counter and the validations. Its whole state between generations is
// State; everything else derives from the config. It knows nothing of
// files or wall-clock time: a Run owns those and reaches the tuner only
// through its methods.
type Tuner struct {
	cfg    *Config
	set    *eval.FeatureSet
	metric Metric
	search engine.SearchConfig // the candidates' search
	// valSearch is the validation's search: the tuning search unless the
	// config asks for another (a deeper one, say).
	valSearch engine.SearchConfig
	names     []string  // the vector's coordinates: the features, then the parameters
	free      []int     // indices of the tuned coordinates
	base      []float64 // the starting vector; fixed weights keep their value
	opt       population.Optimizer
	state     State
	pool      Pool
	events    Events
	// gameTime is the wall-clock time spent with the pool playing: the
	// rest of a generation is the tuner's own overhead.
	gameTime time.Duration
}

// New returns a tuner at the start of the run cfg describes; cfg must be
// resolved and valid (see Resolve and Validate).
func New(cfg *Config, opts Options) (*Tuner, error) {
	set, err := eval.Set(cfg.Features)
	if err != nil {
		return nil, err
	}
	metric, err := ParseMetric(cfg.Fitness.Metric)
	if err != nil {
		return nil, err
	}
	t := &Tuner{cfg: cfg, set: set, metric: metric, pool: opts.Pool, events: opts.Events}
	if t.pool == nil {
		t.pool = NewLocalPool(cfg.Workers)
	}
	t.search = cfg.Search
	t.valSearch = cfg.ValidationSearch()
	// The tuned vector is the weights followed by the set's shape
	// parameters, if it has any: both are tuned together.
	t.names = set.VectorNames()
	t.base = make([]float64, len(t.names))
	for i, name := range t.names {
		t.base[i] = cfg.Init[name]
	}
	// Scale invariance: without move scores only the direction of a linear
	// weight vector matters, so the reference weight stays fixed.
	for i := range t.names {
		if !cfg.Search.ScoresMoves() && set.ScaleInvariant && i == set.Reference() {
			continue
		}
		t.free = append(t.free, i)
	}
	if t.opt, err = newOptimizer(cfg, set, t.names, t.free, t.base); err != nil {
		return nil, err
	}
	if t.state.Optimizer, err = t.opt.MarshalBinary(); err != nil {
		return nil, err
	}
	return t, nil
}

func newOptimizer(cfg *Config, set *eval.FeatureSet, names []string, free []int, base []float64) (population.Optimizer, error) {
	pc := population.Config{
		Sigma0: cfg.Sigma,
		Lambda: cfg.Optimizer.Population,
		Seed:   mix(seedBase(cfg.Seed) ^ 0x6f7074696d697a65), // its own stream
		// Every generation plays new games: the stop conditions that judge
		// fitness values over generations would fire on noise alone.
		Noisy: true,
	}
	pc.Restarts, _ = population.ParseRestarts(cfg.Optimizer.Restarts)
	for _, i := range free {
		x := base[i]
		pc.X0 = append(pc.X0, x)
		pc.Scale = append(pc.Scale, cmp.Or(math.Abs(x), 1))
		lo, hi := math.Inf(-1), math.Inf(1)
		if k := i - len(set.Features); k >= 0 { // a parameter: always within its own bounds
			lo, hi = set.Params[k].Min, set.Params[k].Max
		}
		if b, ok := cfg.Bounds[names[i]]; ok {
			lo, hi = b[0], b[1]
		}
		pc.Lower, pc.Upper = append(pc.Lower, lo), append(pc.Upper, hi)
	}
	if len(cfg.Bounds) == 0 && len(set.Params) == 0 {
		pc.Lower, pc.Upper = nil, nil
	}
	method, err := population.ParseMethod(cfg.Optimizer.Method)
	if err != nil {
		return nil, fmt.Errorf("tuner: optimizer: %w", err)
	}
	opt, err := population.New(method, pc, population.Options{Elite: cfg.Optimizer.Elite})
	if err != nil {
		return nil, fmt.Errorf("tuner: optimizer: %w", err)
	}
	return opt, nil
}

// GameTime returns the wall-clock time this tuner has spent playing games,
// so that callers can tell how much of a run went to everything else.
func (t *Tuner) GameTime() time.Duration { return t.gameTime }

// Config returns the run's resolved config.
func (t *Tuner) Config() *Config { return t.cfg }

// Set returns the feature set being tuned.
func (t *Tuner) Set() *eval.FeatureSet { return t.set }

// Names returns the names of the tuned vector's coordinates: the set's
// features, then its shape parameters (see eval.FeatureSet.VectorNames).
func (t *Tuner) Names() []string { return t.names }

// SearchConfig returns the players' search.
func (t *Tuner) SearchConfig() engine.SearchConfig { return t.search }

// ValidationSearchConfig returns the search validations play with.
func (t *Tuner) ValidationSearchConfig() engine.SearchConfig { return t.valSearch }

// Metric returns the fitness metric.
func (t *Tuner) Metric() Metric { return t.metric }

// State returns a copy of the state between generations.
func (t *Tuner) State() State {
	s := t.state
	s.Optimizer = slices.Clone(s.Optimizer)
	if s.Noise != nil {
		n := *s.Noise
		s.Noise = &n
	}
	return s
}

// Restore continues from a saved state.
func (t *Tuner) Restore(s State) error {
	if err := t.opt.UnmarshalBinary(s.Optimizer); err != nil {
		return fmt.Errorf("tuner: restore: %w", err)
	}
	t.state = s
	t.state.Optimizer = slices.Clone(s.Optimizer)
	if s.Noise != nil {
		n := *s.Noise
		t.state.Noise = &n
	}
	return nil
}

// Lambda returns the current number of candidates per generation.
func (t *Tuner) Lambda() int { return t.opt.Lambda() }

// full returns the weight vector of a point of the optimizer's space.
func (t *Tuner) full(x []float64) []float64 {
	w := slices.Clone(t.base)
	for k, i := range t.free {
		w[i] = x[k]
	}
	return w
}
