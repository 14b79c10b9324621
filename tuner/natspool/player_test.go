package natspool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/tuner"
	"github.com/evotune/evotune/tuner/playerpool"
)

// testPlayerFlag, first on the test binary's command line, makes it an
// external player instead of a test run, so that workers start real child
// processes speaking the protocol.
const testPlayerFlag = "-evotune-test-player"

func TestMain(m *testing.M) {
	if len(os.Args) > 3 && os.Args[1] == testPlayerFlag {
		os.Exit(testPlayer(os.Args[2:]))
	}
	noExitSleep()
	os.Exit(m.Run())
}

// noExitSleep spares the test's players, under the race detector, its
// second of sleep at exit (GORACE atexit_sleep_ms): a worker's tests start
// and end many of them.
func noExitSleep() {
	os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
}

// playerCommand runs the test binary as the built-in player of a feature
// set at depth plies; with crash, it exits at its third move request.
func playerCommand(set string, depth int, crash bool) []string {
	cmd := []string{os.Args[0], testPlayerFlag, set, strconv.Itoa(depth)}
	if crash {
		cmd = append(cmd, "crash")
	}
	return cmd
}

// sleeping is a player whose moves cost wall time and no CPU: perBoard
// of sleep for each board of a request, as a deep search on another core
// would, so that scaling to many slots is measurable on a small machine.
// With counts, it keeps there its requests and boards so far.
type sleeping struct {
	*playerpool.SearchPlayer
	perBoard         time.Duration
	counts           *os.File
	requests, boards int64
}

func (s *sleeping) Moves(boards []engine.Board, dst []engine.Dir) error {
	if err := s.answer(len(boards)); err != nil {
		return err
	}
	return s.SearchPlayer.Moves(boards, dst)
}

func (s *sleeping) MovesIn(boards []engine.Board, sets []uint8, dst []engine.Dir) error {
	if err := s.answer(len(boards)); err != nil {
		return err
	}
	return s.SearchPlayer.MovesIn(boards, sets, dst)
}

// answer sleeps for a request of n boards and counts it.
func (s *sleeping) answer(n int) error {
	time.Sleep(time.Duration(n) * s.perBoard)
	if s.counts == nil {
		return nil
	}
	s.requests++
	s.boards += int64(n)
	// One fixed-width record rewritten in place: a reader sees the totals
	// whenever it looks, and a request costs one system call.
	_, err := s.counts.WriteAt(fmt.Appendf(nil, "%20d %20d\n", s.requests, s.boards), 0)
	return err
}

// readCounts sums the requests and boards that the sleeping players
// counting into dir have answered so far.
func readCounts(t testing.TB, dir string) (requests, boards int64) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var r, b int64
		if len(data) > 0 {
			if _, err := fmt.Sscan(string(data), &r, &b); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
		}
		requests, boards = requests+r, boards+b
	}
	return requests, boards
}

// crashing is a player that exits while answering its third move request.
type crashing struct {
	*playerpool.SearchPlayer
	requests int
}

func (c *crashing) Moves(boards []engine.Board, dst []engine.Dir) error {
	if c.requests++; c.requests == 3 {
		fmt.Fprintln(os.Stderr, "crashing, on purpose")
		os.Exit(3)
	}
	return c.SearchPlayer.Moves(boards, dst)
}

func (c *crashing) MovesIn(boards []engine.Board, sets []uint8, dst []engine.Dir) error {
	if c.requests++; c.requests == 3 {
		fmt.Fprintln(os.Stderr, "crashing, on purpose")
		os.Exit(3)
	}
	return c.SearchPlayer.MovesIn(boards, sets, dst)
}

// sleepCommand runs the test binary as the built-in player of a feature
// set at depth plies that sleeps perBoard for each board it answers; with
// counts not empty, each process keeps its requests and boards so far in a
// file of its own there (see readCounts).
func sleepCommand(set string, depth int, perBoard time.Duration, counts string) []string {
	cmd := []string{os.Args[0], testPlayerFlag, set, strconv.Itoa(depth), "sleep=" + perBoard.String()}
	if counts != "" {
		cmd = append(cmd, "counts="+counts)
	}
	return cmd
}

// versionOne is cmd (playerCommand's, sleepCommand's) speaking version 1
// of the protocol only, as a player holding one parameter set does.
func versionOne(cmd []string) []string { return append(slices.Clone(cmd), "v1") }

// testPlayer serves the player of args (SET DEPTH [crash|sleep=D
// [counts=DIR]] [v1]) on standard input and output and returns its exit
// status.
func testPlayer(args []string) int {
	set, err := eval.Set(args[0])
	depth, _ := strconv.Atoi(args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	search := engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: depth, LossValue: engine.DefaultLossValue}
	sp, err := playerpool.NewSearchPlayer(set, search, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	v1 := args[len(args)-1] == "v1"
	if v1 {
		args = args[:len(args)-1]
	}
	var p playerpool.Player = sp
	if len(args) > 2 && args[2] == "crash" {
		p = &crashing{SearchPlayer: sp}
	}
	if len(args) > 2 && strings.HasPrefix(args[2], "sleep=") {
		d, err := time.ParseDuration(strings.TrimPrefix(args[2], "sleep="))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		sl := &sleeping{SearchPlayer: sp, perBoard: d}
		if len(args) > 3 && strings.HasPrefix(args[3], "counts=") {
			f, err := os.Create(filepath.Join(strings.TrimPrefix(args[3], "counts="), strconv.Itoa(os.Getpid())))
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 2
			}
			defer f.Close()
			sl.counts = f
		}
		p = sl
	}
	if v1 {
		p = playerpool.VersionOne(p)
	}
	if err := playerpool.Serve(context.Background(), os.Stdin, os.Stdout, p); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// playerBatch is a batch of short games of the player cmd: candidates
// scattered around its defaults, within its bounds, and a random subset of
// the games when subset is set.
func playerBatch(t *testing.T, rng *rand.Rand, cmd []string, generation, cands, games int, subset bool) *tuner.Batch {
	t.Helper()
	fam, err := playerpool.Probe(context.Background(), cmd, "", playerpool.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := &tuner.Batch{Generation: generation, Players: fam, MaxMoves: 80}
	for range cands {
		v := fam.Defaults()
		for i, p := range fam.Params {
			v[i] = min(max(v[i]*(1+0.3*rng.NormFloat64()), p.Min), p.Max)
		}
		b.Vectors = append(b.Vectors, v)
	}
	addSeeds(b, rng, games, subset)
	return b
}

// playPlayerLocal is the reference: the batch on a local player pool.
func playPlayerLocal(t *testing.T, b *tuner.Batch) [][]engine.Result {
	t.Helper()
	p := playerpool.New(1, playerpool.Options{})
	defer p.Close()
	r := newResults(b)
	if err := p.Play(context.Background(), b, r, nil); err != nil {
		t.Fatal(err)
	}
	return r
}

func newPlayerWorker(t *testing.T, nc *nats.Conn, name string, slots int, cmd []string, logDir string) *Worker {
	t.Helper()
	w, err := NewWorker(nc, WorkerOptions{Name: name, Slots: slots, Logf: t.Logf, Player: cmd, PlayerOptions: playerpool.Options{LogDir: logDir}})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestPlayerBatchMatchesLocal plays batches of an external player on one
// worker, then on two, and compares every game with a local player
// pool's; the two-slot worker keeps a log per slot.
func TestPlayerBatchMatchesLocal(t *testing.T) {
	cmd := playerCommand("standard", 1, false)
	rng := rand.New(rand.NewPCG(21, 22))
	batches := []*tuner.Batch{playerBatch(t, rng, cmd, 0, 3, 4, false), playerBatch(t, rng, cmd, 1, 2, 5, true)}
	var want [][][]engine.Result
	for _, b := range batches {
		want = append(want, playPlayerLocal(t, b))
	}
	for _, workers := range []int{1, 2} {
		s := startServer(t, Credentials{})
		logs := t.TempDir()
		for i := range workers {
			name := fmt.Sprintf("w%d", i)
			startWorker(t, newPlayerWorker(t, connect(t, s, name), name, 2, cmd, filepath.Join(logs, name)))
		}
		p := newPool(t, connect(t, s, "c"), Options{GamesPerJob: 2})
		// Every slot waits for a job before the first is published: a
		// slot that found no queue yet tries again a second later, by
		// which time the other may have played both batches.
		waitSlots(t, p, 2*workers)
		for i, b := range batches {
			got, err := playDist(t, p, b)
			if err != nil {
				t.Fatalf("%d workers: %v", workers, err)
			}
			sameResults(t, got, want[i])
		}
		if found, _ := filepath.Glob(filepath.Join(logs, "w0", "slot-*.log")); workers == 1 && len(found) != 2 {
			t.Errorf("logs of a worker of 2 slots: %v", found)
		}
	}
}

// TestPlayerLocalSlots plays a player's batch on the coordinator's local
// slots alone: they run the batch's own command.
func TestPlayerLocalSlots(t *testing.T) {
	cmd := playerCommand("standard", 1, false)
	b := playerBatch(t, rand.New(rand.NewPCG(23, 24)), cmd, 0, 2, 4, false)
	want := playPlayerLocal(t, b)
	s := startServer(t, Credentials{})
	logs := t.TempDir()
	p := newPool(t, connect(t, s, "c"), Options{LocalSlots: 2, LocalName: "local", LocalPlayer: playerpool.Options{LogDir: logs}})
	got, err := playDist(t, p, b)
	if err != nil {
		t.Fatal(err)
	}
	sameResults(t, got, want)
	if found, _ := filepath.Glob(filepath.Join(logs, "slot-*.log")); len(found) == 0 {
		t.Errorf("the local slots left no player log in %s", logs)
	}
}

// TestPlayerJobsRefused: a worker without a player, and one with another
// player (otherDeclaration tells versions and parameters apart), refuse a player's jobs, and once a job has been handed out
// MaxDeliver times the batch stops with the refusal as the reason.
func TestPlayerJobsRefused(t *testing.T) {
	cmd := playerCommand("standard", 1, false)
	b := playerBatch(t, rand.New(rand.NewPCG(25, 26)), cmd, 0, 2, 2, false)
	cases := []struct {
		player []string
		says   string
	}{
		{nil, "worker w: this worker runs no external player, the job wants evotune-standard"},
		{playerCommand("classic", 1, false), "worker w: this worker's player says id evotune-classic"},
	}
	for _, c := range cases {
		s := startServer(t, Credentials{})
		p := newPool(t, connect(t, s, "c"), Options{QueueOptions: QueueOptions{MaxDeliver: 2}})
		w := newPlayerWorker(t, connect(t, s, "w"), "w", 1, c.player, "")
		w.backoff = 0
		startWorker(t, w)
		_, err := playDist(t, p, b)
		if !errors.Is(err, ErrMaxDeliver) || !strings.Contains(err.Error(), c.says) {
			t.Fatalf("player %q: got %v, want %v saying %q", c.player, err, ErrMaxDeliver, c.says)
		}
		t.Log(err)
	}
}

// TestPlayerFailureRefused: a player that crashes on every start fails a
// game MaxFailures times; the worker hands the job back with the player's
// error, which ends the run, and no panic or hang.
func TestPlayerFailureRefused(t *testing.T) {
	cmd := playerCommand("standard", 1, true)
	b := playerBatch(t, rand.New(rand.NewPCG(27, 28)), playerCommand("standard", 1, false), 0, 1, 20, false)
	s := startServer(t, Credentials{})
	p := newPool(t, connect(t, s, "c"), Options{GamesPerJob: 20, QueueOptions: QueueOptions{MaxDeliver: 2}})
	w := newPlayerWorker(t, connect(t, s, "w"), "w", 1, cmd, t.TempDir())
	w.backoff = 0
	startWorker(t, w)
	_, err := playDist(t, p, b)
	for _, want := range []string{"worker w: player", "while answering move", "crashing, on purpose", "failed 3 times"} {
		if !errors.Is(err, ErrMaxDeliver) || err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("got %v, want %v saying %q", err, ErrMaxDeliver, want)
		}
	}
	t.Log(err)
}

// TestFeatureJobsOnPlayerWorker: a worker started with a player still
// plays a feature set's jobs, game for game as the local pool.
func TestFeatureJobsOnPlayerWorker(t *testing.T) {
	s := startServer(t, Credentials{})
	startWorker(t, newPlayerWorker(t, connect(t, s, "w"), "w", 1, playerCommand("standard", 1, false), t.TempDir()))
	p := newPool(t, connect(t, s, "c"), Options{GamesPerJob: 3})
	b := testBatch(rand.New(rand.NewPCG(29, 30)), 0, 2, 4, true)
	got, err := playDist(t, p, b)
	if err != nil {
		t.Fatal(err)
	}
	sameResults(t, got, playLocal(t, b))
}

// TestWorkerPlayerCannotStart: a worker whose player cannot start fails
// at once with the player's error.
func TestWorkerPlayerCannotStart(t *testing.T) {
	s := startServer(t, Credentials{})
	missing := filepath.Join(t.TempDir(), "no-such-player")
	_, err := NewWorker(connect(t, s, "w"), WorkerOptions{Player: []string{missing}})
	if !errors.Is(err, playerpool.ErrStart) || !strings.Contains(err.Error(), missing) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("got %v, want one line wrapping %v naming the command", err, playerpool.ErrStart)
	}
}

// TestPlayerWireFormat pins a player's job encoding and batch key, and
// checks that a feature set's job still carries no player.
func TestPlayerWireFormat(t *testing.T) {
	fam := playerpool.Family{Command: []string{"./p"}, ID: "p", Version: "1.0", Params: []playerpool.Param{
		{Name: "a", Default: 1.5, Min: 0, Max: 3}, {Name: "depth", Int: true, Default: 2, Min: 1, Max: 4}}}
	b := &tuner.Batch{Generation: 3, Players: fam, Vectors: [][]float64{{1, 2}, {2.25, 3}}, Seeds: []uint64{5, 6}, MaxMoves: 9}
	key, err := batchKey(b)
	if err != nil || key != "27ffd19534ceddf3" {
		t.Errorf("batch key %s, %v; want 27ffd19534ceddf3", key, err)
	}
	pl, _ := players(b)
	st := newBatchState(b, newResults(b), nil, 2, 0)
	data, err := json.Marshal(st.job(1, template(b, pl, "r", key)))
	const want = `{"format":1,"run":"r","batch":"27ffd19534ceddf3","generation":3,"rules":1,"features":"","features_version":"","candidate":1,"weights":[2.25,3],"search":{"Algorithm":"","Depth":0,"Width":0,"HeuristicOnly":false,"LossValue":0,"ProbCutoff":0,"TableBits":0,"Adaptive":false},"max_moves":9,"games":[0,1],"seeds":[5,6],"player":{"id":"p","version":"1.0","params":[{"name":"a","type":"float","default":1.5,"min":0,"max":3},{"name":"depth","type":"int","default":2,"min":1,"max":4}]}}`
	if err != nil || string(data) != want {
		t.Errorf("job encodes as\n%s\nwant\n%s", data, want)
	}
	j, err := decodeJob(data)
	if err != nil || j.Player == nil || j.Player.Params[1].Type != "int" || j.Join != nil {
		t.Errorf("decoded %+v, %v", j, err)
	}
	// Cut for a fleet of 4 slots, the jobs hold a game each and say how
	// a slot may join the next.
	st = newBatchState(b, newResults(b), nil, 2, 4)
	data, err = json.Marshal(st.job(0, template(b, pl, "r", key)))
	const hint = `,"join":{"slots":4,"next":1,"same":true,"left":3}}`
	if err != nil || !strings.HasSuffix(string(data), hint) {
		t.Errorf("job encodes as\n%s\nwant it to end with\n%s", data, hint)
	}
	if j, err := decodeJob(data); err != nil || *j.Join != (joinHint{Slots: 4, Next: 1, Same: true, Left: 3}) {
		t.Errorf("decoded %+v, %v", j, err)
	}
	// The key covers the declaration: another bound is another batch.
	fam.Params[0].Max = 4
	b.Players = fam
	if other, _ := batchKey(b); other == key {
		t.Errorf("a batch of another declaration has the same key %s", key)
	}
}

// TestOtherDeclaration: a worker's player that differs from the job's in
// its version, a bound or its parameter count is another player.
func TestOtherDeclaration(t *testing.T) {
	job := &tuner.PlayerDeclaration{ID: "p", Version: "1", Params: []tuner.DeclaredParam{{Name: "a", Type: "float", Default: 1, Min: 0, Max: 2}}}
	same := *job
	if why := otherDeclaration(&same, job); why != "" {
		t.Errorf("same declaration: %q", why)
	}
	version := same
	version.Version = "2"
	bound := same
	bound.Params = []tuner.DeclaredParam{{Name: "a", Type: "float", Default: 1, Min: 0, Max: 3}}
	more := same
	more.Params = append(slices.Clone(same.Params), tuner.DeclaredParam{Name: "b", Type: "int", Max: 1})
	for have, says := range map[*tuner.PlayerDeclaration]string{
		&version: "this worker's player says id p 2, the job expects p 1",
		&bound:   `declares parameter 1 as "param a float 1 0 3", the job expects "param a float 1 0 2"`,
		&more:    "declares 2 parameters, the job expects 1: b is new",
	} {
		if why := otherDeclaration(have, job); !strings.Contains(why, says) {
			t.Errorf("got %q, want %q", why, says)
		}
	}
}
