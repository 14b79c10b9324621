package tuner

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// PlayerConfig is an external player to tune instead of a feature set,
// under the key player: a program that speaks the player protocol
// (tuner/playerpool) and declares its parameters. The tuner takes the
// parameters' names, defaults and bounds from the player's declaration,
// works in coordinates normalised by each parameter's range (sigma is then
// a fraction of the range), and holds the Fixed ones at their starting
// value. The search keys of the config do not apply: the player searches
// as it does.
type PlayerConfig struct {
	// Command runs the player: the program, then its arguments, as a list
	// (no shell is involved).
	Command []string `yaml:"command"`
	// Init is the starting value by parameter name; parameters left out
	// start at their declared default.
	Init map[string]float64 `yaml:"init,omitempty"`
	// Bounds narrow parameters' declared bounds, by name: [lower, upper].
	Bounds map[string][]float64 `yaml:"bounds,omitempty"`
	// Fixed names parameters held at their starting value: a player whose
	// evaluation is scale-invariant wastes a dimension on one of them. A
	// parameter declared with min = max is held without being named.
	Fixed []string `yaml:"fixed,omitempty"`
	// Declared is what the player declared in its handshake when the run
	// began. evotune writes it (a config need not), so that the run's
	// config says which player it tuned and a resumed run refuses a player
	// that now declares something else.
	Declared *PlayerDeclaration `yaml:"declared,omitempty"`
}

// PlayerDeclaration is a player's handshake: its id line and parameters,
// as a run's config records it and as a NATS job names the player.
type PlayerDeclaration struct {
	ID      string          `yaml:"id" json:"id"`
	Version string          `yaml:"version" json:"version"`
	Params  []DeclaredParam `yaml:"params" json:"params"`
}

// DeclaredParam is one declared parameter.
type DeclaredParam struct {
	Name    string  `yaml:"name" json:"name"`
	Type    string  `yaml:"type" json:"type"` // float or int
	Default float64 `yaml:"default" json:"default"`
	Min     float64 `yaml:"min" json:"min"`
	Max     float64 `yaml:"max" json:"max"`
}

// names returns the declared parameters' names, in order.
func (d *PlayerDeclaration) names() []string {
	names := make([]string, len(d.Params))
	for i, p := range d.Params {
		names[i] = p.Name
	}
	return names
}

func (d *PlayerDeclaration) index(name string) int {
	return slices.IndexFunc(d.Params, func(p DeclaredParam) bool { return p.Name == name })
}

// bounds returns parameter i's bounds: the config's, else the declared.
func (pc *PlayerConfig) bounds(i int) (lo, hi float64) {
	q := pc.Declared.Params[i]
	if b, ok := pc.Bounds[q.Name]; ok {
		return b[0], b[1]
	}
	return q.Min, q.Max
}

// resolvePlayer fills player.init from the declared defaults.
func (c *Config) resolvePlayer() {
	pc := c.Player
	if pc.Declared == nil {
		return
	}
	init := make(map[string]float64, len(pc.Declared.Params))
	for _, q := range pc.Declared.Params {
		init[q.Name] = q.Default
	}
	for k, v := range pc.Init {
		init[k] = v
	}
	pc.Init = init
}

// validatePlayer checks the player section and that nothing of a feature
// set's tuning comes with it.
func (c *Config) validatePlayer() error {
	pc := c.Player
	switch {
	case c.SetName != "" || c.Set != nil:
		return c.errorf("features", "%q with a player: a run tunes a feature set or a player, not both", c.SetName)
	case len(c.Init) > 0:
		return c.errorf("init", "a feature set's weights with a player: give the player's starting values in player.init")
	case len(c.Bounds) > 0:
		return c.errorf("bounds", "a feature set's bounds with a player: give the player's in player.bounds")
	case len(pc.Command) == 0 || pc.Command[0] == "":
		return c.errorf("player.command", "want the player's program and its arguments, a list such as [python3, player.py]")
	case pc.Declared == nil:
		return c.errorf("player", "the player's declaration is missing: evotune reads it from the player before the run begins")
	}
	d := pc.Declared
	if len(d.Params) == 0 {
		return c.errorf("player", "player %s declares no parameter: there is nothing to tune", d.ID)
	}
	unknown := func(k string) string {
		return fmt.Sprintf("player %s has no parameter %q (it declares %s)", d.ID, k, strings.Join(d.names(), ", "))
	}
	for i, q := range d.Params {
		if q.Type != "float" && q.Type != "int" || !(q.Min <= q.Default && q.Default <= q.Max) || math.IsInf(q.Min, 0) || math.IsInf(q.Max, 0) || d.index(q.Name) != i {
			return c.errorf("player.declared", "parameter %+v: want a unique name, type float or int, and finite min <= default <= max", q)
		}
	}
	for _, k := range sortedKeys(pc.Init) {
		i := d.index(k)
		if i < 0 {
			return c.errorf("player.init."+k, "%s", unknown(k))
		}
		if lo, hi := pc.bounds(i); !(pc.Init[k] >= lo && pc.Init[k] <= hi) {
			return c.errorf("player.init."+k, "%v: want a value in [%v, %v]", pc.Init[k], lo, hi)
		}
	}
	for _, k := range sortedKeys(pc.Bounds) {
		b := pc.Bounds[k]
		i := d.index(k)
		if i < 0 {
			return c.errorf("player.bounds."+k, "%s", unknown(k))
		}
		if len(b) != 2 || !(b[0] < b[1]) {
			return c.errorf("player.bounds."+k, "%v: want [lower, upper] with lower < upper", b)
		}
		if q := d.Params[i]; b[0] < q.Min || b[1] > q.Max {
			return c.errorf("player.bounds."+k, "[%v, %v]: want bounds within the declared [%v, %v]", b[0], b[1], q.Min, q.Max)
		}
	}
	free := len(d.Params)
	for i, k := range pc.Fixed {
		if d.index(k) < 0 {
			return c.errorf("player.fixed", "%s", unknown(k))
		}
		if slices.Index(pc.Fixed, k) != i {
			return c.errorf("player.fixed", "%q listed twice", k)
		}
		free--
	}
	for i, q := range d.Params {
		// A parameter with one value is held (see Coordinates).
		if lo, hi := pc.bounds(i); lo == hi && !slices.Contains(pc.Fixed, q.Name) {
			free--
		}
	}
	if free == 0 {
		return c.errorf("player.fixed", "every parameter is fixed or declared with min = max: there is nothing to tune")
	}
	return nil
}
