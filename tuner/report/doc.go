// Package report implements the run report: one self-contained HTML page
// drawn from a run directory, so that a user can see a run (in progress,
// finished, interrupted) in any browser, from disk, with no server, no
// network and no JavaScript.
//
// The page is built in two steps that the tests check separately. Load
// reads the run without changing or locking anything: the newest good
// checkpoint (through tuner.LoadCheckpoint, which falls back past a damaged
// one exactly as export does) for the config and the validated figures,
// and history.jsonl for the curves. Then the charts are first described as
// data (a chart is a list of named series of points) and only then drawn
// with gonum.org/v1/plot into inline SVG, so what a chart shows can be
// tested without parsing pictures.
//
// History lines are decoded leniently: a field this build does not know is
// not an error, and a field the report draws but a line lacks (axis_ratio,
// written only by optimizers that have one) just means that series is not
// drawn. Numeric fields this build does not know (future noise measures or
// stages) are drawn each on a chart of its own, as recorded, so a newer
// history never goes unseen. A torn last line (a run writing it right now)
// is skipped silently; a damaged line elsewhere is skipped with a notice
// naming its line.
//
// The fitness chart tells the recommendation's story (story.go): which
// point the run recommended at each generation (the validated figure of
// the start, then of each final race's winner, as a step), each final
// race's entrants on the race's games (those stopped early apart) and
// its winner's validation, and, under the chart, a table of every race,
// entrant by entrant. It is read from history.jsonl alone, so the
// histories of an older evotune, which validated every few generations
// and raced each validated mean against the one recommended before, tell
// theirs too: won and lost races, fallbacks, the recommendation after
// each. Some of the story is inferred where the history does not say it:
// a race that ended before validation.select games ended because one
// entrant was left, and the others were stopped. The Run table splits the
// games between candidates, races and validations and says what a
// candidate played under noise handling and racing.
//
// What export writes now is told as the run's tuner.Story tells it, the
// lines the exported file carries, so the page and the file never say
// two things; the config is the checkpoint's, with comments where a
// resume changed it from config.yaml or a search reads a value otherwise
// (configtext.go).
//
// A run of an external player (tuner.PlayerConfig) is shown by what it
// tuned: the player's id, version and command stand where a feature set's
// run shows its search, its parameters by name where the weights go, and
// changes are measured in each parameter's range, the tuner's unit for a
// player (player.go).
//
// The report is written with checkpoints.WriteFile, so a browser refreshing
// it while a run rewrites it sees the old page or the new one, never half.
package report
