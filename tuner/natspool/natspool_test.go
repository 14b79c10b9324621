package natspool

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/tuner"
)

func startServer(t testing.TB, auth Credentials) *Server {
	t.Helper()
	s, err := StartServer("127.0.0.1:0", auth)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	return s
}

func connect(t testing.TB, s *Server, name string) *nats.Conn {
	t.Helper()
	nc, err := Connect(s.URL(), s.auth, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

func newPool(t testing.TB, nc *nats.Conn, o Options) *Pool {
	t.Helper()
	if o.Run == "" {
		o.Run = "test"
	}
	p, err := NewPool(context.Background(), nc, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// startWorker runs w until the test ends.
func startWorker(t testing.TB, w *Worker) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

func newWorker(t testing.TB, nc *nats.Conn, name string, slots int) *Worker {
	t.Helper()
	w, err := NewWorker(nc, WorkerOptions{Name: name, Slots: slots, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// testBatch is a batch of short games: one-ply searches, at most maxMoves
// moves, candidates scattered around the standard set's defaults, and a
// random subset of the games when subset is set (as a journal leaves).
func testBatch(rng *rand.Rand, generation, cands, games int, subset bool) *tuner.Batch {
	set, _ := eval.Set("standard")
	b := &tuner.Batch{
		Generation: generation,
		Players:    tuner.FeaturePlayers{Set: set, Search: engine.SearchConfig{Algorithm: "expectimax", Depth: 1, LossValue: engine.DefaultLossValue}},
		MaxMoves:   150,
	}
	for range cands {
		w := make([]float64, len(set.Defaults))
		for i, x := range set.Defaults {
			w[i] = x * (1 + 0.3*rng.NormFloat64())
		}
		b.Vectors = append(b.Vectors, w)
	}
	addSeeds(b, rng, games, subset)
	return b
}

func newResults(b *tuner.Batch) [][]engine.Result {
	r := make([][]engine.Result, len(b.Vectors))
	for c := range r {
		r[c] = make([]engine.Result, len(b.Seeds))
	}
	return r
}

// playLocal is the reference: the batch on the local pool.
func playLocal(t *testing.T, b *tuner.Batch) [][]engine.Result {
	t.Helper()
	r := newResults(b)
	if err := tuner.NewLocalPool(1).Play(context.Background(), b, r, nil); err != nil {
		t.Fatal(err)
	}
	return r
}

func playDist(t *testing.T, p *Pool, b *tuner.Batch) ([][]engine.Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r := newResults(b)
	var mu sync.Mutex
	seen := map[tuner.Job]int{}
	err := p.Play(ctx, b, r, func(j tuner.Job, _ engine.Result, replayed bool) {
		mu.Lock()
		defer mu.Unlock()
		if replayed {
			t.Errorf("job %v reported as replayed", j)
		}
		seen[j]++
	})
	if err != nil {
		return r, err
	}
	want := len(b.Vectors) * len(b.Seeds)
	if b.Jobs != nil {
		want = len(b.Jobs)
	}
	if len(seen) != want {
		t.Errorf("done told of %d games, want %d", len(seen), want)
	}
	for j, n := range seen {
		if n != 1 {
			t.Errorf("done told of job %v %d times", j, n)
		}
	}
	return r, nil
}

func sameResults(t *testing.T, got, want [][]engine.Result) {
	t.Helper()
	for c := range want {
		for g := range want[c] {
			if got[c][g] != want[c][g] {
				t.Fatalf("candidate %d, game %d: got %+v, want %+v", c, g, got[c][g], want[c][g])
			}
		}
	}
}

// TestPlayMatchesLocal plays random batches (whole, and journal-like
// subsets) on workers with random slot counts and job sizes and compares
// every slot with the local pool's.
func TestPlayMatchesLocal(t *testing.T) {
	s := startServer(t, Credentials{})
	rng := rand.New(rand.NewPCG(1, 2))
	rounds := 12
	if testing.Short() {
		rounds = 4
	}
	for _, name := range []string{"a", "b"} {
		startWorker(t, newWorker(t, connect(t, s, name), name, 1+rng.IntN(2)))
	}
	for round := range rounds {
		p := newPool(t, connect(t, s, "coordinator"), Options{Run: "r" + string(rune('a'+round)), GamesPerJob: 1 + rng.IntN(5)})
		for gen := range 2 {
			b := testBatch(rng, gen, 1+rng.IntN(4), 1+rng.IntN(7), rng.IntN(2) == 0)
			got, err := playDist(t, p, b)
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			sameResults(t, got, playLocal(t, b))
		}
	}
}

// TestRunsShareServer plays two runs' batches at once on one server and
// one set of workers: each gets its own games.
func TestRunsShareServer(t *testing.T) {
	s := startServer(t, Credentials{})
	startWorker(t, newWorker(t, connect(t, s, "w"), "w", 2))
	rng := rand.New(rand.NewPCG(3, 4))
	batches := []*tuner.Batch{testBatch(rng, 0, 3, 5, false), testBatch(rng, 0, 2, 6, false)}
	var wg sync.WaitGroup
	for i, b := range batches {
		p := newPool(t, connect(t, s, "c"), Options{Run: []string{"one", "two"}[i], GamesPerJob: 2})
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := playDist(t, p, b)
			if err != nil {
				t.Error(err)
				return
			}
			sameResults(t, got, playLocal(t, b))
		}()
	}
	wg.Wait()
}

// TestWorkerDroppedMidJob loses a worker that has taken a job (its
// connection closes before it answers): the job goes to another worker
// after AckWait and the batch ends with the local results.
func TestWorkerDroppedMidJob(t *testing.T) {
	s := startServer(t, Credentials{})
	p := newPool(t, connect(t, s, "c"), Options{GamesPerJob: 2, QueueOptions: QueueOptions{AckWait: time.Second}})
	b := testBatch(rand.New(rand.NewPCG(5, 6)), 0, 3, 4, false)

	dropped := connect(t, s, "dropped")
	w := newWorker(t, dropped, "dropped", 1)
	var once sync.Once
	took := make(chan struct{})
	w.beforePlay = func(*job) error {
		once.Do(func() {
			dropped.Close() // as a crash would: no ack, no nak
			close(took)
		})
		return errors.New("dropped")
	}
	startWorker(t, w)
	go func() {
		<-took
		startWorker(t, newWorker(t, connect(t, s, "rescuer"), "rescuer", 1))
	}()
	got, err := playDist(t, p, b)
	if err != nil {
		t.Fatal(err)
	}
	sameResults(t, got, playLocal(t, b))
	if jobs, _ := w.Played(); jobs != 0 {
		t.Errorf("the dropped worker finished %d jobs, want 0", jobs)
	}
}

// TestConflictingResults has a faulty worker answer the first game of a
// job with a wrong score and drop the job; the honest worker that gets it
// next answers differently and the batch stops with an error naming both.
func TestConflictingResults(t *testing.T) {
	s := startServer(t, Credentials{})
	nc := connect(t, s, "c")
	p := newPool(t, nc, Options{GamesPerJob: 2, QueueOptions: QueueOptions{AckWait: time.Second}})
	b := testBatch(rand.New(rand.NewPCG(7, 8)), 0, 2, 4, false)

	liar := connect(t, s, "liar")
	w := newWorker(t, liar, "liar", 1)
	var once sync.Once
	lied := make(chan struct{})
	w.beforePlay = func(j *job) error {
		var err error
		once.Do(func() {
			r := &result{Run: j.Run, Batch: j.Batch, Candidate: j.Candidate, Games: j.Games[:1], Worker: "liar",
				Results: []engine.Result{{Seed: j.Seeds[0], Score: 4}}}
			data, _ := json.Marshal(r)
			if _, err := nc.Request(resultSubject(j.Run, j.Batch), data, 5*time.Second); err != nil {
				t.Error(err)
			}
			liar.Close() // and vanishes, leaving the job to the honest worker
			close(lied)
			err = errors.New("lied")
		})
		return err
	}
	startWorker(t, w)
	go func() {
		<-lied
		startWorker(t, newWorker(t, connect(t, s, "honest"), "honest", 1))
	}()
	_, err := playDist(t, p, b)
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "worker liar") || !strings.Contains(err.Error(), "worker honest") {
		t.Fatalf("got %v, want %v naming workers liar and honest", err, ErrConflict)
	}
	t.Log(err)
}

// TestOlderRulesRefused has the only worker play an older rules version:
// it refuses every job, says why, and once a job has been handed out
// MaxDeliver times the batch stops with the refusal as the reason.
func TestOlderRulesRefused(t *testing.T) {
	s := startServer(t, Credentials{})
	var notices []string
	var mu sync.Mutex
	p := newPool(t, connect(t, s, "c"), Options{QueueOptions: QueueOptions{MaxDeliver: 2}, Notify: func(m string) {
		mu.Lock()
		notices = append(notices, m)
		mu.Unlock()
	}})
	w := newWorker(t, connect(t, s, "old"), "old", 1)
	w.rules = engine.RulesVersion - 1
	w.backoff = 0
	startWorker(t, w)
	_, err := playDist(t, p, testBatch(rand.New(rand.NewPCG(9, 10)), 0, 2, 2, false))
	if !errors.Is(err, ErrMaxDeliver) || !strings.Contains(err.Error(), "worker old: job wants rules version") {
		t.Fatalf("got %v, want %v with the refusal", err, ErrMaxDeliver)
	}
	t.Log(err)
	mu.Lock()
	defer mu.Unlock()
	if len(notices) != 1 || !strings.Contains(notices[0], "worker old refuses jobs: job wants rules version") {
		t.Errorf("notices %q, want one refusal", notices)
	}
	if jobs, _ := w.Played(); jobs != 0 {
		t.Errorf("the old worker played %d jobs", jobs)
	}
}

// TestMaxDeliverExhausted has a worker take jobs and never answer: after
// MaxDeliver deliveries the batch stops with a clear error.
func TestMaxDeliverExhausted(t *testing.T) {
	s := startServer(t, Credentials{})
	p := newPool(t, connect(t, s, "c"), Options{QueueOptions: QueueOptions{AckWait: 500 * time.Millisecond, MaxDeliver: 2}})
	w := newWorker(t, connect(t, s, "mute"), "mute", 1)
	w.beforePlay = func(*job) error { return errors.New("mute") }
	startWorker(t, w)
	_, err := playDist(t, p, testBatch(rand.New(rand.NewPCG(11, 12)), 0, 1, 1, false))
	if !errors.Is(err, ErrMaxDeliver) || !strings.Contains(err.Error(), "handed out 2 times") {
		t.Fatalf("got %v, want %v after 2 deliveries", err, ErrMaxDeliver)
	}
	t.Log(err)
}

// TestStaleJobsDiscarded leaves the jobs of a coordinator that died in the
// queue; the next coordinator of the run removes them, so workers play only
// its own batch, and a result left from the dead one is not taken.
func TestStaleJobsDiscarded(t *testing.T) {
	s := startServer(t, Credentials{})
	rng := rand.New(rand.NewPCG(13, 14))
	dead := newPool(t, connect(t, s, "dead"), Options{GamesPerJob: 1})
	old := testBatch(rng, 3, 3, 4, false)
	key, _ := batchKey(old)
	st := &batchState{b: old, blocks: blocks(old, 1, 0)}
	common := template(old, batchPlayers{features: old.Players.(tuner.FeaturePlayers)}, dead.o.Run, key)
	common.FeaturesVersion = "v"
	if err := dead.publish(context.Background(), st, common, "dead", 0, len(st.blocks), map[uint64]int{}); err != nil {
		t.Fatal(err)
	}
	b := testBatch(rng, 4, 2, 3, false)
	p := newPool(t, connect(t, s, "c"), Options{GamesPerJob: 1})
	w := newWorker(t, connect(t, s, "w"), "w", 1)
	startWorker(t, w)
	got, err := playDist(t, p, b)
	if err != nil {
		t.Fatal(err)
	}
	sameResults(t, got, playLocal(t, b))
	if _, games := w.Played(); games != 6 {
		t.Errorf("worker played %d games, want the 6 of the current batch", games)
	}
}

func TestBadCredentials(t *testing.T) {
	s := startServer(t, Credentials{User: "tuner", Password: "right"})
	if _, err := Connect(s.URL(), Credentials{User: "tuner", Password: "wrong"}, "x", nil); !errors.Is(err, ErrAuth) {
		t.Errorf("wrong password: got %v, want %v", err, ErrAuth)
	}
	if _, err := Connect(s.URL(), Credentials{}, "x", nil); !errors.Is(err, ErrAuth) {
		t.Errorf("no credentials: got %v, want %v", err, ErrAuth)
	}
	u := strings.Replace(s.URL(), "nats://", "nats://tuner:right@", 1)
	nc, err := Connect(u, Credentials{}, "x", nil)
	if err != nil {
		t.Fatalf("credentials in the URL: %v", err)
	}
	nc.Close()
	tok := startServer(t, Credentials{Token: "s3cret"})
	if _, err := Connect(tok.URL(), Credentials{Token: "nope"}, "x", nil); !errors.Is(err, ErrAuth) {
		t.Errorf("wrong token: got %v, want %v", err, ErrAuth)
	}
	connect(t, tok, "x")
}

func TestStartServerRefusesOpenListener(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0"} {
		if _, err := StartServer(addr, Credentials{}); !errors.Is(err, ErrInsecure) {
			t.Errorf("%s without credentials: got %v, want %v", addr, err, ErrInsecure)
		}
	}
	for _, addr := range []string{"127.0.0.1", "127.0.0.1:x", "127.0.0.1:70000"} {
		if _, err := StartServer(addr, Credentials{}); !errors.Is(err, ErrAddress) {
			t.Errorf("%s: got %v, want %v", addr, err, ErrAddress)
		}
	}
}

func TestReadCredentials(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		text string
		want Credentials
		err  bool
	}{
		{"# comment\n\ntuner:pa:ss\n", Credentials{User: "tuner", Password: "pa:ss"}, false},
		{"  s3cret  \n", Credentials{Token: "s3cret"}, false},
		{":x\n", Credentials{}, true},
		{"\n# nothing\n", Credentials{}, true},
	} {
		path := filepath.Join(dir, "creds")
		os.WriteFile(path, []byte(tc.text), 0o600)
		got, err := ReadCredentials(path)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("%q: got %+v, %v; want %+v, error %v", tc.text, got, err, tc.want, tc.err)
		}
		if err != nil && !errors.Is(err, ErrCredentials) {
			t.Errorf("%q: error %v does not wrap %v", tc.text, err, ErrCredentials)
		}
	}
}

// TestFeatureVersionStable pins that the version is a pure function of the
// set and tells the sets apart (eval pins the values themselves).
func TestFeatureVersionStable(t *testing.T) {
	std, _ := eval.Set("standard")
	classic, _ := eval.Set("classic")
	v := std.Version()
	if std.Version() != v || classic.Version() == v {
		t.Errorf("standard %s then %s, classic %s", v, std.Version(), classic.Version())
	}
}

// TestWireFormatPinned pins a job's encoding and a batch's key: workers
// of earlier versions read the one, and a resumed run recognises its
// earlier results by the other.
func TestWireFormatPinned(t *testing.T) {
	j := job{Format: JobFormat, Run: "r", Batch: "b", Generation: 3, Rules: 1, Features: "standard", FeaturesVersion: "a10d7e15a46e",
		Candidate: 1, Weights: []float64{47, 11, 270, 100, 70}, Search: engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 3, Width: 8, LossValue: -1},
		MaxMoves: 9, Games: []int{0, 1}, Seeds: []uint64{5, 6}}
	data, err := json.Marshal(j)
	const want = `{"format":1,"run":"r","batch":"b","generation":3,"rules":1,"features":"standard","features_version":"a10d7e15a46e","candidate":1,"weights":[47,11,270,100,70],"search":{"Algorithm":"expectimax","Depth":3,"Width":8,"HeuristicOnly":false,"LossValue":-1,"ProbCutoff":0,"TableBits":0,"Adaptive":false},"max_moves":9,"games":[0,1],"seeds":[5,6]}`
	if err != nil || string(data) != want {
		t.Errorf("job encodes as\n%s\nwant\n%s", data, want)
	}
	nn, _ := eval.Set("nneonneo")
	b := &tuner.Batch{Generation: 3, Players: tuner.FeaturePlayers{Set: nn, Search: engine.SearchConfig{Algorithm: engine.AlgorithmNneonneo, Depth: 5, ProbCutoff: 1e-4, HeuristicOnly: true}},
		Vectors: [][]float64{{200000, 270, 700, 47, 11, 4, 3.5}, {1, 2, 3, 4, 5, 1.5, 6}}, Seeds: []uint64{1, 2, 1 << 40}, MaxMoves: 100}
	if key, err := batchKey(b); err != nil || key != "69dc338725b7029c" {
		t.Errorf("batch key %s, %v; want 69dc338725b7029c", key, err)
	}
}

// otherPlayers is a family of players of a kind the NATS pool does not
// play.
type otherPlayers struct{}

func (otherPlayers) VectorNames() []string { return []string{"x"} }

func TestOtherPlayersRefused(t *testing.T) {
	b := &tuner.Batch{Players: otherPlayers{}, Vectors: [][]float64{{1}}, Seeds: []uint64{1}}
	if _, err := batchKey(b); !errors.Is(err, tuner.ErrPlayers) || !strings.Contains(err.Error(), "otherPlayers") {
		t.Errorf("batchKey: %v, want tuner.ErrPlayers naming the kind", err)
	}
}

// TestWorkerOutlivesServer stops the server under a running worker and
// starts a new one (an empty queue) on the same port: the worker
// reconnects, binds to the new queue and plays the next coordinator's batch.
func TestWorkerOutlivesServer(t *testing.T) {
	s, err := StartServer("127.0.0.1:0", Credentials{})
	if err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimPrefix(s.URL(), "nats://")
	rng := rand.New(rand.NewPCG(15, 16))
	c1 := connect(t, s, "c1")
	p := newPool(t, c1, Options{})
	w := newWorker(t, connect(t, s, "w"), "w", 1)
	startWorker(t, w)
	b := testBatch(rng, 0, 2, 2, false)
	if _, err := playDist(t, p, b); err != nil {
		t.Fatal(err)
	}
	c1.Close() // the first coordinator ends with its server
	s.Shutdown()
	start := time.Now()

	s2, err := StartServer(addr, Credentials{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s2.Shutdown)
	b = testBatch(rng, 1, 2, 3, false)
	got, err := playDist(t, newPool(t, connect(t, s2, "c2"), Options{}), b)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("second batch done %v after the restart", time.Since(start))
	sameResults(t, got, playLocal(t, b))
	if _, games := w.Played(); games != 4+6 {
		t.Errorf("worker played %d games, want 10", games)
	}
}

// TestMixedFleet has a worker of an older rules version next to a current
// one: the old one refuses what it takes and steps back, the current one
// plays everything, and the batch ends with the local results.
func TestMixedFleet(t *testing.T) {
	s := startServer(t, Credentials{})
	p := newPool(t, connect(t, s, "c"), Options{GamesPerJob: 1})
	old := newWorker(t, connect(t, s, "old"), "old", 1)
	old.rules = engine.RulesVersion - 1
	startWorker(t, old)
	current := newWorker(t, connect(t, s, "current"), "current", 1)
	startWorker(t, current)
	b := testBatch(rand.New(rand.NewPCG(17, 18)), 0, 2, 4, false)
	got, err := playDist(t, p, b)
	if err != nil {
		t.Fatal(err)
	}
	sameResults(t, got, playLocal(t, b))
	if jobs, _ := old.Played(); jobs != 0 {
		t.Errorf("the old worker played %d jobs", jobs)
	}
}

// TestNoWorkerNotice plays a batch with no worker: after IdleWarning the
// pool says so, once, and says so again when a worker comes.
func TestNoWorkerNotice(t *testing.T) {
	s := startServer(t, Credentials{})
	notices := make(chan string, 10)
	p := newPool(t, connect(t, s, "c"), Options{IdleWarning: 300 * time.Millisecond, Hint: "start one",
		Notify: func(m string) { notices <- m }})
	b := testBatch(rand.New(rand.NewPCG(19, 20)), 0, 1, 2, false)
	errc := make(chan error, 1)
	go func() {
		_, err := playDist(t, p, b)
		errc <- err
	}()
	select {
	case m := <-notices:
		if !strings.HasPrefix(m, "no worker has taken a job for ") || !strings.HasSuffix(m, "; 2 games are waiting (start one)") {
			t.Errorf("notice %q", m)
		}
	case err := <-errc:
		t.Fatalf("the batch ended without workers: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("no notice within 30 s")
	}
	startWorker(t, newWorker(t, connect(t, s, "w"), "w", 1))
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	close(notices)
	var rest []string
	for m := range notices {
		rest = append(rest, m)
	}
	if len(rest) > 1 || len(rest) == 1 && rest[0] != "workers are taking jobs again" {
		t.Errorf("later notices %q, want at most one saying workers are back", rest)
	}
}

// TestLateAnswerIgnored sends, while a journal-like subset of a batch is
// in play, a result for a game of the same batch that the subset leaves
// out (as a worker still playing for a killed coordinator would): it is
// not asked for, so it is ignored and the batch ends normally.
func TestLateAnswerIgnored(t *testing.T) {
	s := startServer(t, Credentials{})
	nc := connect(t, s, "c")
	p := newPool(t, nc, Options{})
	b := testBatch(rand.New(rand.NewPCG(21, 22)), 2, 2, 3, false)
	b.Jobs = []tuner.Job{{Candidate: 0, Game: 1}, {Candidate: 1, Game: 2}}
	key, err := batchKey(b)
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	var got [][]engine.Result
	go func() {
		var err error
		got, err = playDist(t, p, b)
		errc <- err
	}()
	// Wait until the batch is published, then answer a game it left out.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		info, err := p.consumer.Info(context.Background())
		if err == nil && info.NumPending == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the batch was not published within 30 s")
		}
	}
	late := &result{Run: "test", Batch: key, Candidate: 0, Games: []int{0}, Worker: "late",
		Results: []engine.Result{{Seed: b.Seeds[0], Score: 4}}}
	data, _ := json.Marshal(late)
	if _, err := nc.Request(resultSubject("test", key), data, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	startWorker(t, newWorker(t, connect(t, s, "w"), "w", 1))
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	want := playLocal(t, b)
	if got[0][1] != want[0][1] || got[1][2] != want[1][2] || got[0][0] != (engine.Result{}) {
		t.Errorf("got %+v, want the two asked-for games and nothing else", got)
	}
}

// addSeeds gives b games seeds drawn from rng and, with subset, asks for
// about two thirds of its (candidate, game) jobs, as noise handling's
// racing and re-evaluation do.
func addSeeds(b *tuner.Batch, rng *rand.Rand, games int, subset bool) {
	base := rng.Uint64()
	for i := range games {
		b.Seeds = append(b.Seeds, engine.GameSeed(base, uint64(i)))
	}
	if subset {
		b.Jobs = []tuner.Job{}
		for g := range games {
			for c := range len(b.Vectors) {
				if rng.IntN(3) > 0 {
					b.Jobs = append(b.Jobs, tuner.Job{Candidate: c, Game: g})
				}
			}
		}
	}
}
