package engine

import (
	"errors"
	"fmt"
	"math/rand/v2"
)

// ErrIllegalMove is wrapped by the error of a Game told a move that does
// not change its board.
var ErrIllegalMove = errors.New("engine: illegal move")

// A Game is one seeded game played a move at a time: PlayContext's loop
// turned inside out, for players that are asked for moves from outside
// this package (a child process over a line protocol, say, playing many
// games in lockstep). The spawns, scores and end are PlayContext's, so a
// game stepped here with the moves a player chooses is, seed for seed, the
// game PlayContext plays with that player; the tests check it.
type Game struct {
	rng   *rand.PCG
	board Board
	res   Result
}

// NewGame starts the game with the given seed: its stream and its first
// board, two spawns on the empty board.
func NewGame(seed uint64) *Game {
	g := &Game{rng: NewGameRand(seed), res: Result{Seed: seed}}
	g.board = NewGameBoard(g.rng)
	return g
}

// Board returns the board the next move is played on.
func (g *Game) Board() Board { return g.board }

// Over reports whether the game has ended: no legal move, or maxMoves
// moves played when maxMoves > 0.
func (g *Game) Over(maxMoves int) bool {
	return !g.board.CanMove() || (maxMoves > 0 && g.res.Moves >= maxMoves)
}

// Play plays d and the spawn after it. An illegal d changes nothing and
// returns an error wrapping ErrIllegalMove: a player from outside may
// choose one, and that is its failure, not a broken invariant.
func (g *Game) Play(d Dir) error {
	nb, score, ok := g.board.Move(d)
	if !ok {
		return fmt.Errorf("%w: %v on %s", ErrIllegalMove, d, g.board.Hex())
	}
	g.res.Score += score
	g.res.Moves++
	g.board = nb.Spawn(g.rng.Uint64())
	return nil
}

// Result returns the game's outcome so far, its final board being the
// current one: once Over, what PlayContext returns for the same moves.
func (g *Game) Result() Result {
	r := g.res
	r.Final = g.board
	r.MaxTile = g.board.MaxTile()
	return r
}
