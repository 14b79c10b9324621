package playerpool

import (
	"context"
	"fmt"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/tuner"
)

// Open starts command and reads its handshake: a process to ask directly,
// outside a pool (export pins a player's moves, check verifies them and
// tests a player's compliance). Its standard error goes to logPath ("" for
// a temporary file); Close quits the player and closes the log.
func Open(ctx context.Context, command []string, logPath string, opts Options) (*Process, error) {
	return open(ctx, command, logPath, opts, nil, "")
}

// open is Open for a player that must declare want (see start).
func open(ctx context.Context, command []string, logPath string, opts Options, want *tuner.PlayerDeclaration, whose string) (*Process, error) {
	log, err := openLog(logPath)
	if err != nil {
		return nil, err
	}
	p, err := start(ctx, command, log, opts, want, whose)
	if err != nil {
		log.Close()
		return nil, err
	}
	p.ownLog = true
	p.unwatch = p.watch(ctx)
	return p, nil
}

// PinBoards is how many boards Pin picks from each game: early, middle and
// late in it.
const PinBoards = 4

// Pin plays the games of seeds with fam's player set to values, k at a time
// in lockstep as the pool plays them, and returns PinBoards boards of each
// game, spread from its start to its end, with the move the player chose on
// each: the checks of a params file. maxMoves (0: none) ends a game early.
func Pin(ctx context.Context, fam Family, values []float64, seeds []uint64, maxMoves int, opts Options) ([]eval.MoveCheck, error) {
	p, err := open(ctx, fam.Command, "", opts, fam.Declaration(), "the run")
	if err != nil {
		return nil, err
	}
	defer p.Close()
	if err := p.Set(values); err != nil {
		return nil, err
	}
	type played struct {
		g     *engine.Game
		moves []eval.MoveCheck
	}
	games := make([]played, len(seeds))
	for i, s := range seeds {
		games[i].g = engine.NewGame(s)
	}
	var boards []engine.Board
	var dirs []engine.Dir
	var live []int
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		boards, live = boards[:0], live[:0]
		for i, g := range games {
			if !g.g.Over(maxMoves) {
				boards = append(boards, g.g.Board())
				live = append(live, i)
			}
		}
		if len(live) == 0 {
			break
		}
		if dirs, err = p.Moves(boards, dirs); err != nil {
			return nil, err
		}
		for j, i := range live {
			g := &games[i]
			if err := g.g.Play(dirs[j]); err != nil {
				p.Kill()
				return nil, p.fail(fmt.Sprintf("answered an illegal move: %v", err), err)
			}
			g.moves = append(g.moves, eval.MoveCheck{Board: boards[j], Move: dirs[j]})
		}
	}
	var out []eval.MoveCheck
	for _, g := range games {
		out = append(out, spread(g.moves, PinBoards)...)
	}
	return out, nil
}

// spread picks n of moves, from the first to the last at even steps
// (fewer when the game was shorter).
func spread(moves []eval.MoveCheck, n int) []eval.MoveCheck {
	if len(moves) <= n {
		return moves
	}
	var out []eval.MoveCheck
	for i := range n {
		out = append(out, moves[i*(len(moves)-1)/(n-1)])
	}
	return out
}

// Verify starts the player a params file names, sets its parameters and
// asks the moves of its checks in one request: the moves it chooses now,
// one per check. The player must still say the file's id and version and
// declare the file's parameters, in its order.
func Verify(ctx context.Context, pf *eval.PlayerFile, opts Options) ([]engine.Dir, error) {
	want := &tuner.PlayerDeclaration{ID: pf.Player.ID, Version: pf.Player.Version}
	for _, q := range pf.Params {
		want.Params = append(want.Params, tuner.DeclaredParam{Name: q.Name})
	}
	p, err := open(ctx, pf.Player.Command, "", opts, want, "the file")
	if err != nil {
		return nil, err
	}
	defer p.Close()
	if err := p.Set(pf.Values()); err != nil {
		return nil, err
	}
	if len(pf.Checks) == 0 {
		return nil, nil
	}
	boards := make([]engine.Board, len(pf.Checks))
	for i, c := range pf.Checks {
		boards[i] = c.Board
	}
	return p.Moves(boards, nil)
}
