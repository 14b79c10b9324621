package report

import (
	"math"
	"strconv"
	"strings"

	"github.com/evotune/evotune/tuner"
)

// A run of an external player (a config with player:) tunes the
// parameters the player declared, by name, in coordinates normalised by
// each parameter's range rather than by its start value: the report shows
// the player (id, version, command) where a feature set's run shows its
// search, and measures changes in the tuner's unit.

// player returns the run's player section, nil for a feature set's run.
func (r *Run) player() *tuner.PlayerConfig {
	if r.Config == nil || r.Config.Player == nil || r.Config.Player.Declared == nil {
		return nil
	}
	return r.Config.Player
}

// vectorWord is what the page calls a coordinate of the tuned vector.
func (r *Run) vectorWord() string {
	if r.player() != nil {
		return "parameter"
	}
	return "weight"
}

// changeHead labels a change in the tuner's unit.
func (r *Run) changeHead() string {
	if r.player() != nil {
		return "(p − p₀)/range"
	}
	return "(w − w₀)/|w₀|"
}

// scale returns the unit name's change is measured in, the tuner's own:
// for a player's parameter its range (the config's bounds, else the
// declared), else weightScale of its start value.
func (r *Run) scale(name string, start float64) float64 {
	pc := r.player()
	if pc == nil {
		return weightScale(start)
	}
	for _, q := range pc.Declared.Params {
		if q.Name != name {
			continue
		}
		lo, hi := q.Min, q.Max
		if b, ok := pc.Bounds[name]; ok && len(b) == 2 {
			lo, hi = b[0], b[1]
		}
		if hi > lo {
			return hi - lo
		}
	}
	return weightScale(start)
}

// playerFacts are the rows of the run table that say which player was
// tuned: its id and version, its command, and the parameters held fixed.
func (r *Run) playerFacts() [][2]string {
	pc := r.player()
	d := pc.Declared
	facts := [][2]string{
		{"player", d.ID + " " + d.Version},
		{"player command", commandLine(pc.Command)},
		{"parameters", strconv.Itoa(len(d.Params)) + " declared"},
	}
	if len(pc.Fixed) > 0 {
		facts[2][1] += ", held fixed: " + strings.Join(pc.Fixed, ", ")
	}
	return facts
}

// playCommand is the command that plays a player run's recommended values
// on fresh games.
func (r *Run) playCommand(names []string, values []float64) string {
	kv := make([]string, 0, len(names))
	for i, n := range names {
		if i < len(values) {
			kv = append(kv, n+"="+strconv.FormatFloat(r.asPlayed(n, values[i]), 'g', -1, 64))
		}
	}
	return "evotune play --player " + quote(commandLine(r.player().Command)) + " --params " + quote(strings.Join(kv, ",")) + " --games 100"
}

// commandLine writes a command as one line that splits back into its words.
func commandLine(cmd []string) string {
	q := make([]string, len(cmd))
	for i, w := range cmd {
		q[i] = quote(w)
	}
	return strings.Join(q, " ")
}

// asPlayed returns x as the player receives it for parameter name: an int
// parameter rounded to the nearest integer, as set sends it. The tuner's
// mean moves continuously; showing 1.029 where the player plays 1 misled.
func (r *Run) asPlayed(name string, x float64) float64 {
	pc := r.player()
	if pc == nil {
		return x
	}
	for _, q := range pc.Declared.Params {
		if q.Name == name && q.Type == "int" {
			return math.Round(x)
		}
	}
	return x
}
