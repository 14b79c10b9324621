package natspool

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/evotune/evotune/tuner"
	"github.com/evotune/evotune/tuner/playerpool"
)

// holdFirst makes w's slots hold their first job, before they gather
// others to it, until p's queue has at least n jobs waiting: the jobs a
// slot finds waiting when it comes free, made certain for a test.
func holdFirst(t *testing.T, w *Worker, p *Pool, n uint64) {
	var once sync.Once
	w.beforePlay = func(*job) error {
		once.Do(func() {
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
				info, err := p.consumer.Info(context.Background())
				if err == nil && info.NumPending >= n {
					return
				}
				if time.Now().After(deadline) {
					t.Errorf("%d jobs never waited in the queue", n)
					return
				}
			}
		})
		return nil
	}
}

// TestSlotJoinsWaitingJobs plays a player's batch of 2 candidates x 8
// games in jobs of 2 games on a worker of one slot, which finds the other
// jobs waiting when it begins: without a count of the fleet (fixed jobs,
// no join hints) each job's games share the player's move requests; with
// one, the slot joins the waiting jobs of its candidate to its first (all
// of a candidate's games after one set), or, for a player of protocol
// version 2, every waiting job, so that each request carries as many
// boards. The requests the player answered are counted, and every game is
// the local pool's either way.
func TestSlotJoinsWaitingJobs(t *testing.T) {
	b := playerBatch(t, rand.New(rand.NewPCG(41, 42)), playerCommand("standard", 1, false), 0, 2, 8, false)
	want := playPlayerLocal(t, b)
	// requests is what a slot asks when it plays groups of games in
	// lockstep: as many requests as the longest game of a group has moves,
	// and one more for the process's first, which asks for one board
	// alone before the others (see playerpool.Process.Moves).
	requests := func(groups [][]tuner.Job) (n int64) {
		n = 1
		for _, g := range groups {
			longest := 0
			for _, j := range g {
				longest = max(longest, want[j.Candidate][j.Game].Moves)
			}
			n += int64(longest)
		}
		return n
	}
	var boards int64
	var alone, byCand [][]tuner.Job
	var all []tuner.Job
	for c := range b.Vectors {
		var cand []tuner.Job
		for g := range b.Seeds {
			boards += int64(want[c][g].Moves)
			cand = append(cand, tuner.Job{Candidate: c, Game: g})
		}
		for g := 0; g < len(cand); g += 2 {
			alone = append(alone, cand[g:g+2])
		}
		byCand = append(byCand, cand)
		all = append(all, cand...)
	}
	for _, version := range []int{1, 2} {
		for _, join := range []bool{false, true} {
			s := startServer(t, Credentials{})
			counts := t.TempDir()
			cmd := sleepCommand("standard", 1, 0, counts)
			wantRequests := requests(alone)
			switch {
			case version == 1:
				cmd = versionOne(cmd)
				if join {
					wantRequests = requests(byCand)
				}
			case join:
				wantRequests = requests([][]tuner.Job{all})
			}
			w := newPlayerWorker(t, connect(t, s, "w"), "w", 1, cmd, "")
			if fam, _ := w.Player(); mixesSets(&fam) != (version == 2) {
				t.Fatalf("version %d: a player of %d sets", version, fam.Sets)
			}
			p := newPool(t, connect(t, s, "c"), Options{GamesPerJob: 2})
			p.fixedJobs = !join
			holdFirst(t, w, p, 7)
			startWorker(t, w)
			waitSlots(t, p, 1)
			r0, n0 := readCounts(t, counts) // the worker's probe of its player
			got, err := playDist(t, p, b)
			if err != nil {
				t.Fatalf("version %d, join %v: %v", version, join, err)
			}
			sameResults(t, got, want)
			r, n := readCounts(t, counts)
			r, n = r-r0, n-n0
			t.Logf("version %d, join %v: %d boards in %d requests, %.1f a request", version, join, n, r, float64(n)/float64(r))
			if n != boards || r != wantRequests {
				t.Errorf("version %d, join %v: the player answered %d boards in %d requests, want %d in %d", version, join, n, r, boards, wantRequests)
			}
			if jobs, games := w.Played(); jobs != 8 || games != 16 {
				t.Errorf("version %d, join %v: the worker played %d jobs, %d games; want 8, 16", version, join, jobs, games)
			}
		}
	}
}

// TestJoinedJobsRefused: a player that fails for good while a slot plays
// joined jobs makes the slot refuse every one of them, each with the
// player's error, as it refuses a job played alone.
func TestJoinedJobsRefused(t *testing.T) {
	b := playerBatch(t, rand.New(rand.NewPCG(43, 44)), playerCommand("standard", 1, false), 0, 1, 8, false)
	s := startServer(t, Credentials{})
	nc := connect(t, s, "c")
	p := newPool(t, nc, Options{GamesPerJob: 2, QueueOptions: QueueOptions{MaxDeliver: 1}})
	key, _ := batchKey(b)
	refused := make(chan result, 16)
	sub, err := nc.Subscribe(resultSubject(p.o.Run, key), func(m *nats.Msg) {
		var r result
		if json.Unmarshal(m.Data, &r) == nil && r.Refused != "" {
			refused <- r
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	w := newPlayerWorker(t, connect(t, s, "w"), "w", 1, playerCommand("standard", 1, true), t.TempDir())
	w.backoff = 0
	holdFirst(t, w, p, 3)
	startWorker(t, w)
	waitSlots(t, p, 1)
	_, err = playDist(t, p, b)
	if !errors.Is(err, ErrMaxDeliver) || !strings.Contains(err.Error(), "crashing, on purpose") {
		t.Fatalf("got %v, want %v with the player's error", err, ErrMaxDeliver)
	}
	if n := w.joined.Load(); n != 3 {
		t.Errorf("the slot joined %d jobs to its first, want 3", n)
	}
	seen := map[int]bool{}
	for len(seen) < 4 {
		select {
		case r := <-refused:
			if !strings.Contains(r.Refused, "crashing, on purpose") {
				t.Errorf("refusal %q, want the player's error", r.Refused)
			}
			seen[r.Games[0]] = true
		case <-time.After(10 * time.Second):
			t.Fatalf("refusals of the jobs beginning at games %v, want the 4 jobs", seen)
		}
	}
}

// TestJoinedJobsNakedOnStop: a worker stopped while its slot plays joined
// jobs hands them all back at once, so another worker plays them well
// before the ack wait would have freed them.
func TestJoinedJobsNakedOnStop(t *testing.T) {
	b := playerBatch(t, rand.New(rand.NewPCG(45, 46)), playerCommand("standard", 1, false), 0, 1, 8, false)
	want := playPlayerLocal(t, b)
	s := startServer(t, Credentials{})
	p := newPool(t, connect(t, s, "c"), Options{GamesPerJob: 2, QueueOptions: QueueOptions{AckWait: time.Minute}})
	slow := sleepCommand("standard", 1, 5*time.Millisecond, "")
	w := newPlayerWorker(t, connect(t, s, "first"), "first", 1, slow, "")
	holdFirst(t, w, p, 3)
	ctx, stop := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		w.Run(ctx)
	}()
	defer func() {
		stop()
		<-stopped
	}()
	waitSlots(t, p, 1)
	go func() {
		// Once the slot holds every job, stop it and start another worker.
		for {
			info, err := p.consumer.Info(context.Background())
			if err == nil && info.NumPending == 0 && info.NumAckPending == 4 {
				break
			}
			time.Sleep(time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond)
		stop()
		<-stopped
		startWorker(t, newPlayerWorker(t, connect(t, s, "second"), "second", 1, playerCommand("standard", 1, false), ""))
	}()
	began := time.Now()
	got, err := playDist(t, p, b)
	if err != nil {
		t.Fatal(err)
	}
	sameResults(t, got, want)
	if jobs, _ := w.Played(); jobs != 0 || w.joined.Load() != 3 {
		t.Errorf("the stopped worker joined %d jobs to its first and finished %d; want 3 and 0", w.joined.Load(), jobs)
	}
	if d := time.Since(began); d > 30*time.Second {
		t.Errorf("the batch took %v: the jobs waited for the ack wait", d)
	}
}

// TestJoinerWants pins the rule for taking the next job: of a candidate
// the player can play with the group's, within the player's requests, and
// no more than the slot's share of the games not yet begun.
func TestJoinerWants(t *testing.T) {
	one := &joiner{boards: 64}
	mixes := &joiner{boards: 64, mixes: true}
	for _, c := range []struct {
		jn    *joiner
		games int
		h     *joinHint
		want  bool
	}{
		{one, 4, nil, false},
		{one, 4, &joinHint{Slots: 16, Next: 4, Same: true, Left: 252}, true},   // 8 of a share of 16
		{one, 4, &joinHint{Slots: 16, Next: 4, Same: false, Left: 252}, false}, // another candidate
		{mixes, 4, &joinHint{Slots: 16, Next: 4, Same: false, Left: 252}, true},
		{one, 4, &joinHint{Slots: 64, Next: 4, Same: true, Left: 252}, false}, // a share of 4
		{one, 4, &joinHint{Slots: 16, Next: 4, Same: true, Left: 110}, true},  // 8 of 114/16, rounded up
		{one, 4, &joinHint{Slots: 16, Next: 4, Same: true, Left: 108}, false}, // 8 of 112/16 = 7
		{one, 4, &joinHint{Slots: 16, Next: 0, Same: false, Left: 0}, false},  // the batch's last
		{one, 62, &joinHint{Slots: 1, Next: 4, Same: true, Left: 200}, false}, // 66 boards a request
		{one, 60, &joinHint{Slots: 1, Next: 4, Same: true, Left: 200}, true},
		{one, 4, &joinHint{Slots: 0, Next: 4, Same: true, Left: 200}, false},
	} {
		if got := c.jn.wants(c.games, c.h); got != c.want {
			t.Errorf("mixes %v, %d games held, hint %+v: wants %v, want %v", c.jn.mixes, c.games, c.h, got, c.want)
		}
	}
}

// TestJoinedBatch: the batch of a group of jobs has a vector per distinct
// parameter vector and each (vector, seed) pair once, and maps every game
// of every job to its pair.
func TestJoinedBatch(t *testing.T) {
	fam := &playerpool.Family{ID: "p", Version: "1"}
	mk := func(w float64, seeds ...uint64) *taken {
		return &taken{j: &job{Generation: 2, MaxMoves: 9, Weights: []float64{w}, Seeds: seeds}}
	}
	group := []*taken{mk(1, 10, 11), mk(1, 12), mk(2, 10, 12), mk(1, 10)}
	b, where := joined(fam, group)
	if len(b.Vectors) != 2 || len(b.Seeds) != 3 || len(b.Jobs) != 5 || b.MaxMoves != 9 || b.Generation != 2 {
		t.Fatalf("batch %+v", b)
	}
	for i, g := range group {
		for k, seed := range g.j.Seeds {
			pair := where[i][k]
			if b.Vectors[pair.Candidate][0] != g.j.Weights[0] || b.Seeds[pair.Game] != seed {
				t.Errorf("job %d, game %d: pair %v plays %v on %d", i, k, pair, b.Vectors[pair.Candidate], b.Seeds[pair.Game])
			}
		}
	}
}
