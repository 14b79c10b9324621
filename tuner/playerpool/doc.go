// Package playerpool implements the player protocol, evotune-player/1 and
// its version 2, and a tuner.Pool that plays external players through it:
// programs of their own, in any language, that choose moves while evotune
// keeps the game.
//
// The design, in the order a batch meets it:
//
//   - The codec of both sides is one function per message: handshake.go
//     has the id, param and set lines (FormatSet and ParseSet, ...), move.go
//     the move and best lines (AppendMove and ParseMove, ...), protocol.go
//     what both share (Hello, ErrProtocol, error replies), sets.go the
//     lines of version 2 (FormatProtocol, FormatSetIn, AppendMoveIn, ...):
//     a player that says "protocol 2 SETS" after its id holds SETS
//     parameter sets, given by "set S ..." and named per board by "move
//     S:B ...", while evotune's hello stays that of version 1, so the
//     player opts in and a player of version 1 is spoken to as before. Parsing is
//     strict: one space between tokens, finite decimals, boards as 0x and
//     16 hex digits, every declared parameter in declaration order; each
//     error wraps ErrProtocol and names what was wrong. Numbers are written
//     as the shortest decimal that reads back exactly, so a player that
//     parses them with any correct strtod sets the very value the tuner
//     meant, and int parameters are rounded (halves away from zero) before
//     set.
//   - Serve (serve.go) is the serving side for a Player; SearchPlayer
//     (builtin.go) is a built-in feature set under a search, what
//     evotune player serves: the reference for adapters and the test
//     oracle. Its parameters are the set's weights, bounded by WeightBound
//     times their defaults, and its shape parameters with their own
//     bounds. It forgets its transposition table before each board, since
//     the protocol wants a move that depends on the board alone (with a
//     probability cutoff, a table kept for a game changes moves); at 3
//     plies and below, where players keep no table, its games are the
//     in-process player's seed for seed.
//   - A Process (process.go; options.go has its limits) is one running
//     player: its standard input and output are pipes of ours, its standard
//     error is copied by a goroutine into its slot's log (log.go), where the
//     comments it sends go too, within MaxProcessLog (1 MiB) a process; past
//     it a marker line, and the rest is drained and discarded. A pool
//     truncates its logs when it opens them, a line marks where each process
//     starts, and an error quotes the failing process's part only. A reply
//     is read (exchange.go) without a goroutine per line: one timer armed
//     for a whole exchange, write and read (the handshake limit for the
//     handshake, from hello to ready, and for set; for move the per-board
//     limit for one board and 4 times the player's usual time per board for
//     each other, so that a hung player shows within about the per-board
//     limit whatever k: see Process.Moves), kills the player's process
//     tree when it fires, which ends a blocked write or read; a watched
//     context (a batch's, Open's, the handshake's) does the same at once
//     when cancelled, and the exchange then returns the context's error. Lines are at most MaxLine (64 KiB)
//     bytes, read into the reader's own buffer, and may end in \r\n; a
//     handshake declares at most MaxParams (64) parameters, and a duplicate
//     is refused when it arrives. Every failure is an *Error (errors.go),
//     one line: the command, what the player did (a move request named by
//     its first board), the tail of its log, the player's text escaped.
//   - A player runs as an internal/proctree tree: a process group of its
//     own on Unix, a Job object on Windows, killed whole by Kill (and on
//     Linux by the kernel if evotune dies), its pipes read raw on Linux,
//     its standard error capped in a proctree.Log whose tail the errors
//     quote; proctree.KillAll kills every live player, for a program
//     that must exit now (a second Ctrl-C).
//   - Pool (pool.go) runs one process per slot (slot.go), started and
//     checked against the run's declaration as every player is (start in
//     process.go; Open, Probe, Pin and Verify too). A slot plays k games
//     in lockstep: each move request carries the boards of the live
//     games, each under the parameter set holding its candidate's values,
//     so the round trip is shared by k boards. The game itself is
//     engine.Game: evotune's rules, seeded spawns and scores, so a game
//     through the protocol is, seed for seed, the game in process with the
//     same moves. A finished game's place goes to its candidate's next
//     game, or when it has none left to start, to the next candidate's
//     (the one with the most left), given a set (one that holds its
//     values already, else one no game in flight uses). A player of
//     version 1 is one of version 2 with one set: one loop serves both,
//     and its requests hold one candidate's games at a time, a player of
//     version 2's those of as many candidates as it holds sets. Near a
//     batch's end a slot holds only its even share of the games not yet
//     ended (in flight on any slot, or to start), so that the last games
//     spread over the slots. Results land by (candidate, game), so 1 or N
//     slots, and either version, give identical bytes for a deterministic
//     player. The pool is a tuner.SharedPool: batches in play at once (a
//     validation and the next generation's first games) wait in one
//     queue, those not marked Ahead first, and a slot whose games in
//     flight have ended takes its next games from the first batch with
//     games left, so no slot waits at one batch's end while another has
//     games to start.
//   - Failures (the schedule, schedule.go): a crash, a hang, a malformed
//     line or an illegal move kills the process; the slot starts another and
//     the games in flight start again from their seeds. A failure counts
//     against a game only when it is the game's own: its board was alone in
//     the failing request, or the failure names it (an illegal move). The
//     games of a request of several boards that fails otherwise are each
//     played again alone in their requests, uncharged, so that the one at
//     fault shows. A game failing MaxFailures times, MaxFailures restarts in
//     a row failing their handshake or set, a player answering error, one
//     that cannot start or that declares other parameters than the family it
//     is run for (ErrMismatch) stops the batch with that error; the tuner
//     then stops the run, its last checkpoint untouched. Which game is named
//     depends on the player alone, not on slots, k or timing.
//
// The default k, DefaultBatch, was chosen by CPU, not wall time: a tuning
// run on N cores pays the CPU of evotune and of its players, and the wall
// time of one slot hides the player's process on another core.
// BenchmarkCPU counts both processes' CPU per move, beside the same games
// in process (figures at DefaultBatch); docs/measurements.md has the
// nneonneo program's adapter against the program alone. BenchmarkBatch
// (games/s at 3 plies for k = 1 to 16) and BenchmarkOverhead (the protocol
// against the same games in process, games/s, one slot or worker each: at
// 3 plies 398 against 423 games/s, 0.94x, at k = 8) measure wall time.
package playerpool
