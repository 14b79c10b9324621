package natspool

import (
	"fmt"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/tuner"
	"github.com/evotune/evotune/tuner/playerpool"
)

// A block is one job's games: candidate cand on games (seed indices).
type block struct {
	cand  int
	games []int
}

// blocks cuts a batch's games into jobs of at most n games of one
// candidate each, in the order the batch lists them. A feature set's jobs
// go block by block across the candidates; an external player's go
// candidate by candidate, so that the jobs of one candidate follow each
// other in the queue and a worker's slot can play several of them after
// one set (see Worker). With slots > 0 (the slots of the workers that will play them)
// no job holds more than 1/slots of the games not yet cut into jobs
// (guided self-scheduling): a batch begins with jobs of n games (few
// messages) and ends with jobs of one, so that its last games spread over
// every slot instead of a few slots playing the last large jobs while the
// others wait, and a batch smaller than the fleet (a validation of one
// candidate) still reaches every slot. With 0 the jobs all have n games
// but the last of each candidate.
func blocks(b *tuner.Batch, n, slots int) []block { return cut(b, n, slots, 0) }

// aheadBlocks cuts an Ahead batch's games as blocks does for slots slots,
// but its first slots jobs hold one game each: the batch the tuner waits
// for, if it begins just after, finds at most a game per slot before its
// own. Then, the Ahead batch publishing only into slots others leave, its
// jobs are as large as its share allows.
func aheadBlocks(b *tuner.Batch, n, slots int) []block { return cut(b, n, slots, slots) }

// cut is blocks with lead one-game jobs first.
func cut(b *tuner.Batch, n, slots, lead int) []block {
	_, byCandidate := b.Players.(playerpool.Family)
	perCand := make([][]int, len(b.Vectors))
	add := func(c, g int) { perCand[c] = append(perCand[c], g) }
	if b.Jobs == nil {
		for g := range b.Seeds {
			for c := range b.Vectors {
				add(c, g)
			}
		}
	} else {
		for _, j := range b.Jobs {
			add(j.Candidate, j.Game)
		}
	}
	remaining := 0
	for _, games := range perCand {
		remaining += len(games)
	}
	var out []block
	next := func(c int) {
		games := perCand[c]
		size := min(n, len(games))
		if slots > 0 {
			// At least 1: remaining >= len(games) > 0.
			size = min(size, (remaining+slots-1)/slots)
		}
		if len(out) < lead {
			size = 1
		}
		out = append(out, block{cand: c, games: games[:size]})
		perCand[c] = games[size:]
		remaining -= size
	}
	if byCandidate {
		for c := range perCand {
			for len(perCand[c]) > 0 {
				next(c)
			}
		}
		return out
	}
	for remaining > 0 {
		for c := range perCand {
			if len(perCand[c]) > 0 {
				next(c)
			}
		}
	}
	return out
}

// batchState is the bookkeeping of the batch in flight: its jobs, the
// games asked for, which results arrived and from which worker, and the
// last refusal of each job. It knows nothing of NATS: Play hands it
// decoded results and asks it what to do, so every rule about duplicates,
// conflicts and refusals is tested without a server.
type batchState struct {
	b       *tuner.Batch
	results [][]engine.Result
	done    tuner.GameDone
	want    [][]bool   // the games asked for
	by      [][]string // the worker whose result fills a slot, "" while empty
	pending int
	blocks  []block
	index   map[[2]int]int // (candidate, first game) -> block
	refusal map[int]string // block -> the last refusal of it
	over    []bool         // blocks whose games have all arrived, as newlyComplete last saw
	checked int            // blocks before it are all over
	slots   int            // the slots the batch was cut for, 0 if unknown
	after   []int          // by block: the games of the blocks after it
}

// newBatchState cuts b into jobs of at most gamesPerJob games, for slots
// slots if known (see blocks), and marks their games as wanted; results
// receives them and done, if not nil, is told of each as it arrives.
func newBatchState(b *tuner.Batch, results [][]engine.Result, done tuner.GameDone, gamesPerJob, slots int) *batchState {
	st := &batchState{b: b, results: results, done: done, index: map[[2]int]int{}, refusal: map[int]string{}, slots: slots}
	st.want = make([][]bool, len(b.Vectors))
	st.by = make([][]string, len(b.Vectors))
	for c := range b.Vectors {
		st.want[c] = make([]bool, len(b.Seeds))
		st.by[c] = make([]string, len(b.Seeds))
	}
	st.blocks = blocks(b, gamesPerJob, slots)
	if b.Ahead && slots > 0 {
		st.blocks = aheadBlocks(b, gamesPerJob, slots)
	}
	st.after = make([]int, len(st.blocks))
	for i := len(st.blocks) - 2; i >= 0; i-- {
		st.after[i] = st.after[i+1] + len(st.blocks[i+1].games)
	}
	for i, bl := range st.blocks {
		st.index[[2]int{bl.cand, bl.games[0]}] = i
		for _, g := range bl.games {
			if !st.want[bl.cand][g] {
				st.want[bl.cand][g] = true
				st.pending++
			}
		}
	}
	return st
}

// job returns the message of job i: the batch's part of it, common to
// all its jobs (see template), with the candidate and games of block i,
// and for an external player's batch cut for a known fleet, what a
// worker's slot needs to join the next job to it.
func (st *batchState) job(i int, common job) job {
	b, bl := st.b, st.blocks[i]
	seeds := make([]uint64, len(bl.games))
	for k, g := range bl.games {
		seeds[k] = b.Seeds[g]
	}
	j := common
	j.Candidate, j.Weights, j.Games, j.Seeds = bl.cand, b.Vectors[bl.cand], bl.games, seeds
	if j.Player != nil && st.slots > 0 {
		h := &joinHint{Slots: st.slots, Left: st.after[i]}
		if i+1 < len(st.blocks) {
			h.Next, h.Same = len(st.blocks[i+1].games), st.blocks[i+1].cand == bl.cand
		}
		j.Join = h
	}
	return j
}

// template returns what every job of batch b says: everything its games
// depend on besides the candidate and the seeds. A feature set's jobs
// name the set, its version and the search; an external player's name
// the player by its declaration.
func template(b *tuner.Batch, pl batchPlayers, run, key string) job {
	j := job{Format: JobFormat, Run: run, Batch: key, Generation: b.Generation, Rules: engine.RulesVersion, MaxMoves: b.MaxMoves}
	if pl.family != nil {
		j.Player = pl.family.Declaration()
	} else {
		j.Features, j.FeaturesVersion, j.Search = pl.features.Set.Name, pl.features.Set.Version(), pl.features.Search
	}
	return j
}

// newlyComplete counts the blocks whose games have all arrived since its
// last call, among those published before it: a slot of the fleet is free
// for each. Blocks are published in order, and complete mostly in order, so
// it starts from the first block not yet over.
func (st *batchState) newlyComplete() int {
	if st.over == nil {
		st.over = make([]bool, len(st.blocks))
	}
	n := 0
	for i := st.checked; i < len(st.blocks); i++ {
		if !st.over[i] && st.complete(i) {
			st.over[i] = true
			n++
		}
	}
	for st.checked < len(st.blocks) && st.over[st.checked] {
		st.checked++
	}
	return n
}

// complete reports whether every game of block i has its result.
func (st *batchState) complete(i int) bool {
	bl := st.blocks[i]
	for _, g := range bl.games {
		if st.by[bl.cand][g] == "" {
			return false
		}
	}
	return true
}

// refuse notes a worker's refusal against the job it names: the reason the
// run gives if no worker ever plays that job.
func (st *batchState) refuse(r *result) {
	if len(r.Games) > 0 {
		if i, ok := st.index[[2]int{r.Candidate, r.Games[0]}]; ok {
			st.refusal[i] = fmt.Sprintf("worker %s: %s", r.Worker, r.Refused)
		}
	}
}

// add puts the games of a result (not a refusal) into their slots. A game
// not asked for is skipped, and so is a second result equal to the first
// (a job played twice); a second result that differs is ErrConflict, and
// a result that does not fit the batch ErrBadResult.
func (st *batchState) add(r *result) error {
	b := st.b
	if len(r.Results) != len(r.Games) {
		return fmt.Errorf("%w: worker %s sent %d results for %d games", ErrBadResult, r.Worker, len(r.Results), len(r.Games))
	}
	c := r.Candidate
	for i, g := range r.Games {
		if c < 0 || c >= len(st.want) || g < 0 || g >= len(b.Seeds) {
			return fmt.Errorf("%w: worker %s sent candidate %d, game %d, which generation %d does not have", ErrBadResult, r.Worker, c, g, b.Generation)
		}
		if !st.want[c][g] {
			// A late answer to an earlier publication of this batch (by a
			// coordinator since killed) for a game the journal had: the
			// same game, not asked for now.
			continue
		}
		res := r.Results[i]
		if res.Seed != b.Seeds[g] {
			return fmt.Errorf("%w: worker %s played seed %#x for candidate %d, game %d, whose seed is %#x", ErrBadResult, r.Worker, res.Seed, c, g, b.Seeds[g])
		}
		if prev := st.by[c][g]; prev != "" {
			if old := st.results[c][g]; old != res {
				return fmt.Errorf("%w: candidate %d, game %d (seed %#x) of generation %d: worker %s says %s, worker %s says %s; a worker plays differently from the others (another build, or faulty hardware)",
					ErrConflict, c, g, res.Seed, b.Generation, prev, describe(old), r.Worker, describe(res))
			}
			continue
		}
		st.results[c][g] = res
		st.by[c][g] = r.Worker
		st.pending--
		if st.done != nil {
			st.done(tuner.Job{Candidate: c, Game: g}, res, false)
		}
	}
	return nil
}

// undelivered returns the error that ends the batch when the server gave
// up on job i after deliveries attempts, or nil if its games arrived
// anyway (the last delivery's result came before the server's notice).
func (st *batchState) undelivered(i int, deliveries uint64) error {
	if st.complete(i) {
		return nil
	}
	bl := st.blocks[i]
	why := "no worker acknowledged it in time (workers dying or overloaded?)"
	if r := st.refusal[i]; r != "" {
		why = "last refusal: " + r
	}
	return fmt.Errorf("%w: candidate %d, games %d..%d of generation %d, handed out %d times: %s",
		ErrMaxDeliver, bl.cand, bl.games[0], bl.games[len(bl.games)-1], st.b.Generation, deliveries, why)
}

func describe(r engine.Result) string {
	return fmt.Sprintf("score %d, max tile %d, %d moves, final board %s", r.Score, r.MaxTile, r.Moves, r.Final.Hex())
}
