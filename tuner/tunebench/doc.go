// Package tunebench implements the tuning benchmark: how much CPU the tuner
// needs to reach weights of a given strength, on reference problems.
//
// A tuner's speed is not its games per second but the CPU it spends to
// reach a result. A Problem is a tuning config (embedded, problems/*.yaml:
// a feature set, a search, a start, the tuner's settings) and a target: a
// ratio of mean scores, the recommended weights' over the start's, on
// held-out games that no run plays while it tunes. RunProblem runs the
// tuner in this process on each run seed and, after each of the tuner's
// validations, plays the recommended weights (the validated distribution
// mean, what a user would export) on the held-out games. It records the
// tuning CPU time and the games played until the first validation that
// meets the target, the strength the run ends with, and the medians over
// the run seeds.
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
//     strength of a run cut by its budget may move by a validation.
//   - The held-out games are the same for every run seed and problem
//     (HeldOutSeed), so every run of a problem is judged on the same games,
//     paired by seed with the start. They are disjoint from the run's
//     tuning and validation games, proven run by run (checkDisjoint), not
//     hoped for.
//   - A problem has no generations or duration: the benchmark ends a run,
//     at the target (or, with Options.Full, at the budget) or at its CPU
//     budget, whichever comes first, or where the tuner itself stops.
//   - Options.Short shrinks every problem to seconds, so a test can run
//     the whole benchmark end to end.
//
// RunPeer judges an optimizer of one's own the same way (Options.Peer: a
// program speaking package objective's protocol): the same budget, held-out
// games and figures, its own process's CPU counted, its recommendation
// asked for at the cadence of the tuner's validations (see RunPeer).
//
// The problems, their targets and today's figures are in docs/tunebench.md.
package tunebench
