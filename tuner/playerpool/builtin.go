package playerpool

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

// WeightBound is how far a built-in player lets a weight go: a weight
// whose default is d takes values in [-WeightBound·|d|, WeightBound·|d|]
// (a default of 0 borrows the set's largest |default|, or 1). The protocol
// needs finite bounds and a tuner of players scales its steps by them; ten
// times the default leaves room for any weight that tuning has been seen
// to reach (the tuned files in configs/ stay within 3x) while keeping a
// step relative to the range meaningful. A config's bounds narrow them.
const WeightBound = 10

// SearchPlayer serves a built-in player: a registered feature set's
// evaluator under a search. Its parameters are the set's weights, then its
// shape parameters (eval.FeatureSet.VectorNames), so a vector means the
// same to it as to the tuner's in-process FeaturePlayers.
//
// It holds DefaultSets parameter sets and so speaks version 2 of the
// protocol; VersionOne(p) serves it as a player of version 1.
type SearchPlayer struct {
	set    *eval.FeatureSet
	search engine.SearchConfig
	params []Param
	s      engine.Searcher
	evals  [DefaultSets + 1]engine.Evaluator // by set number; 0 unused
	in     int                               // the set whose evaluator s has, 0 after Set
}

// DefaultSets is how many parameter sets a SearchPlayer holds: a slot of
// DefaultBatch boards mixes the games of a few candidates (16 of 8 games
// each fill it), and a set costs only its compiled evaluator.
const DefaultSets = 16

var _ SetsPlayer = (*SearchPlayer)(nil)

// NewSearchPlayer returns the player of set under search, starting from
// the vector v (weights, then parameters; nil: the set's defaults), which
// also becomes the declared defaults.
func NewSearchPlayer(set *eval.FeatureSet, search engine.SearchConfig, v []float64) (*SearchPlayer, error) {
	if v == nil {
		v = set.DefaultVector()
	}
	e, err := set.CompileVector(v)
	if err != nil {
		return nil, err
	}
	s, err := engine.NewSearcher(e, search)
	if err != nil {
		return nil, err
	}
	p := &SearchPlayer{set: set, search: search, s: s}
	largest := 0.0
	for _, d := range set.Defaults {
		largest = max(largest, math.Abs(d))
	}
	for i, f := range set.Features {
		m := WeightBound * cmp.Or(math.Abs(set.Defaults[i]), largest, 1)
		// The starting vector may lie beyond the default's bounds (a tuned
		// file): widen them to hold it rather than refuse to serve it.
		m = max(m, math.Abs(v[i]))
		p.params = append(p.params, Param{Name: f.Name, Default: v[i], Min: -m, Max: m})
	}
	for k, q := range set.Params {
		p.params = append(p.params, Param{Name: q.Name, Default: v[len(set.Features)+k], Min: q.Min, Max: q.Max})
	}
	if err := checkParams(p.params); err != nil {
		return nil, fmt.Errorf("playerpool: %s: %w", set.Name, err)
	}
	return p, nil
}

// ID implements Player: evotune-NAME, and the set's version and the search
// as the version, so a run remembers exactly which player it tuned.
func (p *SearchPlayer) ID() (string, string) {
	return "evotune-" + p.set.Name, p.set.Version() + " " + p.search.String()
}

// Params implements Player.
func (p *SearchPlayer) Params() []Param { return slices.Clone(p.params) }

// Set implements Player: it compiles the vector and hands it to the
// searcher.
func (p *SearchPlayer) Set(values []float64) error {
	e, err := p.set.CompileVector(values)
	if err != nil {
		return err
	}
	p.s.SetEvaluator(e)
	p.in = 0
	return nil
}

// Sets implements SetsPlayer.
func (p *SearchPlayer) Sets() int { return DefaultSets }

// SetIn implements SetsPlayer: it compiles the vector for set s.
func (p *SearchPlayer) SetIn(s int, values []float64) error {
	if s < 1 || s > DefaultSets {
		return fmt.Errorf("set %d: want 1 to %d", s, DefaultSets)
	}
	e, err := p.set.CompileVector(values)
	if err != nil {
		return err
	}
	p.evals[s] = e
	if p.in == s {
		p.s.SetEvaluator(e)
	}
	return nil
}

// MovesIn implements SetsPlayer: Moves, each board under its set's
// evaluator.
func (p *SearchPlayer) MovesIn(boards []engine.Board, sets []uint8, dst []engine.Dir) error {
	r, _ := p.s.(engine.Resetter)
	for i, b := range boards {
		s := int(sets[i])
		if s < 1 || s > DefaultSets || p.evals[s] == nil {
			return fmt.Errorf("board %d: set %d holds no values", i+1, s)
		}
		if s != p.in {
			p.s.SetEvaluator(p.evals[s])
			p.in = s
		}
		if r != nil {
			r.Reset()
		}
		dst[i] = p.s.Move(b)
	}
	return nil
}

// Moves implements Player. The searcher forgets its table before each
// board: a table kept across the boards of a game changes moves where a
// probability cutoff is on, and the protocol wants a move that depends on
// the board alone, whatever was asked before (boards of many games come
// interleaved).
func (p *SearchPlayer) Moves(boards []engine.Board, dst []engine.Dir) error {
	r, _ := p.s.(engine.Resetter)
	for i, b := range boards {
		if r != nil {
			r.Reset()
		}
		dst[i] = p.s.Move(b)
	}
	return nil
}
