// Package natspool implements a tuner.Pool whose games are played by worker
// processes on any number of machines, connected through NATS JetStream.
//
// The coordinator (the tuning process) cuts each batch into jobs: one
// candidate and a block of its seeds (guided self-scheduling: up to
// GamesPerJob games each at first, then fewer, down to one game a job at
// the batch's end, no job holding more than its share of the games left
// among the slots the server says wait for jobs, so that every slot plays
// until the batch is nearly done and a batch smaller than the fleet still
// reaches every slot; by factoring, half that share, when the last
// batch's games differed in length, so that a job of long games does not
// end a batch late: see cutFor), carrying everything a worker needs to
// replay those games exactly (feature set and its version, weights, the
// full search description, or an external player's declaration, the
// rules version, seeds, max moves, run, batch, generation and candidate). Jobs go to a work-queue stream
// (JobsStream) that every worker pulls from through one shared durable
// consumer with explicit acks, so each job goes to one worker at a time; a
// job not acked within AckWait (a worker died, or lost the server) is
// handed to another worker, and one handed out MaxDeliver times without a
// result stops the run with ErrMaxDeliver. A worker playing a long job
// tells the server it is still at it, so a slow game is not mistaken for a
// dead worker.
//
// The pool is a tuner.SharedPool: several batches play at once, each on
// its own subjects, so that a validation and the next generation's first
// games share the fleet. A batch not marked Ahead publishes its jobs at
// once; an Ahead batch keeps no more of its jobs published and not done
// than the fleet's slots the other batches' jobs leave (the slots waiting
// for a job or playing one, as the server counts them, estimated again as
// it goes), and publishes another as each is done: a batch the tuner
// waits for, begun after it, finds at most a job per slot before its own,
// and the slots its last games leave idle play the Ahead batch's. The
// run's subjects are purged when a batch begins with no other in play; a
// failed batch purges its own.
//
// Workers publish results (per game: score, max tile, moves, final board,
// and the worker's name) to a second stream (ResultsStream) before acking
// the job, so a result is never lost between the two: at worst a job is
// played twice. The coordinator puts every game into its slot by
// (candidate, game), never by arrival order, which makes a distributed run
// write the same bytes as a local one. A game whose two results differ
// stops the run with ErrConflict naming both workers.
//
// Subjects carry the run and the batch: jobs are published on
// evotune.jobs.RUN.BATCH and results on evotune.results.RUN.BATCH, where
// RUN identifies the run (RunID: its machine and directory) and BATCH is a
// digest of the batch's contents (generation, weights, seeds, search).
// Several runs therefore share a server without seeing each other's jobs or
// results; workers serve all of them. A coordinator starting a batch with
// no other in play first purges its run's subjects, so the jobs of a
// coordinator killed earlier are not played again, and reads only results
// of the batch: a
// late result of an earlier batch is never put into the current one, a
// result of the same batch from before a restart is, correctly, the same
// game, and one for a game the journal already had is not asked for and
// is ignored. Message ids (Nats-Msg-Id) let the server drop the duplicates a
// publish retried after a lost acknowledgement would make.
//
// A worker refuses, with a one-line reason it logs and publishes to the
// coordinator, a job it cannot replay exactly: another rules version
// (engine.RulesVersion), a feature set it does not know (a set of one's own
// must be registered in the worker's build too) or that computes
// differently here (eval.FeatureSet.Version), or a job with fields it does
// not know. It does not ack such a job but hands it back for another worker
// and keeps away from the queue for a while, so a mixed fleet keeps going;
// if no worker can play it, MaxDeliver ends the run with the refusal as the
// reason.
//
// The pool plays two kinds of players and refuses others
// (tuner.ErrPlayers): tuner.FeaturePlayers, which a job names by the
// feature set and its search, and an external player
// (playerpool.Family), which a job names by its declaration (id, version,
// parameters) and not by its command, since the command differs from
// machine to machine. A feature set's job carries no player field and so
// encodes, and its batch is keyed, as before external players existed; a
// worker of that time refuses a player's job as a job with a field it
// does not know. A worker started with a player (WorkerOptions.Player)
// probes it once at start; it refuses the jobs of a player that declares
// anything else, and a worker without one refuses every player's job.
// Each of its slots keeps a playerpool.Pool of one process, kept from job
// to job and numbered as the slot (its log is slot-N.log), and plays a
// job, with the jobs it joins to it (below), as a batch there, so a
// player's crash or hang is survived as in a local run; a player failing
// for good (MaxFailures, an error answer) is a refusal quoting the
// player's error line. The coordinator's local slots run the batch's own
// command.
//
// A player's move request carries many boards, and its round trip costs
// the same however many (for some players it is the whole cost), but a
// job holds at most GamesPerJob games. So a slot of an external player
// joins waiting jobs to the one it took and plays them as one batch on
// its player pool: a vector per distinct parameter vector, the union of
// their seeds; each job is still answered and acked on its own, with the
// results it would have had alone. Joining must not move a batch's end,
// which the job sizes were cut to keep early, so the coordinator tells
// each of a player's jobs, when it knows the fleet, the slots it cut the
// batch for, the size of the job published next, whether that is of the
// same candidate, and the games after it (the job's join field, absent
// otherwise: a feature set's job encodes as before, and a worker that
// does not know the field refuses the job as one with a field it does not
// know). A slot then takes the next waiting job, without waiting, only
// while at least as many jobs wait as the batch was cut for slots (one is
// left for every other slot), the boards fit the player's batch
// (playerpool.Options.Batch), and the slot holds no more than its guided
// share of the batch's games not yet begun among the slots the batch was
// cut for (twice the fleet's when it was cut by factoring), its own
// included: for a
// player whose cost is per board, a joined group ends when its jobs
// played one after another would; for one whose cost is per request, it
// ends sooner. A player of one parameter set joins only the jobs of its
// batch and candidate, which is why a player's jobs are published
// candidate by candidate, and takes the next only if it is the one
// published after its last; one that holds several (protocol version 2)
// joins whichever job of its run waits first. A job taken that cannot join
// is the slot's next; held jobs are pinged together, handed back together
// on shutdown, and refused together when the player fails for good.
//
// The defaults: at most 4 games per job, AckWait 30 s, MaxDeliver 5, a notice
// after 30 s without any worker taking a job. The run id is a digest of
// the coordinator's host name and the run directory (RunID), the same for
// a resumed run.
//
// StartServer runs an embedded NATS server with JetStream inside the
// tuning process: loopback unless told otherwise, and never reachable from
// other machines without credentials. Connect dials a server with the
// credentials of a Credentials value (user and password, a token, or a NATS
// credentials file) and reports bad credentials as ErrAuth; Dial does the
// same for a worker, waiting (for a bounded time, or for ever) for a server
// that is not there yet. Once connected, either reconnects for ever.
package natspool
