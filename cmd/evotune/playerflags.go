package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"time"

	"github.com/evotune/evotune/tuner"
	"github.com/evotune/evotune/tuner/playerpool"
)

// playersDir is the folder of a run directory that holds its players'
// logs.
const playersDir = "players"

// playerFlags are the flags of the commands that run a tuning of an
// external player: --player (tune only) and --player-timeouts.
type playerFlags struct {
	command string
	scale   float64
}

func addPlayerFlags(fs *flag.FlagSet, withCommand bool) *playerFlags {
	f := &playerFlags{}
	if withCommand {
		fs.StringVar(&f.command, "player", "", "tune the external player this `COMMAND` runs (it speaks the player protocol) instead of the config's feature set: words split as a shell splits a simple command, with '...', \"...\" and \\ quoting and nothing expanded (on Windows as Windows programs split their command line: backslashes kept, \"...\" quoting); the config's player section, if any, keeps its init, bounds and fixed; with --nats or --nats-listen its games go to workers started with evotune worker --player and the same player")
	}
	fs.Float64Var(&f.scale, "player-timeouts", 1, "multiply an external player's time limits (10 s for its handshake and each set, 10 s for one board of a move request and its own pace for the others) by `F`; changes no result")
	return f
}

// check validates the flags' values.
func (f *playerFlags) check() error {
	if !(f.scale > 0 && f.scale <= 1000) {
		return usagef("flag --player-timeouts: %v: want a factor in (0, 1000]", f.scale)
	}
	return nil
}

// options returns the player pool's options for a run in dir; "" for a
// player outside a run (check, export, play), whose logs are temporary
// files.
func (f *playerFlags) options(dir string) playerpool.Options {
	scale := func(d time.Duration) time.Duration { return time.Duration(float64(d) * f.scale) }
	o := playerpool.Options{
		HandshakeTimeout: scale(playerLimits.handshake),
		MoveTimeout:      scale(playerLimits.move),
	}
	if dir != "" {
		o.LogDir = filepath.Join(dir, playersDir)
	}
	return o
}

// playerLimits are the limits --player-timeouts multiplies: the player
// pool's defaults, lowered by tests so that a slow player is slow in
// milliseconds.
var playerLimits = struct{ handshake, move time.Duration }{playerpool.DefaultHandshakeTimeout, playerpool.DefaultMoveTimeout}

// apply makes cfg tune the player --player names, if given: the config's
// feature set, weights and bounds give way to it.
func (f *playerFlags) apply(cfg *tuner.Config) error {
	if f.command == "" {
		return nil
	}
	words, err := playerpool.SplitCommand(f.command)
	if err != nil {
		return usagef("flag --player: %v", err)
	}
	if cfg.Player == nil {
		cfg.Player = &tuner.PlayerConfig{}
	}
	cfg.Player.Command = words
	cfg.Player.Declared = nil
	cfg.SetName, cfg.Set, cfg.Init, cfg.InitFrom, cfg.Bounds = "", nil, nil, "", nil
	return nil
}

// declare starts the config's player, if it has one, and records its
// declaration in the config, before the config is resolved. A config that
// records a declaration already (a run's config, copied) must match it.
func (f *playerFlags) declare(ctx context.Context, cfg *tuner.Config) error {
	pc := cfg.Player
	if pc == nil {
		return nil
	}
	if len(pc.Command) == 0 {
		return usagef("player.command: want the player's program and its arguments")
	}
	fam, err := playerpool.Probe(ctx, pc.Command, "", f.options(""))
	if err != nil {
		return err
	}
	d := fam.Declaration()
	if pc.Declared != nil {
		if why := playerpool.DeclarationDiff(pc.Declared, d, "the config's player.declared"); why != "" {
			return badInput(fmt.Errorf("player.declared: the player %s; leave player.declared out", why))
		}
	}
	pc.Declared = d
	return nil
}

// playerPools makes the pools of a run's player, one per run (tune and
// resume make one run), and closes them.
type playerPools struct {
	flags   *playerFlags
	dir     string
	workers func(cfg *tuner.Config) int
	remote  tuner.Pool // the NATS workers' pool, or nil
	pools   []*playerpool.Pool
}

// make implements tuner.Options.PlayerPool. With NATS, workers started
// with the player (evotune worker --player) play the games; this process
// still runs it for the handshake, the local slots and export's checks.
func (pp *playerPools) make(cfg *tuner.Config) (tuner.Players, tuner.Pool, error) {
	fam, err := playerpool.FamilyOf(cfg.Player)
	if err != nil {
		return nil, nil, err
	}
	if pp.remote != nil {
		return fam, pp.remote, nil
	}
	p := playerpool.New(pp.workers(cfg), pp.flags.options(pp.dir))
	pp.pools = append(pp.pools, p)
	return fam, p, nil
}

// requests says how many moves the local players answered and how many
// shared a request, or "" when they answered none (the games went to NATS
// workers).
func (pp *playerPools) requests() string {
	var req, boards int64
	sets := 0
	for _, p := range pp.pools {
		r, b := p.Requests()
		req, boards = req+r, boards+b
		sets = max(sets, p.Sets())
	}
	if req == 0 {
		return ""
	}
	line := fmt.Sprintf("%d moves in %d requests to the player, %.1f boards a request", boards, req, float64(boards)/float64(req))
	if sets > 0 {
		return line + fmt.Sprintf(" (protocol version 2, %d parameter sets: a request carries several candidates' games)", sets)
	}
	return line + " (protocol version 1: a request carries one candidate's games; a player of version 2 shares requests between candidates, see docs/players.md)"
}

// close ends the players.
func (pp *playerPools) close() {
	for _, p := range pp.pools {
		p.Close()
	}
}
