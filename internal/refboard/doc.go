// Package refboard implements the slow, obviously correct 2048 board that
// reference tests hold the fast code to, and the random boards they draw.
//
// A Grid is a board as rows of columns of exponents (0 = empty), and its
// move is written cell by cell from the rule, sharing no code with the
// engine's line tables: a differential test plays both on many random
// boards and requires the same board, score and legality. What a reference
// evaluator reads off a board (the eight lines, the adjacent pairs, the
// empty cells, the largest tile) lives here too, so that feature twins
// are written from their definitions.
//
// The package does not import engine, so that engine's own in-package
// tests can use it: boards cross as any type whose underlying type is
// uint64 (engine.Board), directions by their names (engine.Dir's String).
//
// Random boards come from explicit math/rand/v2 sources. A test that
// depends on which boards it sees depends on the exact sequence of draws,
// so a generator here never changes how it consumes its source: add a new
// one instead.
//
// It is for tests only; production code must not import it, which
// TestTestOnly checks.
package refboard
