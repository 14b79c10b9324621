package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
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
// params (see setParams; the rest at their declared defaults). cmdWhat and
// paramsWhat name where each came from in messages.
func startExtPlayer(ctx context.Context, command, params, cmdWhat, paramsWhat string, pf *playerFlags) (*extPlayer, error) {
	words, err := playerpool.SplitCommand(command)
	if err != nil {
		return nil, usagef("%s: %v", cmdWhat, err)
	}
	x, err := probeExtPlayer(ctx, words, "", pf)
	if err != nil {
		return nil, err
	}
	if err := x.setParams(params, paramsWhat); err != nil {
		return nil, err
	}
	return x, nil
}

// probeExtPlayer reads the handshake of the player words run in dir (""
// for the current directory): the player at its declared defaults.
func probeExtPlayer(ctx context.Context, words []string, dir string, pf *playerFlags) (*extPlayer, error) {
	// Logs go to temporary files, removed when the pool closes: play and
	// compare keep no run directory. A failure still quotes their tail.
	opts := pf.options("")
	opts.Dir = dir
	fam, err := playerpool.Probe(ctx, words, "", opts)
	if err != nil {
		return nil, err
	}
	return &extPlayer{fam: fam, values: fam.Defaults(), opts: opts}, nil
}

// startParamsFile starts the player of a params file, its command in its
// directory (words, if not nil, in the current directory instead), set to
// the file's values.
func startParamsFile(ctx context.Context, path string, file *eval.PlayerFile, words []string, pf *playerFlags) (*extPlayer, error) {
	dir := ""
	if words == nil {
		words, dir = file.Player.Command, file.Player.Dir
	}
	x, err := probeExtPlayer(ctx, words, dir, pf)
	if err != nil {
		return nil, err
	}
	for _, q := range file.Params {
		i := x.fam.Index(q.Name)
		if i < 0 {
			return nil, badInput(fmt.Errorf("%s: parameter %s: player %s %s does not declare it (it declares %s)", path, q.Name, x.fam.ID, x.fam.Version, strings.Join(x.fam.VectorNames(), ", ")))
		}
		if p := x.fam.Params[i]; q.Value < p.Min || q.Value > p.Max {
			return nil, badInput(fmt.Errorf("%s: %s=%s is outside the player's bounds [%v, %v]", path, q.Name, num(q.Value), p.Min, p.Max))
		}
		x.set(i, q.Value)
	}
	return x, nil
}

// setParams lays parameters over the values: NAME=VALUE pairs separated
// by commas or blanks, optionally after the word set, so that the line
// export --format set prints pastes as it is. Each name must be declared,
// each value a finite number within its parameter's bounds.
func (x *extPlayer) setParams(params, what string) error {
	params = strings.TrimSpace(withoutComments(params))
	if rest, ok := strings.CutPrefix(params, "set"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
		params = rest
	}
	pairs := strings.FieldsFunc(params, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	seen := map[string]bool{}
	for _, kv := range pairs {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			return usagef("%s: %q: want NAME=VALUE pairs, separated by commas or blanks (the line export --format set prints will do; parameters of %s: %s)", what, kv, x.fam.ID, strings.Join(x.fam.VectorNames(), ", "))
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
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return usagef("%s: %s=%s: want a number in [%v, %v]", what, name, val, p.Min, p.Max)
		}
		if v < p.Min || v > p.Max {
			return usagef("%s: %s=%s is outside the player's bounds [%v, %v]", what, name, val, p.Min, p.Max)
		}
		x.set(i, v)
	}
	return nil
}

// set sets parameter i to v, an int parameter rounded as the player
// receives it, so that what play shows and reports is what it played.
func (x *extPlayer) set(i int, v float64) {
	if x.fam.Params[i].Int {
		v = math.Round(v)
	}
	x.values[i] = v
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
// --params, --params-file and --player-timeouts.
type extPlayerFlags struct {
	command, params, paramsFile string
	timeouts                    *playerFlags
}

// playerSearchFlags are the flags that choose a built-in player, which
// --player replaces.
var playerSearchFlags = []string{"weights", "eval", "search", "depth", "width", "cutoff", "table", "adaptive", "loss"}

func addExtPlayerFlags(fs *flag.FlagSet) *extPlayerFlags {
	f := &extPlayerFlags{timeouts: addPlayerFlags(fs, false)}
	fs.StringVar(&f.command, "player", "", "play the external player this `COMMAND` runs (it speaks the player protocol; see docs/players.md) instead of a built-in one: words split as a shell splits a simple command, with '...', \"...\" and \\ quoting and nothing expanded (on Windows as Windows programs split their command line: backslashes kept, \"...\" quoting)")
	fs.StringVar(&f.params, "params", "", "with --player or --params-file: parameters as `NAME=VALUE` pairs, separated by commas or blanks, after an optional set (the line export --format set prints); those left out keep their declared defaults")
	fs.StringVar(&f.paramsFile, "params-file", "", "play the params file `FILE` of a tuned player (a run's weights.yaml): its command, run in the directory it was tuned in (--player runs another), with its parameters; or a file holding a set line, with --player")
	return f
}

// start starts the player --player or --params-file names and returns it,
// or nil with neither.
func (f *extPlayerFlags) start(ctx context.Context, fs *flag.FlagSet) (*extPlayer, error) {
	if err := f.timeouts.check(); err != nil {
		return nil, err
	}
	player, file := flagGiven(fs, "player"), flagGiven(fs, "params-file")
	if !player && !file {
		if flagGiven(fs, "params") {
			return nil, usagef("flag --params: the parameters of an external player; give --player or --params-file too")
		}
		return nil, nil
	}
	for _, name := range playerSearchFlags {
		if flagGiven(fs, name) {
			return nil, usagef("flag --%s: with --player or --params-file the player searches as it does; leave --%s out", name, name)
		}
	}
	if !file {
		return startExtPlayer(ctx, f.command, f.params, "flag --player", "flag --params", f.timeouts)
	}
	var words []string
	if player {
		var err error
		if words, err = playerpool.SplitCommand(f.command); err != nil {
			return nil, usagef("flag --player: %v", err)
		}
	}
	pf, ok, err := readParamsFile(f.paramsFile)
	var x *extPlayer
	switch {
	case ok && err != nil:
		return nil, badInput(err)
	case ok:
		if x, err = startParamsFile(ctx, f.paramsFile, pf, words, f.timeouts); err != nil {
			return nil, err
		}
	default:
		// A file of a set line, as export --format set -o FILE writes.
		data, err := os.ReadFile(f.paramsFile)
		if err != nil {
			return nil, usagef("flag --params-file: %v", err)
		}
		line := strings.TrimSpace(withoutComments(string(data)))
		if !strings.HasPrefix(line, "set ") || strings.Contains(line, "\n") {
			return nil, badInput(fmt.Errorf("flag --params-file: %s is neither a params file nor one set line (evotune export --format set writes one)", f.paramsFile))
		}
		if !player {
			return nil, usagef("flag --params-file: %s holds a set line but no command: give --player too", f.paramsFile)
		}
		if x, err = probeExtPlayer(ctx, words, "", f.timeouts); err != nil {
			return nil, err
		}
		if err := x.setParams(line, f.paramsFile); err != nil {
			return nil, err
		}
	}
	if err := x.setParams(f.params, "flag --params"); err != nil {
		return nil, err
	}
	return x, nil
}
