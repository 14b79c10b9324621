// Package tuner implements the generation loop that tunes evaluation weights
// by playing seeded games.
//
// The design, in the order a run meets it:
//
//   - Config (config.go) is a run as a YAML preset describes it. ReadConfig
//     (load.go) decodes one strictly through internal/yamlx, Resolve
//     (resolve.go) fills the defaults of the keys left out, and Validate
//     (validate.go) names the first bad field at its line. A config names
//     the feature set to tune (SetName, the key features), which must then
//     be registered in package eval, or, built in Go, holds the set itself
//     (Config.Set): a set of one's own, written in one's own package, tunes
//     without touching eval. Config.FeatureSet is the one place the set is
//     resolved; New does it once, and everything after it is handed the
//     set, not its name.
//   - Tuner (tuner.go, loop.go) owns the search state: the optimizer, the
//     generation counter, the stage's finalists and the recommendation.
//     Step plays one generation: its plan (generation.go: the candidates
//     the optimizer asks for, their common seeds from the run's counter,
//     seeds.go, and the blocks they play in) is made before its first game
//     from the state alone; evaluate plays it, tells the fitness back, and
//     the mean is kept as a finalist every validation.every generations
//     (or at the stage's generations 1, 2, 4, 8, ... under spacing:
//     doubling).
//     Its state between generations (State) is all a checkpoint needs; it
//     holds no file and no clock.
//   - Noise handling (noise.go, generation.go; noise.handling, on by
//     default) measures whether a generation's ranking is signal or noise,
//     as UH-CMA-ES does, by replaying a few candidates on fresh seeds, and
//     sets the next generation's games per candidate from it. Racing
//     (noise.racing: on with noise handling, or alone on a fixed
//     fitness.games) stops, between blocks of seeds, candidates that μ
//     others already beat on the paired games: they cannot be parents.
//   - Settling (optimizer: {settle: true}, population/settle.go) is how
//     a long run stops wandering on a plateau of noise. Late in a run a
//     generation's ranks are mostly luck, and plain CMA-ES moves its mean
//     the whole way to the lucky candidates every generation: the mean
//     random walks and σ grows or collapses with it. Settled, every update
//     (the mean's step, the covariance's and σ's log step) is scaled by a
//     rate that falls, about as 1/(1 + k/15) over k generations, while the
//     mean's steps keep no direction and the generations' fitness no
//     longer climbs, and rises again when a slope returns: the mean becomes
//     an average of many generations' selections, as in a stochastic
//     approximation, and σ stays where the noise left it. The tuner only
//     passes the key on; the rate is in the optimizer's state, so a
//     checkpoint holds it and a resume is byte-identical.
//   - The final race (race.go, validation.go) is how a run chooses what it
//     recommends, and its only use of games that do not search: no mean
//     is measured while a stage searches. When a stage (or the run) ends,
//     its start, its finalists and its latest mean race on fresh tuning
//     seeds, an entrant the leader beats at 1% (with its degrees of
//     freedom) stopping early, and the winner alone is measured on the
//     validation games, which choose nothing: its figure (and the start's,
//     measured once before the first generation) is unbiased. Under
//     validation.model (model.go, modelfit.go) one more point races: that
//     of a quadratic fitted to the candidates of the stage's last half of
//     generations, each generation's luck on its common games taken out
//     by an effect of its own, so that every game the stage played has a
//     say in what it hands on. The next stage starts from the winner. Recommendation returns what a run
//     would hand over if it ended now (its current mean, or the winner once
//     it has finished); Recommended the winner, validated. budget.go says
//     how many games the next step and the run's end can play, for a
//     caller that runs the tuner to a budget of games (FinishWithin).
//   - Stages (Config.Stages) make a run a ladder of searches, say 3 plies
//     then 5. The first stage starts from init exactly as a run without
//     stages does (same optimizer stream, same seeds, same bytes). A stage
//     ends when its generations or duration budget is spent or its
//     optimizer converges; its final race runs, and the next stage starts
//     from the winner with a fresh optimizer (the stage's sigma,
//     population and search, a random stream derived from the run seed and
//     the stage's index) and takes its tuning seeds on from where the
//     previous stage's ended. When the validation search changes with the
//     stage, the starting weights are measured again with it, so that the
//     start and the recommended weights always compare on the same search
//     and seeds. The run's generations and duration count over all stages.
//     State holds the stage, the generation it began at and the vector it
//     started from, so Restore rebuilds that stage's optimizer before
//     reading its state, and the next tuning-seed counter (seeds.go), which
//     every stage and every generation takes from in order; the wall-clock
//     time a stage began (for its duration budget) is no part of State: a
//     Run recovers it from history.jsonl, whose lines carry their stage.
//   - Pool (pool.go) is the seam between the loop and wherever games are
//     played: Play takes a Batch — a family of players (Players), one
//     parameter vector per candidate, the seeds and the move limit, all a
//     player needs to replay a game exactly — and stores each result in its
//     slot by (candidate, game), so where and in which order games are
//     played never changes a result. The tuner's family is FeaturePlayers,
//     a feature set and a search: a vector is the set's weights and shape
//     parameters, a player the search evaluating with them. Players says
//     only what every family has (its vectors' coordinate names), so that
//     families of other kinds fit the same seam; a pool type-switches on
//     the kinds it plays and refuses the others with ErrPlayers.
//     LocalPool plays on this process's cores; the pool on many machines
//     (NATS JetStream) lives in tuner/natspool. A pool is injected through
//     Options; nil means a LocalPool. A pool that says it is shared
//     (SharedPool) plays several batches at once on the same slots, those
//     marked Ahead only on slots the others leave idle.
//   - Playing ahead (ahead.go): the start's validation changes nothing the
//     first generation plays, so on a shared pool that generation's first
//     batch (from its plan, made on a copy of the optimizer) plays beside
//     it; the step then takes the batch played instead of playing it.
//     Only when games are played changes: every result and every byte of
//     the run stay the same. A step returns with no game in play.
//   - A config may tune an external player instead of a feature set
//     (PlayerConfig, player.go): names, defaults and bounds come from the
//     player's declaration, recorded in the config; the optimizer scales
//     each coordinate by its range rather than its starting magnitude; the
//     family and its pool (tuner/playerpool, a process per slot) come
//     through Options.PlayerPool, so this package starts no process.
//   - Coordinates (params.go) is the one place that says what is tuned:
//     each coordinate's start, bounds, scale and whether it is held (a
//     player's fixed parameter or one declared with min = max, a
//     scale-invariant set's reference weight under a search without move
//     scores). The optimizers are built from it, and evotune objective
//     serves the same problem from it (tuner/objective).
//   - PlayerCache (playercache.go) is what the local pool and the NATS
//     worker keep between batches: evaluators compiled once per set and
//     vector (bounded), and searchers built once per search and lent to one
//     goroutine at a time. The searchers hold an engine.Evaluator, so a set
//     of one's own runs on the same hot path as the built-in ones.
//   - Cached wraps any pool with a GameCache. A Run wraps its pool with the
//     journal cache (journal.go): games finished before an interruption are
//     taken from the journal instead of played again. A game is journalled
//     under the generation of the checkpoint it would be replayed from; a
//     game played ahead belongs to a generation whose checkpoint comes
//     later, and the journal keeps it when it is emptied.
//   - Run (run.go) owns the run directory and wall-clock time: the lock,
//     config.yaml, history.jsonl (history.go), checkpoints (checkpoint.go)
//     and the journal. After each generation it appends the history line,
//     saves the checkpoint and resets the journal, in that order, so every
//     crash is recoverable. Its clock (runclock.go: wall-clock and CPU
//     time, every process that ran the run counted) is written to the
//     history at each generation's end and to the journal twice a second
//     between, so a process stopped mid-generation keeps its time in the
//     run's duration and figures. It reaches the tuner only through its
//     methods.
//   - Progress (runprogress.go): the tuner announces each part of a run as
//     it begins (Phase: the start's validation, a generation, a final
//     race, the winner's validation); a Run counts the games of the part
//     in progress, measures the pace of the games it plays under the
//     journal's cache (pace.go: per search, so games the journal gives
//     back never count), and puts them with the run's limits into an
//     estimate of the end: EstimateEnd (estimate.go), a pure function of
//     an Outlook, plays the rest of the run forward as the tuner would.
//   - export.go turns a checkpoint back into a tuner and what the run
//     hands over now (Handover) into a weights file with provenance.
//     When the start's validation finishes, the Run keeps it in
//     start.ckpt (startrecord.go), so an export before generation 1's
//     checkpoint has it; a resume replays those games from the journal
//     instead of reading it.
//   - story.go is the one account of what a run hands over and why at
//     each moment (Story: before generation 1, in a stage, between stages,
//     at the end) and of the rule (RecommendationRule, in
//     story_rule.go): the weights file's notes, export's line, the report
//     and tune's progress lines all tell it in its words, so a change to
//     the rule is told everywhere from there.
//
// Determinism: all randomness comes from the run seed (the optimizer's
// stream, the game seeds); results land in slots by index and reductions
// run in a fixed order, so a run writes the same bytes with 1 worker or
// 16, on one machine or many, uninterrupted or resumed.
package tuner
