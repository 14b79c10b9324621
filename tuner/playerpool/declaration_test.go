package playerpool

import (
	"slices"
	"strings"
	"testing"

	"github.com/evotune/evotune/tuner"
)

// TestDeclarationDiff: the one comparison of two players' declarations
// (a run's and a restarted player's, a job's and a worker's, a config's and
// a probe's, a params file's and its player's) tells every kind of change
// apart, in words that name it, and finds none between equal declarations.
func TestDeclarationDiff(t *testing.T) {
	base := &tuner.PlayerDeclaration{ID: "p", Version: "1", Params: []tuner.DeclaredParam{
		{Name: "a", Type: "float", Default: 1, Min: 0, Max: 2},
		{Name: "b", Type: "int", Default: 3, Min: 1, Max: 9},
	}}
	with := func(f func(d *tuner.PlayerDeclaration)) *tuner.PlayerDeclaration {
		d := *base
		d.Params = slices.Clone(base.Params)
		f(&d)
		return &d
	}
	namesOnly := with(func(d *tuner.PlayerDeclaration) {
		for i := range d.Params {
			d.Params[i] = tuner.DeclaredParam{Name: d.Params[i].Name}
		}
	})
	tests := []struct {
		name      string
		want, got *tuner.PlayerDeclaration
		says      string // "" for the same declaration
	}{
		{"same", base, with(func(*tuner.PlayerDeclaration) {}), ""},
		{"version", base, with(func(d *tuner.PlayerDeclaration) { d.Version = "2" }), "says id p 2, the run expects p 1"},
		{"id", base, with(func(d *tuner.PlayerDeclaration) { d.ID = "q" }), "says id q 1, the run expects p 1"},
		{"bound", base, with(func(d *tuner.PlayerDeclaration) { d.Params[0].Max = 3 }), `declares parameter 1 as "param a float 1 0 3", the run expects "param a float 1 0 2"`},
		{"default", base, with(func(d *tuner.PlayerDeclaration) { d.Params[1].Default = 4 }), `declares parameter 2 as "param b int 4 1 9", the run expects "param b int 3 1 9"`},
		{"type", base, with(func(d *tuner.PlayerDeclaration) { d.Params[1].Type = "float" }), `"param b float 3 1 9", the run expects "param b int 3 1 9"`},
		{"order", base, with(func(d *tuner.PlayerDeclaration) { d.Params[0], d.Params[1] = d.Params[1], d.Params[0] }), `declares parameter 1 as "param b int 3 1 9"`},
		{"one fewer", base, with(func(d *tuner.PlayerDeclaration) { d.Params = d.Params[:1] }), "declares 1 parameters, the run expects 2: b is missing"},
		{"one more", base, with(func(d *tuner.PlayerDeclaration) {
			d.Params = append(d.Params, tuner.DeclaredParam{Name: "c", Type: "float", Max: 1})
		}), "declares 3 parameters, the run expects 2: c is new"},
		{"none", base, with(func(d *tuner.PlayerDeclaration) { d.Params = nil }), "declares 0 parameters, the run expects 2: a is missing"},
		{"names only, same", namesOnly, base, ""},
		{"names only, other bound", namesOnly, with(func(d *tuner.PlayerDeclaration) { d.Params[0].Max = 7 }), ""},
		{"names only, renamed", namesOnly, with(func(d *tuner.PlayerDeclaration) { d.Params[1].Name = "c" }), "declares parameter 2 as c, the run expects b"},
		{"names only, version", namesOnly, with(func(d *tuner.PlayerDeclaration) { d.Version = "2" }), "says id p 2, the run expects p 1"},
	}
	for _, tt := range tests {
		got := DeclarationDiff(tt.want, tt.got, "the run")
		if tt.says == "" && got != "" || tt.says != "" && !strings.Contains(got, tt.says) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.says)
		}
	}
}
