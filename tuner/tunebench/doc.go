// Package tunebench implements the tuning benchmark: how much CPU the tuner
// needs to reach weights of a given strength, on reference problems.
//
// A tuner's speed is not its games per second but the CPU it spends to
// reach a result. A Problem is a tuning config (embedded, problems/*.yaml:
// a feature set, a search, a start, the tuner's settings) and a target: a
// ratio of mean scores, the recommended weights' over the start's, on
// held-out games that no run plays while it tunes. RunProblem runs the
// tuner in this process on each run seed and, at every grid line (every
// multiple of the problem's Grid games the run has played), plays the
// weights the tuner recommends (tuner.State.Recommended: what a user would
// export at that moment) on the held-out games. It records the tuning CPU
// time and the games played until the first point that meets the target,
// the strength the run ends with, the best point it passed, and the
// medians and worst figures over the run seeds. WriteTable and
// WriteTables set tuners side by side, from a run or from saved results
// (ReadResults, ReadDir).
//
// The design, and why:
//
//   - CPU time, not wall time (internal/cputime, the whole process, every
//     worker): figures taken on a loaded machine stay comparable, and the
//     question users ask is what a result costs. The held-out games are
//     played between the tuner's steps, outside the clock; the tuner's own
//     validations are inside it, as they are in a real run.
//   - Games to the target are a pure function of the problem and the run
//     seed (the tuner's determinism), so a change that alters them alters
//     the tuner; CPU seconds vary a few per cent from one run to the next.
//     Where a run stops on its CPU budget is not deterministic: the final
//     strength of a run cut by its budget may move by a generation. A
//     budget in games (Options.BudgetGames) is: the tuner's points and end
//     are then a pure function of the problem and the run seed.
//   - The tuner and peers are judged alike: on the same grid of games,
//     every game the optimizer plays counted (the tuner's tuning and
//     validation games, a peer's requests), at the end of the step that
//     passed the line (a generation, a request); and they stop alike, at
//     the last step that fits within the budgets.
//   - The held-out games are the same for every run seed and problem
//     (HeldOutSeed), so every run of a problem is judged on the same games,
//     paired by seed with the start. They are disjoint from the run's
//     tuning and validation games, proven run by run (checkDisjoint), not
//     hoped for.
//   - Settings are chosen on some cells and reported on others, as a held-out
//     test set is: development (run seeds 1 to 8, the first block of
//     held-out games) is where tuner settings are tried and picked;
//     confirmation (Options.Confirm: run seeds no setting saw, 101 to 108
//     by default, and a second block of held-out games, ConfirmSeed) is
//     where the rows reported are played, once. A figure picked as the
//     best of several variants on the games it is reported on carries the
//     luck of the pick; one played on a cell nothing was picked on does
//     not. The blocks are disjoint for any size below 2^60 games, both are
//     proven off every run's tuning and validation games, and a peer is
//     refused the games of either. Result.Block records which cell a row
//     is; WriteTable never puts the two in one table.
//   - What was measured is kept (Options.Out): each run seed's result as
//     the seed ends, each row's as the row ends, written atomically; a
//     benchmark run again reads them back and runs only what is missing,
//     after checking they were taken under its conditions (ErrOtherBench).
//     A row that fails (a peer that crashes or breaks a limit) costs only
//     itself: its Result says why, and the next row runs. Hours of rows
//     are not lost to a kill, a reboot or the last peer's bug.
//   - A problem has no generations or duration: the benchmark ends a run,
//     at the target (or, with Options.Full, at the budget) or at a budget,
//     whichever comes first, or where the tuner itself stops.
//   - The question users ask is whether more time helps, so a problem has
//     cells (Problem.Cells, Options.Cells): its small budget (1x) and 4
//     and, on nneonneo-cap1, 16 times it, runs going on to the budget. A
//     cell's grid gives a run 10 to 20 points whatever its length, so that
//     a long cell does not spend as many held-out games as it tunes. Each
//     cell is a row result of its own (Result.Cell), kept in a directory of
//     its own under Options.Out, and a table of its own; a problem's
//     directory holds cells or rows of one budget, never both.
//   - A final figure hides how a run got there: a table of a cell shows
//     each row's curve (the median and the worst run's held-out ratio at
//     every grid line) as text and as an SVG chart written with fixed
//     decimals (WriteTables), so that the docs' charts are checked byte for
//     byte as their tables are, and, across a problem's cells, each row's
//     median and worst final at each, with the change from the cell
//     before. Results written before cells render as they did.
//   - Options.Short shrinks every problem to seconds, so a test can run
//     the whole benchmark end to end.
//
// RunPeer judges an optimizer of one's own the same way (Options.Peer: a
// program speaking package objective's protocol): the same budgets, grid,
// held-out games and figures, its own processes' CPU counted; it runs in a
// process group of its own under limits (PeerLimits), since another
// program is input (see RunPeer). Bench runs rows of both kinds, one after
// the other.
//
// The problems, their targets and today's figures are in docs/tunebench.md.
package tunebench
