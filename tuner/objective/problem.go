package objective

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/evotune/evotune/tuner"
)

// A Param is one free parameter of a problem, as the first line of the
// exchange describes it: its values are the problem's own (a weight, a
// shape parameter, a player's parameter).
type Param struct {
	Name  string  `json:"name"`
	Start float64 `json:"start"`
	// Min and Max bound the values a request may give; nil is unbounded
	// (a feature weight without bounds in the config).
	Min *float64 `json:"min"`
	Max *float64 `json:"max"`
	// Scale is the tuner's unit for the parameter: the start's magnitude
	// (1 where it is 0), or a player parameter's range.
	Scale float64 `json:"scale"`
	// Type is "float" or "int" (a player's integer parameter).
	Type string `json:"type"`
}

// A Problem is what the server plays: a family of players, the pool that
// plays them, the start and which coordinates are free.
type Problem struct {
	// Name names the problem in the first line (a tunebench problem, a
	// preset, a config file, a player).
	Name    string
	Players tuner.Players
	Pool    tuner.Pool
	// Names and Start are the whole parameter vector, fixed coordinates
	// too, in the order Players.VectorNames gives.
	Names []string
	Start []float64
	// Params are the free coordinates, in vector order; Fixed the others
	// with the value they are held at.
	Params []Param
	Fixed  map[string]float64
	free   []int
	// Search describes the player's search; Metric the config's fitness
	// metric; Games its games per candidate, a hint for an optimizer that
	// has no better idea.
	Search string
	Metric string
	Games  int
	// MaxMoves stops each game after this many moves; 0 plays to the end.
	MaxMoves int
	// RunSeed names the stream of games a request's "first" counts in.
	RunSeed uint64
}

// New returns the problem cfg poses: cfg is resolved and valid. A config
// that tunes a player needs its family and a pool that plays it; one that
// tunes a feature set needs neither (nil pool: a LocalPool of cfg.Workers
// goroutines). The games are played with the last stage's validation
// search, the one the tuner's recommendation is judged with, and the move
// limit of the config's fitness.
func New(name string, cfg *tuner.Config, players tuner.Players, pool tuner.Pool) (*Problem, error) {
	stages := cfg.StageList()
	last := stages[len(stages)-1]
	p := &Problem{
		Name: name, Players: players, Pool: pool, Fixed: map[string]float64{},
		Metric: cfg.Fitness.Metric, Games: last.Games, MaxMoves: cfg.Fitness.MaxMoves, RunSeed: cfg.Seed,
	}
	bounded := func(lo, hi float64) (*float64, *float64) {
		var l, h *float64
		if !math.IsInf(lo, -1) {
			l = &lo
		}
		if !math.IsInf(hi, 1) {
			h = &hi
		}
		return l, h
	}
	if pc := cfg.Player; pc != nil {
		if pc.Declared == nil {
			return nil, errors.New("objective: the player's declaration is missing")
		}
		if players == nil || pool == nil {
			return nil, errors.New("objective: a player's problem needs its family and a pool")
		}
		p.Search = "the player's own"
		for _, q := range pc.Declared.Params {
			x := pc.Init[q.Name]
			p.Names, p.Start = append(p.Names, q.Name), append(p.Start, x)
			if slices.Contains(pc.Fixed, q.Name) {
				p.Fixed[q.Name] = x
				continue
			}
			lo, hi := q.Min, q.Max
			if b, ok := pc.Bounds[q.Name]; ok {
				lo, hi = b[0], b[1]
			}
			typ := cmp.Or(q.Type, "float")
			l, h := bounded(lo, hi)
			p.free = append(p.free, len(p.Names)-1)
			p.Params = append(p.Params, Param{Name: q.Name, Start: x, Min: l, Max: h, Scale: hi - lo, Type: typ})
		}
		return p, nil
	}
	set, err := cfg.FeatureSet()
	if err != nil {
		return nil, err
	}
	search := cfg.StageValidationSearch(len(stages) - 1)
	p.Search = search.String()
	if p.Players == nil {
		p.Players = tuner.FeaturePlayers{Set: set, Search: search}
	}
	if p.Pool == nil {
		p.Pool = tuner.NewLocalPool(cfg.Workers)
	}
	// The tuner holds a scale-invariant set's reference weight when its
	// search adds no move scores: only directions matter then.
	ref := -1
	if set.ScaleInvariant && !last.Search.ScoresMoves() {
		ref = set.ReferenceIndex()
	}
	for i, name := range set.VectorNames() {
		x := cfg.Init[name]
		p.Names, p.Start = append(p.Names, name), append(p.Start, x)
		if i == ref {
			p.Fixed[name] = x
			continue
		}
		lo, hi := math.Inf(-1), math.Inf(1)
		if k := i - len(set.Features); k >= 0 {
			lo, hi = set.Params[k].Min, set.Params[k].Max
		}
		if b, ok := cfg.Bounds[name]; ok {
			lo, hi = b[0], b[1]
		}
		l, h := bounded(lo, hi)
		p.free = append(p.free, i)
		p.Params = append(p.Params, Param{Name: name, Start: x, Min: l, Max: h, Scale: cmp.Or(math.Abs(x), 1), Type: "float"})
	}
	return p, nil
}

// Seed returns the seed of game k of the problem's stream, the games a
// request's "first" counts: the tuner's own tuning games of run seed
// RunSeed, so that tunebench's proof that its held-out games are disjoint
// from a run's holds for them too.
func (p *Problem) Seed(k uint64) uint64 { return tuner.TuningSeedAt(p.RunSeed, k) }

// Vector returns the whole parameter vector of the free parameters'
// values, by name, checking each: every free parameter named once, within
// its bounds, finite, an integer where its type says so; a fixed one, if
// named, at the value it is held at.
func (p *Problem) Vector(values map[string]float64) ([]float64, error) {
	v := slices.Clone(p.Start)
	for name, x := range values {
		i := slices.Index(p.Names, name)
		if i < 0 {
			return nil, fmt.Errorf("unknown parameter %q (parameters: %s)", name, p.names())
		}
		if held, ok := p.Fixed[name]; ok {
			if x != held {
				return nil, fmt.Errorf("%s: %v: held at %v (leave it out)", name, x, held)
			}
			continue
		}
		q := p.Params[slices.Index(p.free, i)]
		switch {
		case math.IsNaN(x) || math.IsInf(x, 0):
			return nil, fmt.Errorf("%s: not a finite number", name)
		case q.Min != nil && x < *q.Min, q.Max != nil && x > *q.Max:
			return nil, fmt.Errorf("%s: %v: out of bounds, want %s", name, x, q.bounds())
		case q.Type == "int" && x != math.Trunc(x):
			return nil, fmt.Errorf("%s: %v: want an integer (type int)", name, x)
		}
		v[i] = x
	}
	for _, q := range p.Params {
		if _, ok := values[q.Name]; !ok {
			return nil, fmt.Errorf("missing %s (want every free parameter: %s)", q.Name, p.names())
		}
	}
	return v, nil
}

// names lists the free parameters, for errors.
func (p *Problem) names() string {
	var s string
	for i, q := range p.Params {
		if i > 0 {
			s += ", "
		}
		s += q.Name
	}
	return s
}

// bounds says what values q allows.
func (q Param) bounds() string {
	lo, hi := "-inf", "+inf"
	if q.Min != nil {
		lo = fmt.Sprint(*q.Min)
	}
	if q.Max != nil {
		hi = fmt.Sprint(*q.Max)
	}
	return "[" + lo + ", " + hi + "]"
}
