package playerpool

import (
	"context"
	"fmt"
	"slices"

	"github.com/evotune/evotune/tuner"
)

// A Family is an external player and its declared parameters: one player
// for each vector of parameter values. It is the tuner.Players kind that
// Pool plays; a vector's coordinates are the values of Params, in order,
// in the player's own units.
type Family struct {
	// Command runs the player: the program, then its arguments.
	Command []string
	// ID and Version are what the player's id line says: a player that
	// says otherwise on a later start is refused (ErrMismatch), so a run
	// never mixes two versions of a player.
	ID, Version string
	// Params are the declared parameters, in declaration order.
	Params []Param
	// Sets is the number of parameter sets the player holds at once, as
	// its protocol line declares (version 2), or 0 for a player of
	// version 1. It is how the player is spoken to, not what it plays: a
	// run's declaration does not record it, and a player may change it
	// between runs without changing a result.
	Sets int
}

var _ tuner.Players = Family{}

// VectorNames implements tuner.Players: the parameters' names.
func (f Family) VectorNames() []string {
	names := make([]string, len(f.Params))
	for i, p := range f.Params {
		names[i] = p.Name
	}
	return names
}

// Defaults returns the declared defaults, in order.
func (f Family) Defaults() []float64 {
	v := make([]float64, len(f.Params))
	for i, p := range f.Params {
		v[i] = p.Default
	}
	return v
}

// Index returns the position of the named parameter, or -1.
func (f Family) Index(name string) int { return paramIndex(f.Params, name) }

// sameDeclaration reports whether g declares what f does.
func (f Family) sameDeclaration(g Family) bool {
	return DeclarationDiff(f.Declaration(), g.Declaration(), "") == ""
}

// sameProgram reports whether f and g run the same command and declare the
// same: a process of one serves the other.
func (f Family) sameProgram(g Family) bool {
	return slices.Equal(f.Command, g.Command) && f.sameDeclaration(g)
}

// Probe starts command, reads its handshake and quits it: the family it
// declares. What the player writes on its standard error goes to logPath
// ("" for a temporary file, removed after), and an error quotes its tail.
func Probe(ctx context.Context, command []string, logPath string, opts Options) (Family, error) {
	p, err := Open(ctx, command, logPath, opts)
	if err != nil {
		return Family{}, err
	}
	p.Close()
	return p.Family(), nil
}

// DeclarationDiff says how got, the declaration a player made, differs
// from want, the one that whose ("the run", "the job", "the file")
// expects, or returns "" when they are the same: the same id and version,
// and the same parameters in the same order, each with its type, default
// and bounds. A wanted parameter without a type is compared by name only:
// a params file records the names and values, not the bounds. Every place
// that tells two players apart asks this, so that they agree on what a
// change is and say it in the same words.
func DeclarationDiff(want, got *tuner.PlayerDeclaration, whose string) string {
	if want.ID != got.ID || want.Version != got.Version {
		return fmt.Sprintf("says id %s %s, %s expects %s %s", got.ID, got.Version, whose, want.ID, want.Version)
	}
	for i := range max(len(want.Params), len(got.Params)) {
		switch {
		case i >= len(got.Params):
			return fmt.Sprintf("declares %d parameters, %s expects %d: %s is missing", len(got.Params), whose, len(want.Params), want.Params[i].Name)
		case i >= len(want.Params):
			return fmt.Sprintf("declares %d parameters, %s expects %d: %s is new", len(got.Params), whose, len(want.Params), got.Params[i].Name)
		case want.Params[i].Type == "":
			if want.Params[i].Name != got.Params[i].Name {
				return fmt.Sprintf("declares parameter %d as %s, %s expects %s", i+1, got.Params[i].Name, whose, want.Params[i].Name)
			}
		case want.Params[i] != got.Params[i]:
			return fmt.Sprintf("declares parameter %d as %q, %s expects %q", i+1, declaredText(got.Params[i]), whose, declaredText(want.Params[i]))
		}
	}
	return ""
}

// declaredText is a declared parameter as its param line says it.
func declaredText(p tuner.DeclaredParam) string {
	return "param " + p.Name + " " + p.Type + " " + formatNumber(p.Default) + " " + formatNumber(p.Min) + " " + formatNumber(p.Max)
}

// Declaration returns f's handshake as a run's config records it
// (tuner.PlayerConfig.Declared).
func (f Family) Declaration() *tuner.PlayerDeclaration {
	d := &tuner.PlayerDeclaration{ID: f.ID, Version: f.Version}
	for _, p := range f.Params {
		d.Params = append(d.Params, tuner.DeclaredParam{Name: p.Name, Type: p.typeName(), Default: p.Default, Min: p.Min, Max: p.Max})
	}
	return d
}

// FamilyOf returns the family a run's player config describes: its command
// and the declaration recorded when the run began, which the player must
// still make (ErrMismatch otherwise).
func FamilyOf(pc *tuner.PlayerConfig) (Family, error) {
	if pc == nil || pc.Declared == nil {
		return Family{}, fmt.Errorf("playerpool: the config has no player declaration")
	}
	f := Family{Command: pc.Command, ID: pc.Declared.ID, Version: pc.Declared.Version}
	for _, q := range pc.Declared.Params {
		f.Params = append(f.Params, Param{Name: q.Name, Int: q.Type == "int", Default: q.Default, Min: q.Min, Max: q.Max})
	}
	if err := checkParams(f.Params); err != nil {
		return Family{}, err
	}
	return f, nil
}
