package natspool

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/tuner"
	"github.com/evotune/evotune/tuner/playerpool"
)

// The tests in this file need no server: they drive the batch bookkeeping
// with results as a worker would send them.

// plainBatch is a batch of cands candidates on games seeds; its weights
// are never played here.
func plainBatch(cands, games int) *tuner.Batch {
	set, _ := eval.Set("standard")
	b := &tuner.Batch{Generation: 7, MaxMoves: 100,
		Players: tuner.FeaturePlayers{Set: set, Search: engine.SearchConfig{Algorithm: "expectimax", Depth: 1, LossValue: engine.DefaultLossValue}}}
	for c := range cands {
		b.Vectors = append(b.Vectors, []float64{float64(c), 1, 2, 3, 4})
	}
	for g := range games {
		b.Seeds = append(b.Seeds, 1000+uint64(g))
	}
	return b
}

// played is the result a worker would send for candidate c's games.
func played(b *tuner.Batch, worker string, c int, games ...int) *result {
	r := &result{Candidate: c, Games: games, Worker: worker}
	for _, g := range games {
		r.Results = append(r.Results, engine.Result{Seed: b.Seeds[g], Score: 100*c + g, MaxTile: 64, Moves: 10 + g})
	}
	return r
}

func TestBlocksOrder(t *testing.T) {
	b := plainBatch(3, 5)
	got := blocks(b, 2, 0)
	want := []block{
		{0, []int{0, 1}}, {1, []int{0, 1}}, {2, []int{0, 1}},
		{0, []int{2, 3}}, {1, []int{2, 3}}, {2, []int{2, 3}},
		{0, []int{4}}, {1, []int{4}}, {2, []int{4}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("blocks = %v, want %v", got, want)
	}
	// A subset keeps each candidate's games in the order the batch lists them.
	b.Jobs = []tuner.Job{{Candidate: 1, Game: 4}, {Candidate: 0, Game: 3}, {Candidate: 1, Game: 0}, {Candidate: 1, Game: 2}}
	got = blocks(b, 2, 0)
	want = []block{{0, []int{3}}, {1, []int{4, 0}}, {1, []int{2}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("subset blocks = %v, want %v", got, want)
	}
}

// TestBlocksCoverJobs checks on random batches that the jobs hold every
// game asked for once, at most n of one candidate each.
func TestBlocksCoverJobs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		b := plainBatch(1+rng.IntN(6), 1+rng.IntN(12))
		if rng.IntN(2) == 0 {
			b.Jobs = []tuner.Job{}
			for g := range b.Seeds {
				for c := range b.Vectors {
					if rng.IntN(3) > 0 {
						b.Jobs = append(b.Jobs, tuner.Job{Candidate: c, Game: g})
					}
				}
			}
		}
		n, slots := 1+rng.IntN(5), rng.IntN(4)
		seen := map[tuner.Job]int{}
		for _, bl := range blocks(b, n, slots) {
			if len(bl.games) == 0 || len(bl.games) > n {
				t.Fatalf("a block of %d games, want 1 to %d", len(bl.games), n)
			}
			for _, g := range bl.games {
				seen[tuner.Job{Candidate: bl.cand, Game: g}]++
			}
		}
		want := len(b.Vectors) * len(b.Seeds)
		if b.Jobs != nil {
			want = len(b.Jobs)
			for _, j := range b.Jobs {
				if seen[j] != 1 {
					t.Fatalf("job %v in %d blocks", j, seen[j])
				}
			}
		}
		if len(seen) != want {
			t.Fatalf("blocks hold %d games, want %d", len(seen), want)
		}
	}
}

// TestAheadBlocks: an Ahead batch's first job per slot holds one game, the
// rest shrink as a batch's do, and every game is in one job.
func TestAheadBlocks(t *testing.T) {
	b := plainBatch(32, 8)
	bs := aheadBlocks(b, 4, 16)
	for i, bl := range bs[:16] {
		if len(bl.games) != 1 || bl.cand != i || bl.games[0] != 0 {
			t.Fatalf("job %d: candidate %d, games %v; want candidate %d's first game alone", i, bl.cand, bl.games, i)
		}
	}
	if len(bs[16].games) != 4 {
		t.Errorf("the job after the first per slot has %d games, want 4", len(bs[16].games))
	}
	seen := map[[2]int]bool{}
	for _, bl := range bs {
		for _, g := range bl.games {
			if seen[[2]int{bl.cand, g}] {
				t.Fatalf("candidate %d, game %d in two jobs", bl.cand, g)
			}
			seen[[2]int{bl.cand, g}] = true
		}
	}
	if len(seen) != 32*8 {
		t.Errorf("jobs hold %d games, want %d", len(seen), 32*8)
	}
}

// TestBlocksShrink: for a known number of slots, a batch's jobs shrink
// from n games to one towards its end, so that its last games reach every
// slot, and a batch of one candidate is cut into a job per slot at least.
func TestBlocksShrink(t *testing.T) {
	b := plainBatch(32, 8)
	bs := blocks(b, 4, 16)
	if len(bs[0].games) != 4 {
		t.Errorf("the first job has %d games, want 4", len(bs[0].games))
	}
	for i := 1; i < len(bs); i++ {
		if len(bs[i].games) > len(bs[i-1].games) {
			t.Fatalf("job %d has %d games, the one before %d", i, len(bs[i].games), len(bs[i-1].games))
		}
	}
	for _, bl := range bs[len(bs)-16:] {
		if len(bl.games) != 1 {
			t.Fatalf("a job of %d games among the last 16", len(bl.games))
		}
	}
	t.Logf("32 candidates x 8 games on 16 slots: %d jobs", len(bs))
	if bs := blocks(plainBatch(1, 100), 4, 64); len(bs) < 64 {
		t.Errorf("one candidate's 100 games in %d jobs for 64 slots", len(bs))
	} else {
		// The figures docs/many-machines.md quotes for a validation.
		t.Logf("one candidate x 100 games: %d jobs on 16 slots, %d on 64", len(blocks(plainBatch(1, 100), 4, 16)), len(bs))
	}
}

func TestBatchJobMessage(t *testing.T) {
	b := plainBatch(2, 5)
	st := newBatchState(b, newResults(b), nil, 2, 0)
	// Block 3 is candidate 1's games 2 and 3.
	fp := b.Players.(tuner.FeaturePlayers)
	got := st.job(3, template(b, batchPlayers{features: fp}, "run", "key"))
	want := job{Format: JobFormat, Run: "run", Batch: "key", Generation: 7, Rules: engine.RulesVersion,
		Features: "standard", FeaturesVersion: fp.Set.Version(), Candidate: 1, Weights: b.Vectors[1], Search: fp.Search,
		MaxMoves: 100, Games: []int{2, 3}, Seeds: []uint64{1002, 1003}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("job = %+v, want %+v", got, want)
	}
}

// TestBatchResults follows results into their slots: each game is told
// once, a job played twice adds nothing, and games not asked for are left
// alone.
func TestBatchResults(t *testing.T) {
	b := plainBatch(2, 4)
	b.Jobs = []tuner.Job{{Candidate: 0, Game: 0}, {Candidate: 0, Game: 1}, {Candidate: 1, Game: 1}, {Candidate: 1, Game: 3}}
	results := newResults(b)
	var told []tuner.Job
	st := newBatchState(b, results, func(j tuner.Job, r engine.Result, replayed bool) {
		if replayed {
			t.Errorf("game %v told as replayed", j)
		}
		if r != results[j.Candidate][j.Game] {
			t.Errorf("game %v told %+v before its slot holds it", j, r)
		}
		told = append(told, j)
	}, 4, 0)
	if st.pending != 4 || len(st.blocks) != 2 {
		t.Fatalf("pending %d in %d jobs, want 4 in 2", st.pending, len(st.blocks))
	}
	r := played(b, "a", 0, 0, 1)
	if err := st.add(r); err != nil {
		t.Fatal(err)
	}
	if st.pending != 2 || !st.complete(0) || st.complete(1) {
		t.Fatalf("after job 0: pending %d, complete %v %v", st.pending, st.complete(0), st.complete(1))
	}
	if results[0][0] != r.Results[0] || results[0][1] != r.Results[1] || st.by[0][1] != "a" {
		t.Errorf("slots %+v, by %q; want worker a's results", results[0], st.by[0])
	}
	// The same job played again, by another worker: the same games.
	if err := st.add(played(b, "b", 0, 0, 1)); err != nil {
		t.Fatal(err)
	}
	// Candidate 1's game 0 was not asked for (the journal had it).
	if err := st.add(played(b, "c", 1, 0, 1, 3)); err != nil {
		t.Fatal(err)
	}
	if st.pending != 0 || !st.complete(1) {
		t.Fatalf("pending %d, want 0", st.pending)
	}
	if results[1][0] != (engine.Result{}) {
		t.Errorf("a game not asked for filled its slot: %+v", results[1][0])
	}
	if want := []tuner.Job{{Candidate: 0, Game: 0}, {Candidate: 0, Game: 1}, {Candidate: 1, Game: 1}, {Candidate: 1, Game: 3}}; !reflect.DeepEqual(told, want) {
		t.Errorf("told of %v, want %v", told, want)
	}
	if st.by[0][0] != "a" {
		t.Errorf("slot (0, 0) by %q, want the first worker, a", st.by[0][0])
	}
}

// TestBatchBadResults checks that a result that does not fit the batch,
// or contradicts one already in, ends it with an error naming the worker.
func TestBatchBadResults(t *testing.T) {
	b := plainBatch(2, 3)
	wrongSeed := played(b, "w", 0, 1)
	wrongSeed.Results[0].Seed++
	short := played(b, "w", 0, 1, 2)
	short.Results = short.Results[:1]
	other := played(b, "w", 1, 2)
	other.Results[0].Score++
	for _, tc := range []struct {
		name string
		r    *result
		want error
		text string
	}{
		{"count", short, ErrBadResult, "worker w sent 1 results for 2 games"},
		{"fits", played(b, "w", 0, 1), nil, ""},
		{"candidate out of range", &result{Candidate: 2, Games: []int{0}, Results: []engine.Result{{}}, Worker: "w"}, ErrBadResult, "candidate 2, game 0, which generation 7 does not have"},
		{"game out of range", &result{Candidate: 0, Games: []int{3}, Results: []engine.Result{{}}, Worker: "w"}, ErrBadResult, "candidate 0, game 3"},
		{"seed", wrongSeed, ErrBadResult, "played seed 0x3ea for candidate 0, game 1, whose seed is 0x3e9"},
		{"conflict", other, ErrConflict, "worker a says score 102, max tile 64, 12 moves, final board 0x0000000000000000, worker w says score 103"},
	} {
		st := newBatchState(b, newResults(b), nil, 4, 0)
		if err := st.add(played(b, "a", 1, 0, 1, 2)); err != nil {
			t.Fatal(err)
		}
		err := st.add(tc.r)
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s: got %v, want %v with %q", tc.name, err, tc.want, tc.text)
		}
	}
}

// TestBatchUndelivered checks the error of a job the server gave up on:
// its last refusal if a worker refused it, and none once its games are in
// (a result that came just before the server's notice).
func TestBatchUndelivered(t *testing.T) {
	b := plainBatch(2, 3)
	st := newBatchState(b, newResults(b), nil, 2, 0)
	// Jobs: 0 = (0: 0 1), 1 = (1: 0 1), 2 = (0: 2), 3 = (1: 2).
	err := st.undelivered(1, 5)
	if !errors.Is(err, ErrMaxDeliver) || !strings.HasSuffix(err.Error(), "candidate 1, games 0..1 of generation 7, handed out 5 times: no worker acknowledged it in time (workers dying or overloaded?)") {
		t.Errorf("unrefused job: %v", err)
	}
	st.refuse(&result{Candidate: 1, Games: []int{0, 1}, Worker: "old", Refused: "rules version 1, this worker has 2"})
	st.refuse(&result{Candidate: 1, Games: []int{1}, Worker: "x", Refused: "no job starts at game 1"})
	err = st.undelivered(1, 5)
	if !errors.Is(err, ErrMaxDeliver) || !strings.HasSuffix(err.Error(), "handed out 5 times: last refusal: worker old: rules version 1, this worker has 2") {
		t.Errorf("refused job: %v", err)
	}
	if err := st.undelivered(3, 5); err == nil || strings.Contains(err.Error(), "refusal") {
		t.Errorf("a refusal of job 1 is given for job 3: %v", err)
	}
	if err := st.add(played(b, "new", 1, 0, 1)); err != nil {
		t.Fatal(err)
	}
	if err := st.undelivered(1, 5); err != nil {
		t.Errorf("a job whose games are in: %v", err)
	}
}

// TestPlayerJobsJoinHints: an external player's jobs go candidate by
// candidate, and when cut for a known fleet each says how large the next
// is, whether it is of the same candidate, and how many games follow; a
// feature set's jobs, and jobs cut for a fleet the server could not
// count, say nothing of the kind.
func TestPlayerJobsJoinHints(t *testing.T) {
	b := plainBatch(3, 5)
	fam := playerpool.Family{ID: "p", Version: "1", Params: []playerpool.Param{{Name: "a", Max: 1}}}
	b.Players = fam
	st := newBatchState(b, newResults(b), nil, 2, 4)
	common := template(b, batchPlayers{family: &fam}, "run", "key")
	var cands []int
	left := 15
	for i, bl := range st.blocks {
		cands = append(cands, bl.cand)
		left -= len(bl.games)
		j := st.job(i, common)
		want := &joinHint{Slots: 4, Left: left}
		if i+1 < len(st.blocks) {
			want.Next, want.Same = len(st.blocks[i+1].games), st.blocks[i+1].cand == bl.cand
		}
		if !reflect.DeepEqual(j.Join, want) {
			t.Errorf("job %d (candidate %d, games %v): hint %+v, want %+v", i, bl.cand, bl.games, j.Join, want)
		}
	}
	for i := 1; i < len(cands); i++ {
		if cands[i] < cands[i-1] {
			t.Fatalf("jobs of candidates %v: want them candidate by candidate", cands)
		}
	}
	if j := newBatchState(b, newResults(b), nil, 2, 0).job(0, common); j.Join != nil {
		t.Errorf("a job cut for an unknown fleet has hint %+v", j.Join)
	}
	fb := plainBatch(3, 5)
	fp := fb.Players.(tuner.FeaturePlayers)
	if j := newBatchState(fb, newResults(fb), nil, 2, 4).job(0, template(fb, batchPlayers{features: fp}, "run", "key")); j.Join != nil {
		t.Errorf("a feature set's job has hint %+v", j.Join)
	}
}
