// Package stats implements the statistics evotune draws from games: the
// summary of a set of games, the paired comparison of two players on the
// same seeds, a sequential test on the ratio of their mean scores, and the
// rank and t statistics behind the tuner's noise handling.
//
// The design:
//
//   - One package for every figure a user reads or a decision rests on, so
//     that a statistic is defined, documented and tested in one place. The
//     policies that use them (which candidates to replay, when racing drops
//     one, what a command prints) stay with their callers.
//   - Games are what the package is about, so it reads engine.Result; it
//     imports nothing else of the project, and nothing in engine imports it.
//     Package population keeps its own median: it knows nothing of 2048, so
//     it may not import this package (which imports engine).
//   - Pairing (summary.go, compare.go): two players that played the same
//     seeds are compared game by game. A score depends far more on its seed
//     than on the player, so the differences vary much less than the scores,
//     and Compare's intervals on the difference and on the ratio of means are
//     narrower than two separate intervals would suggest.
//   - Intervals are 95% ones: Student's t for means (summary.go, t.go), the
//     delta method on the log for the ratio of means, Wilson's score interval
//     for reach rates (compare.go).
//   - SPRT (sprt.go) decides between two ratios of means as games come in,
//     a generalized SPRT with Wald's bounds; its result depends only on the
//     scores, not on how they were batched.
//   - RankChange (rank.go) is UH-CMA-ES's measure of whether a ranking is
//     signal or noise, reproducing pycma's; PairedT and PairedTCritical
//     (t.go) are the one-sided paired t test of racing.
//
// Every reduction runs in index order, so equal inputs give equal bits: the
// figures are part of a run's reproducible output.
package stats
