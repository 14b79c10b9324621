package tuner

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

// A Coordinate is one coordinate of the vector a config tunes, as the tuner
// tunes it: what an optimizer of one's own needs to search the same space
// (package objective serves it), and what the tuner's own optimizer is
// built from. Coordinates is the one place that decides it.
type Coordinate struct {
	Name string
	// Start is the run's starting value: the config's init, else the set's
	// default weight or parameter, or for a player player.init, else its
	// declared default.
	Start float64
	// Lower and Upper bound the values the tuner tries: the config's
	// bounds, else a shape parameter's or a player parameter's own; ±Inf
	// where there are none (a feature weight without bounds in the config).
	Lower, Upper float64
	// Limit is the largest magnitude the evaluation can take (a set whose
	// model holds its weights in float32, eval.FeatureSet.WeightLimit); +Inf
	// for any finite value.
	Limit float64
	// Scale is the parameter's magnitude, the unit an optimizer in
	// normalised coordinates searches in (evotune objective gives it):
	// the start's magnitude (1 where it is 0) for a set's weight or shape
	// parameter, the bounds' width for a player's parameter. Never 0 for a
	// coordinate that is not held.
	Scale float64
	// Unit is the tuner's own: its optimizer works in (x − start) / Unit.
	// Scale, but for a set's shape parameter no more than a fifth of its
	// bounds' width (shapeSteps): the tuner's first steps use the bounds
	// as well as the magnitude.
	Unit float64
	// Int marks a player's integer parameter.
	Int bool
	// Held says the tuner holds it at Start: a player's parameter named in
	// player.fixed or whose bounds allow one value, or the reference weight
	// of a scale-invariant set under a search that adds no move scores
	// (only the weights' directions matter then; see
	// eval.FeatureSet.Reference).
	Held bool
}

// shapeSteps is how many of the tuner's units a set's shape parameter
// spans at least between its bounds. A step of σ·|start| suits a weight, whose effect is
// proportional to it; a shape parameter is another matter: the nneonneo
// set's powers start at 4 and 3.5 in [1, 6], where steps of 0.3·4 are most
// of the range and change r^p by far more than 30% (a power's natural step
// is a fraction of a unit). Tuned at cap 1 with the powers' unit at their
// start, the distribution mean's held-out ratio fell from ×1.5 to ×0.7
// within a generation; a fifth of the range (unit 1, steps of 0.3) ended
// runs of 5,000 games higher in median and far higher in the worst run,
// where a tenth was too slow and a third let the falls back
// (docs/tunebench-tried.md). A weight keeps its start's magnitude, bounds
// or not: a config's bounds on a weight say where it may go, not how far
// a step should take it. Scale, what evotune objective gives other
// optimizers, stays the magnitude: the box beside it says the rest.
const shapeSteps = 5

// Coordinates returns the coordinates of the vector cfg tunes, in the
// order of the players' VectorNames, for players searching with search (a
// stage's tuning search; a player's config ignores it). cfg is resolved
// and valid. A held reference weight that is not positive is an error:
// it would restrict the search to the directions that reverse the set's
// sense of that feature.
func Coordinates(cfg *Config, search engine.SearchConfig) ([]Coordinate, error) {
	if pc := cfg.Player; pc != nil {
		if pc.Declared == nil {
			return nil, fmt.Errorf("%w: player: the player's declaration is missing", ErrConfig)
		}
		cs := make([]Coordinate, len(pc.Declared.Params))
		for i, q := range pc.Declared.Params {
			lo, hi := pc.bounds(i)
			cs[i] = Coordinate{
				Name: q.Name, Start: pc.Init[q.Name], Lower: lo, Upper: hi, Limit: math.Inf(1),
				Scale: hi - lo, Unit: hi - lo, Int: q.Type == "int", Held: slices.Contains(pc.Fixed, q.Name) || lo == hi,
			}
		}
		return cs, nil
	}
	set, err := cfg.FeatureSet()
	if err != nil {
		return nil, err
	}
	return setCoordinates(cfg, set, search)
}

// setCoordinates is Coordinates for a config that tunes set.
func setCoordinates(cfg *Config, set *eval.FeatureSet, search engine.SearchConfig) ([]Coordinate, error) {
	ref := -1
	if set.ScaleInvariant && !search.ScoresMoves() {
		ref = set.ReferenceIndex()
	}
	limit := math.Inf(1)
	if set.WeightLimit > 0 {
		limit = set.WeightLimit
	}
	names := set.VectorNames()
	cs := make([]Coordinate, len(names))
	for i, name := range names {
		x := cfg.Init[name]
		c := Coordinate{Name: name, Start: x, Lower: math.Inf(-1), Upper: math.Inf(1), Limit: limit, Scale: cmp.Or(math.Abs(x), 1), Held: i == ref}
		shape := i >= len(set.Features)
		if shape { // a shape parameter: always within its own bounds
			k := i - len(set.Features)
			c.Lower, c.Upper, c.Limit = set.Params[k].Min, set.Params[k].Max, math.Inf(1)
		}
		if b, ok := cfg.Bounds[name]; ok {
			c.Lower, c.Upper = b[0], b[1]
		}
		c.Unit = c.Scale
		if shape {
			c.Unit = math.Min(c.Scale, (c.Upper-c.Lower)/shapeSteps)
		}
		if c.Held && !(x > 0) {
			return nil, cfg.errorf("init."+name, "%v: %s is the reference weight the tuner holds under this search (only the weights' directions matter): want it positive, as the set's default is", x, name)
		}
		cs[i] = c
	}
	return cs, nil
}
