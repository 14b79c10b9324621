// Package tuner implements the generation loop that tunes evaluation weights
// by playing seeded games.
//
// The design, in the order a run meets it:
//
//   - Config (config.go) is a run as a YAML preset describes it. ReadConfig
//     (load.go) decodes one strictly through internal/yamlx, Resolve
//     (resolve.go) fills the defaults of the keys left out, and Validate
//     (validate.go) names the first bad field at its line.
//   - Tuner (tuner.go, loop.go) owns the search state: the optimizer, the
//     generation counter, the validations. Step asks the optimizer for
//     candidates, has every candidate play the generation's common seeds
//     (seeds.go), tells the fitness back and validates the distribution
//     mean when it is due. Its state between generations (State) is all a
//     checkpoint needs; it holds no file and no clock.
//   - Stages (Config.Stages) make a run a ladder of searches, say 3 plies
//     then 5. The first stage starts from init exactly as a run without
//     stages does (same optimizer stream, same seeds, same bytes). A stage
//     ends when its generations or duration budget is spent or its
//     optimizer converges; its mean is validated, and the next stage starts
//     from that validated mean with a fresh optimizer (the stage's sigma,
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
//     played: Play takes a Batch — candidates' weight vectors × seeds, plus
//     the feature set, search and move limit a player needs to replay a
//     game exactly — and stores each result in its slot by (candidate,
//     game), so where and in which order games are played never changes a
//     result. LocalPool plays on this process's cores through engine.PlayOn;
//     the pool on many machines (NATS JetStream) lives in tuner/natspool. A
//     pool is injected through Options; nil means a LocalPool.
//   - Cached wraps any pool with a GameCache. A Run wraps its pool with the
//     journal cache (journal.go): games finished before an interruption are
//     taken from the journal instead of played again.
//   - Run (run.go) owns the run directory and wall-clock time: the lock,
//     config.yaml, history.jsonl (history.go), checkpoints (checkpoint.go)
//     and the journal. After each generation it appends the history line,
//     saves the checkpoint and resets the journal, in that order, so every
//     crash is recoverable. It reaches the tuner only through its methods.
//   - export.go turns a checkpoint back into a tuner and the recommended
//     weights into a weights file with provenance.
//
// Determinism: all randomness comes from the run seed (the optimizer's
// stream, the game seeds); results land in slots by index and reductions
// run in a fixed order, so a run writes the same bytes with 1 worker or
// 16, on one machine or many, uninterrupted or resumed.
package tuner
