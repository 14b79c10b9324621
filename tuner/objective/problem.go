package objective

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/evotune/evotune/tuner"
)

// A Param is one free parameter of a problem, as the first line of the
// exchange describes it: its values are the problem's own (a weight, a
// shape parameter, a player's parameter).
type Param struct {
	Name  string  `json:"name"`
	Start float64 `json:"start"`
	// Min and Max bound the values a request may give; nil is unbounded.
	// They are the tuner's bounds (the config's, a shape parameter's or a
	// player parameter's own) within what the games can take (a set that
	// holds its weights in float32: ±3.4028234663852886e38).
	Min *float64 `json:"min"`
	Max *float64 `json:"max"`
	// Box is a search box for optimizers that need one: [Min, Max] where
	// both are finite (and narrower than the float32 limit), else from 0
	// to 3 times the start on the start's side of 0 ([−1, 1] for a start
	// of 0), cut to Min and Max. Values outside it are allowed.
	Box [2]float64 `json:"box"`
	// Scale is the tuner's unit for the parameter: the start's magnitude
	// (1 where it is 0), or a player parameter's range.
	Scale float64 `json:"scale"`
	// Type is "float" or "int" (a player's integer parameter).
	Type string `json:"type"`
}

// A Problem is what the server plays: a family of players, the pool that
// plays them, the start and which coordinates are free. New makes one;
// its fields are for reading. A Server refuses a Problem not made by New.
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

	coords []tuner.Coordinate
	free   []int // the indices in Names of Params
}

// errUnbuilt is Serve's error for a Problem not made by New.
var errUnbuilt = errors.New("objective: a Problem is made by New")

// New returns the problem cfg poses: cfg is resolved and valid. A config
// that tunes a player needs its family and a pool that plays it; one that
// tunes a feature set needs neither (nil pool: a LocalPool of cfg.Workers
// goroutines). The games are played with the last stage's validation
// search, the one the tuner's recommendation is judged with, and the move
// limit of the config's fitness. Free parameters, bounds, scales and held
// weights are the tuner's (tuner.Coordinates) under that search.
func New(name string, cfg *tuner.Config, players tuner.Players, pool tuner.Pool) (*Problem, error) {
	stages := cfg.StageList()
	last := stages[len(stages)-1]
	p := &Problem{
		Name: name, Players: players, Pool: pool, Fixed: map[string]float64{},
		Metric: cfg.Fitness.Metric, Games: last.Games, MaxMoves: cfg.Fitness.MaxMoves, RunSeed: cfg.Seed,
	}
	search := cfg.StageValidationSearch(len(stages) - 1)
	if cfg.Player != nil {
		if players == nil || pool == nil {
			return nil, errors.New("objective: a player's problem needs its family and a pool")
		}
		p.Search = "the player's own"
	} else {
		set, err := cfg.FeatureSet()
		if err != nil {
			return nil, err
		}
		p.Search = search.String()
		if p.Players == nil {
			p.Players = tuner.FeaturePlayers{Set: set, Search: search}
		}
		if p.Pool == nil {
			p.Pool = tuner.NewLocalPool(cfg.Workers)
		}
	}
	coords, err := tuner.Coordinates(cfg, search)
	if err != nil {
		return nil, err
	}
	p.coords = coords
	for i, c := range coords {
		p.Names, p.Start = append(p.Names, c.Name), append(p.Start, c.Start)
		if c.Held {
			p.Fixed[c.Name] = c.Start
			continue
		}
		p.free = append(p.free, i)
		p.Params = append(p.Params, param(c))
	}
	return p, nil
}

// param describes a free coordinate for the first line.
func param(c tuner.Coordinate) Param {
	q := Param{Name: c.Name, Start: c.Start, Scale: c.Scale, Type: "float"}
	if c.Int {
		q.Type = "int"
	}
	lo, hi := max(c.Lower, -c.Limit), min(c.Upper, c.Limit)
	if !math.IsInf(lo, -1) {
		q.Min = &lo
	}
	if !math.IsInf(hi, 1) {
		q.Max = &hi
	}
	if c.Lower > -c.Limit && c.Upper < c.Limit {
		q.Box = [2]float64{lo, hi}
		return q
	}
	switch x := c.Start; {
	case x > 0:
		q.Box = [2]float64{0, 3 * x}
	case x < 0:
		q.Box = [2]float64{3 * x, 0}
	default:
		q.Box = [2]float64{-1, 1}
	}
	q.Box = [2]float64{max(q.Box[0], lo), min(q.Box[1], hi)}
	return q
}

// Seed returns the seed of game k of the problem's stream, the games a
// request's "first" counts: the tuner's own tuning games of run seed
// RunSeed, so that tunebench's proof that its held-out games are disjoint
// from a run's holds for them too.
func (p *Problem) Seed(k uint64) uint64 { return tuner.TuningSeedAt(p.RunSeed, k) }

// HeldOutSeed returns the seed of game k of the problem's held-out block:
// the tuner's validation games of run seed RunSeed, which no game of the
// stream (Seed) is.
func (p *Problem) HeldOutSeed(k uint64) uint64 { return tuner.ValidationSeed(p.RunSeed, int(k)) }

// A value is one parameter value of a request, as it was written.
type value struct {
	name string
	raw  string // the JSON text, for errors
	x    float64
}

// vector returns the whole parameter vector of the free parameters'
// values, checking each as the games need it: no unknown name, every free
// parameter given, within its bounds (Param.Min, Param.Max), an integer
// where its type says so; a fixed one, if given, at the value it is held
// at. The first problem found is named: an unknown name in the order
// given, then the parameters in the problem's order, so the error does not
// depend on the order of the values.
func (p *Problem) vector(key string, values []value) ([]float64, error) {
	if p.coords == nil {
		return nil, errUnbuilt
	}
	for _, v := range values {
		if !slices.Contains(p.Names, v.name) {
			return nil, fmt.Errorf("%s.%s: unknown parameter (parameters: %s)", key, v.name, p.names())
		}
	}
	vec := slices.Clone(p.Start)
	for i, c := range p.coords {
		k := slices.IndexFunc(values, func(v value) bool { return v.name == c.Name })
		if k < 0 {
			if c.Held {
				continue
			}
			return nil, fmt.Errorf("%s.%s: missing (want every free parameter: %s)", key, c.Name, p.names())
		}
		v := values[k]
		if c.Held {
			if v.x != c.Start {
				return nil, fmt.Errorf("%s.%s: %s: held at %v (leave it out)", key, c.Name, v.raw, num(c.Start))
			}
			continue
		}
		q := p.Params[slices.Index(p.free, i)]
		switch {
		case math.IsNaN(v.x) || math.IsInf(v.x, 0):
			return nil, fmt.Errorf("%s.%s: %s: want a finite number", key, c.Name, v.raw)
		case q.Min != nil && v.x < *q.Min, q.Max != nil && v.x > *q.Max:
			why := ""
			if math.Abs(v.x) > c.Limit {
				why = " (the set's weights are float32)"
			}
			return nil, fmt.Errorf("%s.%s: %s: out of bounds, want %s%s", key, c.Name, v.raw, q.bounds(), why)
		case c.Int && v.x != math.Trunc(v.x):
			return nil, fmt.Errorf("%s.%s: %s: want an integer (type int)%s", key, c.Name, v.raw, q.write(v.x))
		}
		vec[i] = v.x
	}
	return vec, nil
}

// write names the integers within q's bounds next to x, a number with a
// fraction: " (write 4 or 5)", or "" where none is.
func (q Param) write(x float64) string {
	var ns []string
	for _, n := range []float64{math.Floor(x), math.Ceil(x)} {
		if (q.Min == nil || n >= *q.Min) && (q.Max == nil || n <= *q.Max) {
			ns = append(ns, num(n))
		}
	}
	if len(ns) == 0 {
		return ""
	}
	return " (write " + strings.Join(ns, " or ") + ")"
}

// names lists the free parameters, for errors.
func (p *Problem) names() string {
	names := make([]string, len(p.Params))
	for i, q := range p.Params {
		names[i] = q.Name
	}
	return strings.Join(names, ", ")
}

// bounds says what values q allows.
func (q Param) bounds() string {
	lo, hi := "-inf", "+inf"
	if q.Min != nil {
		lo = num(*q.Min)
	}
	if q.Max != nil {
		hi = num(*q.Max)
	}
	return "[" + lo + ", " + hi + "]"
}

// num writes x as JSON would, the shortest decimal that reads back.
func num(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
