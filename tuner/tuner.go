package tuner

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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
}

// Events receives progress; every field may be nil. Game is called from the
// worker goroutines as each game ends (replayed: taken from the journal, not
// played); the others from the goroutine that runs the tuner.
type Events struct {
	Game       func(replayed bool)
	Generation func(Record)
	Validation func(v *Validation, start bool)
}

// A GameCache remembers finished games across interruptions, keyed by the
// generation they belong to (completed generations before them), the weight
// vector's fingerprint and the game's seed (see Fingerprint). Its methods
// are called from the worker goroutines.
type GameCache interface {
	Lookup(generation int, fingerprint, seed uint64) (engine.Result, bool)
	Record(generation int, fingerprint, seed uint64, r engine.Result)
}

// Tuner runs the generation loop of one run. Its whole state between
// generations is State; everything else derives from the config.
type Tuner struct {
	cfg     *Config
	set     *eval.FeatureSet
	metric  Metric
	search  engine.SearchConfig
	free    []int     // indices of the tuned weights
	base    []float64 // the starting vector; fixed weights keep their value
	opt     population.Optimizer
	state   State
	workers []engine.Searcher
	events  Events
	cache   GameCache
	// gameTime is the wall-clock time spent with the workers playing: the
	// rest of a generation is the tuner's own overhead.
	gameTime time.Duration
}

// New returns a tuner at the start of the run cfg describes; cfg must be
// resolved and valid (see Resolve and Validate).
func New(cfg *Config, events Events) (*Tuner, error) {
	set, err := eval.Set(cfg.Features)
	if err != nil {
		return nil, err
	}
	metric, err := ParseMetric(cfg.Fitness.Metric)
	if err != nil {
		return nil, err
	}
	t := &Tuner{cfg: cfg, set: set, metric: metric, events: events}
	t.search = cfg.Search.ForPlay()
	t.base = make([]float64, len(set.Features))
	for i, f := range set.Features {
		t.base[i] = cfg.Init[f.Name]
	}
	// Scale invariance: without move scores only the direction of a linear
	// weight vector matters, so the reference weight stays fixed.
	for i := range set.Features {
		if cfg.Search.HeuristicOnly && set.ScaleInvariant && i == set.Reference() {
			continue
		}
		t.free = append(t.free, i)
	}
	if t.opt, err = newOptimizer(cfg, set, t.free, t.base); err != nil {
		return nil, err
	}
	if t.state.Optimizer, err = t.opt.MarshalBinary(); err != nil {
		return nil, err
	}
	return t, nil
}

// startWorkers builds one searcher per worker on first use, so a tuner that
// only exports weights never allocates their tables.
func (t *Tuner) startWorkers() error {
	for len(t.workers) < engine.Workers(t.cfg.Workers) {
		s, err := engine.NewSearcher(t.set.Default(), t.search)
		if err != nil {
			return err
		}
		t.workers = append(t.workers, s)
	}
	return nil
}

func newOptimizer(cfg *Config, set *eval.FeatureSet, free []int, base []float64) (population.Optimizer, error) {
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
		pc.Scale = append(pc.Scale, cmpOr(math.Abs(x), 1))
		lo, hi := math.Inf(-1), math.Inf(1)
		if b, ok := cfg.Bounds[set.Features[i].Name]; ok {
			lo, hi = b[0], b[1]
		}
		pc.Lower, pc.Upper = append(pc.Lower, lo), append(pc.Upper, hi)
	}
	if len(cfg.Bounds) == 0 {
		pc.Lower, pc.Upper = nil, nil
	}
	var opt population.Optimizer
	var err error
	if cfg.Optimizer.Method == "cem" {
		opt, err = population.NewCEM(population.CEMConfig{Config: pc, Elite: cfg.Optimizer.Elite})
	} else {
		opt, err = population.NewCMAES(population.CMAESConfig{Config: pc})
	}
	if err != nil {
		return nil, fmt.Errorf("tuner: optimizer: %w", err)
	}
	return opt, nil
}

func cmpOr(x, def float64) float64 {
	if x == 0 {
		return def
	}
	return x
}

// GameTime returns the wall-clock time this tuner has spent playing games,
// so that callers can tell how much of a run went to everything else.
func (t *Tuner) GameTime() time.Duration { return t.gameTime }

// SetCache makes the tuner look finished games up in c before playing them
// and record every game it plays there.
func (t *Tuner) SetCache(c GameCache) { t.cache = c }

// Config returns the run's resolved config.
func (t *Tuner) Config() *Config { return t.cfg }

// Set returns the feature set being tuned.
func (t *Tuner) Set() *eval.FeatureSet { return t.set }

// SearchConfig returns the players' search.
func (t *Tuner) SearchConfig() engine.SearchConfig { return t.search }

// Metric returns the fitness metric.
func (t *Tuner) Metric() Metric { return t.metric }

// State returns a copy of the state between generations.
func (t *Tuner) State() State {
	s := t.state
	s.Optimizer = slices.Clone(s.Optimizer)
	return s
}

// Restore continues from a saved state.
func (t *Tuner) Restore(s State) error {
	if err := t.opt.UnmarshalBinary(s.Optimizer); err != nil {
		return fmt.Errorf("tuner: restore: %w", err)
	}
	t.state = s
	t.state.Optimizer = slices.Clone(s.Optimizer)
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

// Fingerprint identifies a weight vector: FNV-1a over the bits of its
// weights, so equal vectors (and only those, up to hash collisions) match.
func Fingerprint(w []float64) uint64 {
	h := fnv.New64a()
	var buf [8]byte
	for _, x := range w {
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(x))
		h.Write(buf[:])
	}
	return h.Sum64()
}

// play plays every (candidate, seed) pair on the workers and returns the
// results by candidate and game. Jobs go out game by game across the
// candidates, so no candidate waits for another, and land in slots by index.
func (t *Tuner) play(ctx context.Context, weights [][]float64, seeds []uint64) ([][]engine.Result, error) {
	evals := make([]*eval.Compiled, len(weights))
	fps := make([]uint64, len(weights))
	for c, w := range weights {
		e, err := t.set.Compile(w)
		if err != nil {
			return nil, fmt.Errorf("tuner: candidate %d: %w", c, err)
		}
		evals[c], fps[c] = e, Fingerprint(w)
	}
	results := make([][]engine.Result, len(weights))
	for c := range results {
		results[c] = make([]engine.Result, len(seeds))
	}
	if err := t.startWorkers(); err != nil {
		return nil, err
	}
	gen := t.state.Generation
	total := int64(len(weights) * len(seeds))
	started := time.Now()
	defer func() { t.gameTime += time.Since(started) }()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, len(t.workers))
	for w, s := range t.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var cur *eval.Compiled
			for {
				k := next.Add(1) - 1
				if k >= total || ctx.Err() != nil {
					return
				}
				c, j := int(k%int64(len(weights))), int(k/int64(len(weights)))
				if t.cache != nil {
					if r, ok := t.cache.Lookup(gen, fps[c], seeds[j]); ok {
						results[c][j] = r
						t.gameDone(true)
						continue
					}
				}
				if cur != evals[c] {
					s.SetEvaluator(evals[c])
					cur = evals[c]
				}
				r, err := engine.PlayContext(ctx, seeds[j], s, t.cfg.Fitness.MaxMoves)
				if err != nil {
					errs[w] = err
					return
				}
				results[c][j] = r
				if t.cache != nil {
					t.cache.Record(gen, fps[c], seeds[j], r)
				}
				t.gameDone(false)
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	t.state.Games += total
	return results, nil
}

func (t *Tuner) gameDone(replayed bool) {
	if t.events.Game != nil {
		t.events.Game(replayed)
	}
}

// fitness computes the metric of one candidate's games.
func (t *Tuner) fitness(rs []engine.Result) float64 {
	scores, tiles := make([]int, len(rs)), make([]int, len(rs))
	for i, r := range rs {
		scores[i], tiles[i] = r.Score, r.MaxTile
	}
	return t.metric.Value(scores, tiles)
}

// Validate measures the weight vector w on the validation seeds.
func (t *Tuner) Validate(ctx context.Context, w []float64) (*Validation, error) {
	seeds := make([]uint64, t.cfg.Validation.Games)
	for j := range seeds {
		seeds[j] = ValidationSeed(t.cfg.Seed, j)
	}
	rs, err := t.play(ctx, [][]float64{w}, seeds)
	if err != nil {
		return nil, err
	}
	sum := engine.Summarize(rs[0])
	return &Validation{
		Generation: t.state.Generation,
		Weights:    slices.Clone(w),
		Fitness:    t.fitness(rs[0]),
		Mean:       sum.Mean,
		CI95:       sum.CI95,
		Median:     sum.Median,
		Games:      sum.Games,
	}, nil
}

// Record is one generation's line in history.jsonl.
type Record struct {
	Generation  int     `json:"generation"`  // completed generations, from 1
	Evaluations int     `json:"evaluations"` // candidate evaluations so far
	Games       int64   `json:"games"`       // games played so far, tuning and validation
	Lambda      int     `json:"lambda"`      // candidates in this generation
	Best        float64 `json:"best"`        // best candidate fitness of this generation
	Median      float64 `json:"median"`      // median candidate fitness
	Mean        float64 `json:"mean"`        // mean candidate fitness
	Sigma       float64 `json:"sigma"`       // step size after the update, normalised coordinates
	Restarts    int     `json:"restarts"`    // IPOP restarts so far
	// Weights is the distribution mean after the update, by feature.
	Weights WeightMap `json:"weights"`
	// Validation is the mean's validation, when this generation ran one.
	Validation *RecordValidation `json:"validation,omitempty"`
	// Stop is why the run stopped after this generation, if it did.
	Stop string `json:"stop,omitempty"`
	// Elapsed is the wall-clock time of the run so far: the one field that
	// differs between two runs with equal configs.
	Elapsed float64 `json:"elapsed_s"`
}

// RecordValidation is a validation as history.jsonl shows it.
type RecordValidation struct {
	Fitness float64 `json:"fitness"`
	Mean    float64 `json:"mean"`
	CI95    float64 `json:"ci95"`
	Median  float64 `json:"median"`
	Games   int     `json:"games"`
}

// WeightMap is a weight vector written as a JSON object in feature order.
type WeightMap struct {
	Names  []string
	Values []float64
}

// MarshalJSON writes {"name": value, ...} in feature order.
func (m WeightMap) MarshalJSON() ([]byte, error) {
	var sb strings.Builder
	sb.WriteByte('{')
	for i, n := range m.Names {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, "%q:%s", n, formatFloat(m.Values[i]))
	}
	sb.WriteByte('}')
	return []byte(sb.String()), nil
}

// StopReason says why the run must not play another generation, or "".
func (t *Tuner) StopReason(elapsed time.Duration) string { return t.stopReason(elapsed) }

func (t *Tuner) stopReason(elapsed time.Duration) string {
	return t.stopReasonAt(t.state.Generation, elapsed)
}

// stopReasonAt is stopReason after generations completed generations.
func (t *Tuner) stopReasonAt(generations int, elapsed time.Duration) string {
	switch {
	case t.cfg.Generations > 0 && generations >= t.cfg.Generations:
		return fmt.Sprintf("generations: %d done", generations)
	case t.cfg.Duration > 0 && elapsed >= time.Duration(t.cfg.Duration):
		return fmt.Sprintf("duration: %v spent", time.Duration(t.cfg.Duration))
	}
	if r, ok := t.opt.Stop(); ok {
		return "optimizer: " + string(r)
	}
	return ""
}

// Step runs one generation: ask, play every candidate on the generation's
// common seeds, tell, and validate the new mean when it is due or when the
// run stops here. now returns the run's wall-clock time so far (for the
// duration budget and the record). On error, including cancellation, the
// state is left as it was before the step.
func (t *Tuner) Step(ctx context.Context, now func() time.Duration) (Record, error) {
	saved := t.State()
	rec, err := t.step(ctx, now)
	if err != nil {
		if rerr := t.Restore(saved); rerr != nil {
			return Record{}, errors.Join(err, rerr)
		}
		return Record{}, err
	}
	return rec, nil
}

func (t *Tuner) step(ctx context.Context, now func() time.Duration) (Record, error) {
	g := t.state.Generation
	cands := t.opt.Ask()
	weights := make([][]float64, len(cands))
	for c, x := range cands {
		weights[c] = t.full(x)
	}
	seeds := make([]uint64, t.cfg.Fitness.Games)
	for j := range seeds {
		seeds[j] = TuningSeed(t.cfg.Seed, len(seeds), g, j)
	}
	results, err := t.play(ctx, weights, seeds)
	if err != nil {
		return Record{}, err
	}
	fit := make([]float64, len(cands))
	neg := make([]float64, len(cands))
	for c := range cands {
		fit[c] = t.fitness(results[c])
		neg[c] = -fit[c] // the optimizer minimises
	}
	if err := t.opt.Tell(neg); err != nil {
		return Record{}, fmt.Errorf("tuner: generation %d: %w", g+1, err)
	}
	// The state's generation advances only at the end: every game of this
	// step, validation included, is journalled under the generation of the
	// checkpoint it would be replayed from.
	done := g + 1
	rec := Record{
		Generation:  done,
		Evaluations: t.opt.Evaluations(),
		Lambda:      len(cands),
		Best:        slices.Max(fit),
		Median:      engine.Median(fit),
		Sigma:       t.opt.Sigma(),
		Restarts:    t.opt.Restarts(),
		Weights:     WeightMap{Names: t.set.FeatureNames(), Values: t.full(t.opt.Mean())},
	}
	rec.Mean, _ = engine.MeanCI95(fit)
	rec.Stop = t.stopReasonAt(done, now())
	if rec.Stop != "" || done%t.cfg.Validation.Every == 0 {
		v, err := t.Validate(ctx, rec.Weights.Values)
		if err != nil {
			return Record{}, err
		}
		v.Generation = done
		t.state.Validated = v
		rec.Validation = &RecordValidation{Fitness: v.Fitness, Mean: v.Mean, CI95: v.CI95, Median: v.Median, Games: v.Games}
		if t.events.Validation != nil {
			t.events.Validation(v, false)
		}
	}
	rec.Games = t.state.Games
	t.state.Generation = done
	t.state.Done = rec.Stop
	rec.Elapsed = now().Seconds()
	if t.state.Optimizer, err = t.opt.MarshalBinary(); err != nil {
		return Record{}, err
	}
	return rec, nil
}

// ValidateStart measures the starting weights once per run, before the first
// generation, on the validation seeds: the figure the tuned weights are
// compared with.
func (t *Tuner) ValidateStart(ctx context.Context) error {
	if t.state.Start != nil {
		return nil
	}
	v, err := t.Validate(ctx, t.base)
	if err != nil {
		return err
	}
	t.state.Start = v
	if t.events.Validation != nil {
		t.events.Validation(v, true)
	}
	return nil
}

// Recommended returns the recommended weights: the latest validated
// distribution mean, or the starting weights before any validation.
func (t *Tuner) Recommended() *Validation {
	if t.state.Validated != nil {
		return t.state.Validated
	}
	return t.state.Start
}
