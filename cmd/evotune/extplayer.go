package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/tuner"
	"github.com/evotune/evotune/tuner/playerpool"
)

// extPlayer is an external player that play or compare plays: the family
// its handshake declared and the parameter values it plays with.
type extPlayer struct {
	fam    playerpool.Family
	values []float64
	opts   playerpool.Options
}

// startExtPlayer reads the handshake of the player command runs (one
// string, split as --player's help says) and sets its parameters from
// params, NAME=VALUE,... (the rest at their declared defaults). cmdWhat and
// paramsWhat name where each came from in messages.
func startExtPlayer(ctx context.Context, command, params, cmdWhat, paramsWhat string, pf *playerFlags) (*extPlayer, error) {
	words, err := playerpool.SplitCommand(command)
	if err != nil {
		return nil, usagef("%s: %v", cmdWhat, err)
	}
	// Logs go to temporary files, removed when the pool closes: play and
	// compare keep no run directory. A failure still quotes their tail.
	opts := pf.options("")
	fam, err := playerpool.Probe(ctx, words, "", opts)
	if err != nil {
		return nil, err
	}
	x := &extPlayer{fam: fam, values: fam.Defaults(), opts: opts}
	if err := x.setParams(params, paramsWhat); err != nil {
		return nil, err
	}
	return x, nil
}

// setParams lays NAME=VALUE,... over the values: each name declared, each
// value a finite number within its parameter's bounds.
func (x *extPlayer) setParams(params, what string) error {
	if strings.TrimSpace(params) == "" {
		return nil
	}
	seen := map[string]bool{}
	for _, kv := range strings.Split(params, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok || name == "" {
			return usagef("%s: %q: want NAME=VALUE,... (parameters of %s: %s)", what, kv, x.fam.ID, strings.Join(x.fam.VectorNames(), ", "))
		}
		i := x.fam.Index(name)
		if i < 0 {
			return usagef("%s: player %s has no parameter %q (it declares %s)", what, x.fam.ID, name, strings.Join(x.fam.VectorNames(), ", "))
		}
		if seen[name] {
			return usagef("%s: parameter %s given twice", what, name)
		}
		seen[name] = true
		v, err := strconv.ParseFloat(val, 64)
		p := x.fam.Params[i]
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < p.Min || v > p.Max {
			return usagef("%s: %s=%s: want a number in [%v, %v]", what, name, val, p.Min, p.Max)
		}
		x.values[i] = v
	}
	return nil
}

// describe says which player this is and how it is set, on one line.
func (x *extPlayer) describe() string {
	return fmt.Sprintf("player %s %s (%s), %s", x.fam.ID, x.fam.Version, playerpool.CommandString(x.fam.Command), x.paramsText())
}

// paramsText lists the values, NAME=VALUE in declaration order.
func (x *extPlayer) paramsText() string {
	if len(x.values) == 0 {
		return "no parameters"
	}
	kv := make([]string, len(x.values))
	for i, p := range x.fam.Params {
		kv[i] = p.Name + "=" + strconv.FormatFloat(x.values[i], 'g', -1, 64)
	}
	return strings.Join(kv, ",")
}

// newPool returns a pool of slots processes of the player.
func (x *extPlayer) newPool(slots int) *playerpool.Pool { return playerpool.New(slots, x.opts) }

// play plays the games of seeds on pool, evotune keeping each game, and
// returns their results in seed order; done is called as each game ends.
func (x *extPlayer) play(ctx context.Context, pool tuner.Pool, seeds []uint64, maxMoves int, done func()) ([]engine.Result, error) {
	b := &tuner.Batch{Players: x.fam, Vectors: [][]float64{slices.Clone(x.values)}, Seeds: seeds, MaxMoves: maxMoves}
	results := [][]engine.Result{make([]engine.Result, len(seeds))}
	err := pool.Play(ctx, b, results, func(tuner.Job, engine.Result, bool) {
		if done != nil {
			done()
		}
	})
	if err != nil {
		return nil, err
	}
	return results[0], nil
}

// playerJSON says, in play's and compare's JSON, which external player
// played.
type playerJSON struct {
	ID      string          `json:"id"`
	Version string          `json:"version"`
	Command []string        `json:"command"`
	Params  tuner.WeightMap `json:"params"` // by name, in declaration order
}

func (x *extPlayer) json() *playerJSON {
	return &playerJSON{ID: x.fam.ID, Version: x.fam.Version, Command: x.fam.Command,
		Params: tuner.WeightMap{Names: x.fam.VectorNames(), Values: x.values}}
}

// extPlayerFlags are play's flags for an external player: --player,
// --params and --player-timeouts.
type extPlayerFlags struct {
	command, params string
	timeouts        *playerFlags
}

// playerSearchFlags are the flags that choose a built-in player, which
// --player replaces.
var playerSearchFlags = []string{"weights", "eval", "search", "depth", "width", "cutoff", "table", "adaptive", "loss"}

func addExtPlayerFlags(fs *flag.FlagSet) *extPlayerFlags {
	f := &extPlayerFlags{timeouts: addPlayerFlags(fs, false)}
	fs.StringVar(&f.command, "player", "", "play the external player this `COMMAND` runs (it speaks the player protocol; see docs/players.md) instead of a built-in one: words split as a shell splits a simple command, with '...', \"...\" and \\ quoting and nothing expanded (on Windows as Windows programs split their command line: backslashes kept, \"...\" quoting)")
	fs.StringVar(&f.params, "params", "", "with --player: its parameters as `NAME=VALUE,...`; those left out keep their declared defaults")
	return f
}

// start starts the player --player names and returns it, or nil without
// --player.
func (f *extPlayerFlags) start(ctx context.Context, fs *flag.FlagSet) (*extPlayer, error) {
	if err := f.timeouts.check(); err != nil {
		return nil, err
	}
	if !flagGiven(fs, "player") {
		if flagGiven(fs, "params") {
			return nil, usagef("flag --params: the parameters of an external player; give --player too")
		}
		return nil, nil
	}
	for _, name := range playerSearchFlags {
		if flagGiven(fs, name) {
			return nil, usagef("flag --%s: with --player the player searches as it does; leave --%s out", name, name)
		}
	}
	return startExtPlayer(ctx, f.command, f.params, "flag --player", "flag --params", f.timeouts)
}
