// Package engine implements the game of 2048 on a 64-bit bitboard, seeded
// games, and the searchers that play it: exact and table-driven expectimax
// and beam search.
//
// Design, in the order the code depends on it:
//
//   - A Board is a uint64 of 16 four-bit cells; cell (row r, column c) sits at
//     bit offset 4*(4r+c) and holds the exponent of its tile (0 = empty).
//   - Moves come from 65536-entry tables built once at package init from one
//     function that slides a line, the single source of truth for the rule.
//     Horizontal moves look rows up; vertical moves read the columns as rows
//     of the transposed board and XOR each column's change, spread into
//     column position, back into the board, which spares a second
//     transpose.
//   - A game's randomness is one PCG stream seeded by the game's seed; the
//     spawn procedure is versioned by RulesVersion, so Play(seed, player) is a
//     pure function of its arguments.
//   - The searchers consume an Evaluator. Expectimax has an exact mode that
//     follows the search semantics of DESIGN.md node for node, and a fast mode
//     with a fixed-size transposition table kept for a game, a configurable
//     loss value, an optional probability cutoff and an optional adaptive
//     depth; with the cutoff off, the table never changes a value.
//   - Most of an expectimax search's nodes are the leaves below its last
//     move layers, and those hang below spawn layers whose boards differ by
//     one tile. An evaluator that is row decomposable says so by being a
//     LineEvaluator: its value is a sum of row and column tables plus a
//     term of the largest of per-row keys (Lines), as every built-in set's
//     but classic's is. Expectimax then values such a spawn layer in one
//     pass (spawnLeaves): the lines without the new tile are slid and
//     valued once, and a move slides one new line and reads its cross
//     lines from the tables, with no call per leaf. Other evaluators get
//     the move layer in one pass with a call of Evaluate per leaf. The
//     values, moves and node counts are the plain search's to the bit
//     (leaves.go).
//   - Nneonneo reproduces the search of nneonneo/2048-ai node for node and
//     in its float32 arithmetic (heuristic only, its depth cap and adaptive
//     limit, probability cutoff and per-root-move table), so that weights
//     tuned with it mean the same thing in that program. Most of its nodes
//     are the leaves under a move layer, so a move layer whose spawn layers
//     are all leaves is valued in one function (maxLeaves), and with an
//     evaluator that is a LineTable32 (the nneonneo set's) the leaves are
//     summed from its float32 line table there, with no call per leaf.
//   - SearchConfig is the one description of a player's search (an
//     Algorithm, a depth within MinDepth to MaxDepth, a beam width, whether
//     move scores count, the loss value, the cutoff, the table, adaptive
//     depth) that configs, weights files, the tuner and the commands share:
//     its Validate holds every rule on the options, naming the bad one in a
//     SearchError so that each caller can say where it came from, its
//     String is the one text that shows it; NewSearcher builds the
//     searcher, WithPlayDefaults gives a player the measured table and
//     cutoff for its depth (PlayTableBits, PlayCutoff).
//
// Every fast path has a slow, obviously correct twin in the tests (the
// [4][4]int board of internal/refboard, a plain recursive expectimax) and a
// differential test over many random inputs.
package engine
