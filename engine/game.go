package engine

import (
	"context"
	"math/bits"
	"math/rand/v2"
)

// RulesVersion identifies the game rules and the spawn procedure below.
// Anything that changes the games a seed produces bumps it; checkpoints record
// it so that a run is never resumed under different rules.
const RulesVersion = 1

// pcgStream is the second PCG seed word of every game stream (rules v1).
const pcgStream = 0x2048

// fourThreshold makes a spawned tile a 4 when the low 32 bits of the draw are
// below it: ceil(0.1 * 2^32), so P(4) = 0.1 + 9e-11.
const fourThreshold = 429496730

// Spawn places one tile according to the draw u (rules version 1): with E the
// number of empty cells, the tile goes to the k-th empty cell in increasing bit
// order (row 0 first, column 0 first within a row), k = ((u >> 32) * E) >> 32,
// which is uniform over the cells up to a bias below E/2^32; it is a 4 if the
// low 32 bits of u are below 429496730 (probability 0.1), else a 2. A full
// board is returned unchanged.
func (b Board) Spawn(u uint64) Board {
	empty := b.emptyCells() // bit 4i set iff cell i is empty
	e := uint64(bits.OnesCount64(empty))
	if e == 0 {
		return b
	}
	rank := Board(1)
	if uint32(u) < fourThreshold {
		rank = 2
	}
	// Drop the k lowest empty cells; the lowest left is the k-th.
	for k := (u >> 32) * e >> 32; k > 0; k-- {
		empty &= empty - 1
	}
	return b | rank<<bits.TrailingZeros64(empty)
}

// NewGameRand returns the PCG stream of the game with the given seed:
// rand.NewPCG(seed, 0x2048). Each spawn consumes one Uint64.
func NewGameRand(seed uint64) *rand.PCG { return rand.NewPCG(seed, pcgStream) }

// NewGameBoard returns the starting board of the game whose stream is rng:
// two spawns on the empty board.
func NewGameBoard(rng *rand.PCG) Board {
	b := Board(0).Spawn(rng.Uint64())
	return b.Spawn(rng.Uint64())
}

// A Player chooses moves. Move is only called on boards with a legal move and
// must return a legal direction.
type Player interface {
	Move(b Board) Dir
}

// A Resetter is a Player with per-game state (a transposition table, say);
// Play calls Reset before the first move so that a game never depends on the
// games the player played before.
type Resetter interface {
	Reset()
}

// Result is the outcome of one game.
type Result struct {
	Seed    uint64
	Score   int   // sum of the move scores
	MaxTile int   // value of the largest tile on the final board
	Moves   int   // legal moves played
	Final   Board // the board when the game ended
}

// Play plays the game with the given seed to the end: a pure function of seed
// and player (a player that implements Resetter is reset first).
func Play(seed uint64, p Player) Result { return PlayLimit(seed, p, 0) }

// PlayLimit is Play stopped after maxMoves moves if maxMoves > 0.
func PlayLimit(seed uint64, p Player, maxMoves int) Result {
	r, _ := PlayContext(context.Background(), seed, p, maxMoves)
	return r
}

// GameSeed derives the seed of game i from a base seed (splitmix64 of both),
// so that neighbouring bases and indices give unrelated streams.
func GameSeed(base, i uint64) uint64 {
	return splitmix64(base ^ splitmix64(i+0x9E3779B97F4A7C15))
}

// splitmix64 is one step of the SplitMix64 generator: the state advanced by
// the golden-ratio increment, then mixed.
func splitmix64(x uint64) uint64 { return Mix64(x + 0x9E3779B97F4A7C15) }

// Mix64 is the SplitMix64 finaliser (Steele, Lea and Flood 2014), a
// bijection of uint64 whose outputs look independent for neighbouring
// inputs: distinct inputs give distinct outputs. The tuner derives its game
// seeds with it; population keeps its own copy because it may not import
// engine.
func Mix64(x uint64) uint64 {
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return x ^ x>>31
}
