package tuner

import (
	"fmt"
	"slices"
	"time"

	"github.com/evotune/evotune/checkpoints"
	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/population"
)

// Events receives progress; every field may be nil. Game is called from the
// pool's goroutines as each game ends (replayed: taken from the journal, not
// played), a game played ahead of its generation (beside a validation) in
// the step before its own; Validation from the goroutine that runs the
// tuner; Generation by a Run once the generation is saved.
type Events struct {
	Game       func(replayed bool)
	Generation func(Record)
	Validation func(v *Validation, start bool)
	// Phase is told, from the goroutine that runs the tuner, when a part
	// of the run begins (see Phase); a Run tells it of each generation.
	Phase func(Phase)
}

// Options are what a tuner is given besides its config. The zero value
// plays on this machine's cores and reports nothing.
type Options struct {
	// Pool plays the games; nil means NewLocalPool(cfg.Workers).
	Pool Pool
	// Players is the family of a config with a player (Config.Player),
	// the kind of family Pool plays: for a program that speaks the player
	// protocol, a playerpool.Family made from the player's declaration. A
	// tuner without it can be restored and exported but not play.
	Players Players
	// PlayerPool, if not nil, is asked for Players and Pool of a config
	// with a player, with the config the run goes on with (a resumed run's
	// as checkpointed): a pool of player processes, say. What it returns
	// replaces Players and Pool; its caller closes the pool.
	PlayerPool func(cfg *Config) (Players, Pool, error)
	// Events receives progress.
	Events Events
	// fsys is the file system a Run writes its files through; nil means
	// the OS's. Only tests set it, to fill the disk (TestDiskFull).
	fsys checkpoints.FS
}

// Tuner owns the search state of one run: the optimizer, the generation
// counter and the validations. Its whole state between generations is
// State; everything else derives from the config. It knows nothing of
// files or wall-clock time: a Run owns those and reaches the tuner only
// through its methods.
type Tuner struct {
	cfg *Config
	set *eval.FeatureSet // nil when the run tunes a player
	// players is the family of a run that tunes a player (Options.Players).
	players Players
	metric  Metric
	stages  []StageConfig       // the run's stages, resolved (one without stages)
	search  engine.SearchConfig // the candidates' search in the current stage
	// valSearch is the validation's search: the tuning search unless the
	// config asks for another (a deeper one, say).
	valSearch engine.SearchConfig
	names     []string  // the vector's coordinates: the features, then the parameters
	free      []int     // indices of the coordinates tuned in the current stage
	init      []float64 // the run's starting vector
	base      []float64 // the current stage's starting vector; fixed weights keep their value
	opt       population.Optimizer
	state     State
	pool      *aheadPool // Options.Pool, and the batch played ahead
	events    Events
	aheadState
	// gameTime is the wall-clock time spent with the pool playing: the
	// rest of a generation is the tuner's own overhead.
	gameTime time.Duration
	// stageBegan is the run's elapsed wall-clock time when the current
	// stage began, for its duration budget. It is no part of State (which
	// holds no clock): a Run recovers it from the history on resume.
	stageBegan time.Duration
	// reopened is set when Reopen let a finished run go on: its stage may
	// have ended with it (see step).
	reopened bool
	// finishLimit, if not 0, is the most games FinishWithin's race and
	// validation may play.
	finishLimit int64
	// selected, if not nil, is what Handover gives: a stage's winner read
	// back from the history (SelectStage).
	selected *selection
	// startKept is the record the start's validation was read from, and
	// startGames, before it is measured, its games in the journal (-1:
	// not known); both only for a tuner LoadCheckpoint made (startrecord.go).
	startKept  string
	startGames int
}

// New returns a tuner at the start of the run cfg describes; cfg must be
// resolved and valid (see Resolve and Validate).
func New(cfg *Config, opts Options) (*Tuner, error) {
	opts, err := opts.forPlayer(cfg)
	if err != nil {
		return nil, err
	}
	metric, err := ParseMetric(cfg.Fitness.Metric)
	if err != nil {
		return nil, err
	}
	t := &Tuner{cfg: cfg, metric: metric, events: opts.Events, stages: cfg.StageList(), startGames: -1}
	t.pool = &aheadPool{p: opts.Pool, t: t}
	init := cfg.Init
	if pc := cfg.Player; pc != nil {
		if pc.Declared == nil {
			return nil, fmt.Errorf("%w: player: the player's declaration is missing", ErrConfig)
		}
		t.players = opts.Players
		t.names = pc.Declared.names()
		init = pc.Init
	} else {
		if t.set, err = cfg.FeatureSet(); err != nil {
			return nil, err
		}
		// The tuned vector is the weights followed by the set's shape
		// parameters, if it has any: both are tuned together.
		t.names = t.set.VectorNames()
	}
	if t.pool.p == nil {
		t.pool.p = NewLocalPool(cfg.Workers)
	}
	t.init = make([]float64, len(t.names))
	for i, name := range t.names {
		t.init[i] = init[name]
	}
	if err := t.enterStage(0, t.init); err != nil {
		return nil, err
	}
	if t.state.Optimizer, err = t.opt.MarshalBinary(); err != nil {
		return nil, err
	}
	return t, nil
}

// forPlayer returns opts with PlayerPool's players and pool, for a config
// with a player.
func (opts Options) forPlayer(cfg *Config) (Options, error) {
	if cfg.Player == nil || opts.PlayerPool == nil {
		return opts, nil
	}
	players, pool, err := opts.PlayerPool(cfg)
	if err != nil {
		return opts, err
	}
	opts.Players, opts.Pool, opts.PlayerPool = players, pool, nil
	return opts, nil
}

// enterStage makes stage i (0-based) the current one, starting from the
// full weight vector from: its searches, its tuned coordinates and a fresh
// optimizer. It leaves the state alone.
func (t *Tuner) enterStage(i int, from []float64) error {
	st := t.stages[i]
	t.search = *st.Search
	t.valSearch = t.cfg.StageValidationSearch(i)
	t.base = slices.Clone(from)
	free, err := freeCoordinates(t.cfg, t.search)
	if err != nil {
		return err
	}
	t.free = free
	opt, err := newOptimizer(t.cfg, st, optimizerSeed(t.cfg.Seed, i), t.set, t.names, t.free, t.base, t.init)
	if err != nil {
		return err
	}
	t.opt = opt
	return nil
}

// freeCoordinates returns the coordinates a stage searching with search
// tunes: all but the held ones (see Coordinates), which stay at their value.
func freeCoordinates(cfg *Config, search engine.SearchConfig) ([]int, error) {
	coords, err := Coordinates(cfg, search)
	if err != nil {
		return nil, err
	}
	var free []int
	for k, c := range coords {
		if !c.Held {
			free = append(free, k)
		}
	}
	return free, nil
}

// newOptimizer returns an optimizer of stage settings st, with the random
// stream seed, starting at base. Coordinates are scaled by the run's starting vector init in every
// stage, so that a stage's sigma means what the top-level sigma means; a
// player's by each parameter's range, which is all a declaration says of
// its scale.
func newOptimizer(cfg *Config, st StageConfig, seed uint64, set *eval.FeatureSet, names []string, free []int, base, init []float64) (population.Optimizer, error) {
	pc := population.Config{
		Sigma0: st.Sigma,
		Lambda: st.Population,
		Seed:   seed,
		// Every generation plays new games: the stop conditions that judge
		// fitness values over generations would fire on noise alone.
		Noisy: true,
	}
	pc.Restarts, _ = population.ParseRestarts(cfg.Optimizer.Restarts)
	// The units and bounds are Coordinates', from the run's start (init).
	coords, err := Coordinates(cfg, *st.Search)
	if err != nil {
		return nil, err
	}
	for _, i := range free {
		c := coords[i]
		if init[i] != c.Start {
			return nil, fmt.Errorf("tuner: %s starts at %v, its coordinate at %v", c.Name, init[i], c.Start) // a broken invariant
		}
		pc.X0 = append(pc.X0, base[i])
		pc.Scale = append(pc.Scale, c.Unit)
		pc.Lower, pc.Upper = append(pc.Lower, c.Lower), append(pc.Upper, c.Upper)
	}
	if cfg.Player == nil && len(cfg.Bounds) == 0 && len(set.Params) == 0 {
		pc.Lower, pc.Upper = nil, nil
	}
	method, err := population.ParseMethod(cfg.Optimizer.Method)
	if err != nil {
		return nil, fmt.Errorf("tuner: optimizer: %w", err)
	}
	opt, err := population.New(method, pc, population.Options{Elite: cfg.Optimizer.Elite, LRA: cfg.Optimizer.LRAdapt, Mirrored: cfg.Optimizer.Mirrored, Settle: cfg.Optimizer.Settle})
	if err != nil {
		return nil, fmt.Errorf("tuner: optimizer: %w", err)
	}
	return opt, nil
}

// Config returns the run's resolved config.
func (t *Tuner) Config() *Config { return t.cfg }

// Set returns the feature set being tuned; nil for a run that tunes a
// player.
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
func (t *Tuner) State() State { return t.state.clone() }

// Restore continues from a saved state. The optimizer of the state's stage
// is rebuilt before its state is read: its dimension, bounds and origin are
// the stage's.
func (t *Tuner) Restore(s State) error {
	t.dropAhead() // played for a state left behind
	if s.Stage < 0 || s.Stage >= len(t.stages) {
		return fmt.Errorf("tuner: restore: stage %d of a run with %d", s.Stage+1, len(t.stages))
	}
	from := t.init
	if s.Stage > 0 {
		if len(s.StageStart) != len(t.names) {
			return fmt.Errorf("tuner: restore: stage %d starts from %d weights, want %d", s.Stage+1, len(s.StageStart), len(t.names))
		}
		from = s.StageStart
	}
	if err := t.enterStage(s.Stage, from); err != nil {
		return fmt.Errorf("tuner: restore: %w", err)
	}
	if err := t.opt.UnmarshalBinary(s.Optimizer); err != nil {
		return fmt.Errorf("tuner: restore: %w", err)
	}
	t.state = s.clone()
	return nil
}

// games returns the games each candidate plays per generation in the
// current stage.
func (t *Tuner) games() int { return t.stages[t.state.Stage].Games }

// GamesBounds returns noise handling's block and bounds of the games per
// candidate in the current stage.
func (t *Tuner) GamesBounds() (block, lo, hi int) { return t.cfg.Noise.bounds(t.games()) }

// Games returns the games each candidate plays per generation now.
func (t *Tuner) Games() int { return t.games() }

// NextGames returns the games per candidate the next generation plays: with
// noise handling the number its measure of the noise sets (at a stage's
// start, Games cut to the bounds in whole blocks), before racing stops
// any candidate early.
func (t *Tuner) NextGames() int {
	if !t.cfg.Noise.Handling {
		return t.games()
	}
	if t.state.Noise != nil {
		block, lo, hi := t.GamesBounds()
		return gamesFor(t.state.Noise.Effort, block, lo, hi)
	}
	return t.cfg.Noise.startGames(t.games())
}

// Stage returns the current stage (0-based) and its resolved settings.
func (t *Tuner) Stage() (int, StageConfig) { return t.state.Stage, t.stages[t.state.Stage] }

// Stages returns the run's stages, resolved; a run without stages has one.
func (t *Tuner) Stages() []StageConfig { return t.stages }

// SetStageBegan tells the tuner the run's elapsed time when the current
// stage began (recovered from the history by a resumed Run).
func (t *Tuner) SetStageBegan(d time.Duration) { t.stageBegan = d }

// takeSeeds returns the next n tuning seeds and moves the run's counter
// (State.SeedCounter) past them.
func (t *Tuner) takeSeeds(n int) []uint64 {
	seeds := make([]uint64, n)
	for j := range seeds {
		seeds[j] = TuningSeedAt(t.cfg.Seed, t.state.SeedCounter+uint64(j))
	}
	t.state.SeedCounter += uint64(n)
	return seeds
}

// Lambda returns the current number of candidates per generation.
func (t *Tuner) Lambda() int { return t.opt.Lambda() }

// vector returns the whole tuned vector (weights, then shape parameters)
// of a point of the optimizer's space: the stage's fixed coordinates keep
// their value.
func (t *Tuner) vector(x []float64) []float64 {
	w := slices.Clone(t.base)
	for k, i := range t.free {
		w[i] = x[k]
	}
	return w
}
