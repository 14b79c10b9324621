package playerpool

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/tuner"
)

// testOptions are short limits, so that a hanging player costs the tests
// little.
func testOptions(t *testing.T) Options {
	return Options{HandshakeTimeout: 5 * time.Second, MoveTimeout: 2 * time.Second, QuitTimeout: time.Second, LogDir: t.TempDir()}
}

// probe returns the family of a test player.
func probe(t *testing.T, command []string) Family {
	t.Helper()
	fam, err := Probe(context.Background(), command, "", testOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	return fam
}

// inProcess plays the standard set's default player at depth plies on
// seeds in this process, as evotune play does.
func inProcess(t *testing.T, depth int, seeds []uint64) []engine.Result {
	t.Helper()
	set := must(eval.Set("standard"))
	rs, err := engine.PlayGames(context.Background(), len(seeds), 2, func(i int) uint64 { return seeds[i] },
		func() (engine.Player, error) { return engine.NewSearcher(set.Default(), standardSearch(depth)) }, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// playPool plays every vector on the seeds through a pool.
func playPool(t *testing.T, p *Pool, fam Family, vectors [][]float64, seeds []uint64) ([][]engine.Result, error) {
	t.Helper()
	results := make([][]engine.Result, len(vectors))
	for c := range results {
		results[c] = make([]engine.Result, len(seeds))
	}
	err := p.Play(context.Background(), &tuner.Batch{Players: fam, Vectors: vectors, Seeds: seeds}, results, nil)
	return results, err
}

// playDefaults plays fam's defaults on the seeds through a new pool of
// slots and k.
func playDefaults(t *testing.T, fam Family, slots, k int, seeds []uint64) ([]engine.Result, error) {
	t.Helper()
	opts := testOptions(t)
	opts.Batch = k
	p := New(slots, opts)
	defer p.Close()
	got, err := playPool(t, p, fam, [][]float64{fam.Defaults()}, seeds)
	return got[0], err
}

// sameResults fails for each seed whose result in got is not the one in
// want, the reference wantWhat names.
func sameResults(t *testing.T, prefix string, seeds []uint64, got, want []engine.Result, wantWhat string) {
	t.Helper()
	for i := range seeds {
		if got[i] != want[i] {
			t.Errorf("%s: seed %d: %+v, %s %+v", prefix, seeds[i], got[i], wantWhat, want[i])
		}
	}
}

func testSeeds(n int) []uint64 {
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = engine.GameSeed(1, uint64(i))
	}
	return seeds
}

// TestSameGames: the built-in player served over the protocol plays, seed
// for seed, the games of the same player in process (play --eval standard
// --depth 3), with 1 and 2 slots and several batch sizes.
func TestSameGames(t *testing.T) {
	n := 6
	if testing.Short() {
		n = 3
	}
	seeds := testSeeds(n)
	want := inProcess(t, 3, seeds)
	cmd := playerCommand("serve", "3")
	fam := probe(t, cmd)
	if fam.ID != "evotune-standard" || len(fam.Params) != 5 {
		t.Fatalf("family %+v", fam)
	}
	for _, c := range []struct{ slots, k int }{{1, 0}, {2, 0}, {2, 1}, {1, 5}} {
		got, err := playDefaults(t, fam, c.slots, c.k, seeds)
		if err != nil {
			t.Fatalf("%d slots, k %d: %v", c.slots, c.k, err)
		}
		sameResults(t, fmt.Sprintf("%d slots, k %d", c.slots, c.k), seeds, got, want, "in process")
	}
}

// TestCandidatesAndSlots: several candidates, with a job list, land by
// index: 1 and 3 slots give the same results, and each candidate's games
// are those of its own vector.
func TestCandidatesAndSlots(t *testing.T) {
	seeds := testSeeds(3)
	cmd := playerCommand("serve", "2")
	fam := probe(t, cmd)
	base := fam.Defaults()
	vectors := [][]float64{base, append([]float64{5}, base[1:]...), append([]float64{base[0], 100}, base[2:]...)}
	var jobs []tuner.Job
	for c := range vectors {
		for g := range seeds {
			if (c+g)%4 != 3 {
				jobs = append(jobs, tuner.Job{Candidate: c, Game: g})
			}
		}
	}
	var runs [][][]engine.Result
	for _, slots := range []int{1, 3} {
		p := New(slots, Options{Batch: 2, LogDir: t.TempDir()})
		results := make([][]engine.Result, len(vectors))
		for c := range results {
			results[c] = make([]engine.Result, len(seeds))
		}
		err := p.Play(context.Background(), &tuner.Batch{Players: fam, Vectors: vectors, Seeds: seeds, Jobs: jobs, MaxMoves: 150}, results, nil)
		p.Close()
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, results)
	}
	set := must(eval.Set("standard"))
	for _, j := range jobs {
		a, b := runs[0][j.Candidate][j.Game], runs[1][j.Candidate][j.Game]
		if a != b {
			t.Errorf("job %+v: 1 slot %+v, 3 slots %+v", j, a, b)
		}
		e := must(set.CompileVector(vectors[j.Candidate]))
		s := must(engine.NewSearcher(e, standardSearch(2)))
		if want := engine.PlayLimit(seeds[j.Game], s, 150); a != want {
			t.Errorf("job %+v: protocol %+v, in process %+v", j, a, want)
		}
	}
}

// TestCrashOnce: a player that crashes in the middle of a batch is
// restarted, the games in flight are played again from their seeds, and
// the results are those of an undisturbed player.
func TestCrashOnce(t *testing.T) {
	seeds := testSeeds(3)
	want := inProcess(t, 2, seeds)
	marker := filepath.Join(t.TempDir(), "crashed")
	fam := probe(t, playerCommand("serve", "2"))
	fam.Command = playerCommand("crash-once", marker)
	opts := testOptions(t)
	p := New(1, opts)
	defer p.Close()
	got, err := playPool(t, p, fam, [][]float64{fam.Defaults()}, seeds)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the player never crashed")
	}
	for i := range seeds {
		if got[0][i] != want[i] {
			t.Errorf("seed %d: after a crash %+v, undisturbed %+v", seeds[i], got[0][i], want[i])
		}
	}
	log := must(os.ReadFile(filepath.Join(opts.LogDir, "slot-1.log")))
	if !strings.Contains(string(log), "crashing once") {
		t.Errorf("the log does not hold the player's standard error: %q", log)
	}
}

// TestFailureIsTheGames: a player that crashes on one board of one game
// stops the batch naming that game, with the same failure for 1 and 4
// slots: the other games of its requests are not charged.
func TestFailureIsTheGames(t *testing.T) {
	seeds := testSeeds(6)
	set := must(eval.Set("standard"))
	s := must(engine.NewSearcher(set.Default(), standardSearch(2)))
	g := engine.NewGame(seeds[3])
	for range 40 {
		if err := g.Play(s.Move(g.Board())); err != nil {
			t.Fatal(err)
		}
	}
	fam := probe(t, playerCommand("serve", "2"))
	fam.Command = playerCommand("crash-on-board", g.Board().Hex())
	var did []string
	for _, slots := range []int{1, 4} {
		k := 2
		if slots == 1 {
			k = 0
		}
		_, err := playDefaults(t, fam, slots, k, seeds)
		var pe *Error
		if !errors.As(err, &pe) || !errors.Is(err, ErrExited) {
			t.Fatalf("%d slots: err %v, want the player's exit", slots, err)
		}
		t.Logf("%d slots: %v", slots, err)
		for _, want := range []string{"game 3 of candidate 0 failed 3 times", "crashing on " + g.Board().Hex()} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%d slots: error %q does not say %q", slots, err, want)
			}
		}
		did = append(did, pe.Did)
	}
	if did[0] != did[1] {
		t.Errorf("1 slot: %q; 4 slots: %q", did[0], did[1])
	}
}

// TestCrashesNowAndThen: a player that crashes a few times at moments of
// its own, in requests of several boards or of one, is restarted each time
// and its results are those of an undisturbed player.
func TestCrashesNowAndThen(t *testing.T) {
	seeds := testSeeds(6)
	want := inProcess(t, 2, seeds)
	fam := probe(t, playerCommand("serve", "2"))
	for _, c := range []struct{ slots, k int }{{1, 0}, {2, 2}} {
		dir := t.TempDir()
		fam.Command = playerCommand("crash-some", dir, "3")
		got, err := playDefaults(t, fam, c.slots, c.k, seeds)
		if err != nil {
			t.Fatalf("%d slots, k %d: %v", c.slots, c.k, err)
		}
		if started := len(must(os.ReadDir(dir))); started < 4 {
			t.Errorf("%d slots, k %d: %d processes started, want 3 crashes and a restart", c.slots, c.k, started)
		}
		sameResults(t, fmt.Sprintf("%d slots, k %d", c.slots, c.k), seeds, got, want, "undisturbed")
	}
}

// TestRestartFails: a restart whose handshake fails is a failure like the
// others: retried, and after MaxFailures in a row, one clear error.
func TestRestartFails(t *testing.T) {
	seeds := testSeeds(3)
	want := inProcess(t, 2, seeds)
	fam := probe(t, playerCommand("serve", "2"))
	fam.Command = playerCommand("restart-fails", t.TempDir(), "1")
	p := New(1, testOptions(t))
	got, err := playPool(t, p, fam, [][]float64{fam.Defaults()}, seeds)
	p.Close()
	if err != nil {
		t.Fatalf("one failed restart: %v", err)
	}
	for i := range seeds {
		if got[0][i] != want[i] {
			t.Errorf("seed %d: %+v, undisturbed %+v", seeds[i], got[0][i], want[i])
		}
	}
	fam.Command = playerCommand("restart-fails", t.TempDir(), "100")
	p = New(1, testOptions(t))
	_, err = playPool(t, p, fam, [][]float64{fam.Defaults()}, seeds)
	p.Close()
	if !errors.Is(err, ErrExited) {
		t.Fatalf("restarts failing: err %v, want the player's exit", err)
	}
	t.Log(err)
	for _, s := range []string{"cannot start again", "3 restarts in a row failed"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}
}

// TestShare: a slot starting a candidate takes k games, or near the end
// of the batch its share of the games not yet started.
func TestShare(t *testing.T) {
	b := &tuner.Batch{Vectors: make([][]float64, 3), Seeds: testSeeds(40)}
	sc := newSchedule(b)
	sc.slots = 2
	if n := sc.share(64); n != 60 {
		t.Errorf("120 games left for 2 slots: share %d, want 60", n)
	}
	if n := sc.share(32); n != 32 {
		t.Errorf("k 32: share %d, want 32", n)
	}
	sc.pending[0], sc.pending[1] = nil, nil
	if n := sc.share(64); n != 20 {
		t.Errorf("40 games left for 2 slots: share %d, want 20", n)
	}
	sc.pending[2] = sc.pending[2][:1]
	if n := sc.share(64); n != 1 {
		t.Errorf("1 game left: share %d, want 1", n)
	}
}

// TestComments: comments are logged and otherwise ignored.
func TestComments(t *testing.T) {
	seeds := testSeeds(2)
	want := inProcess(t, 2, seeds)
	fam := probe(t, playerCommand("serve", "2"))
	fam.Command = playerCommand("comments")
	opts := testOptions(t)
	p := New(1, opts)
	got, err := playPool(t, p, fam, [][]float64{fam.Defaults()}, seeds)
	p.Close()
	if err != nil {
		t.Fatal(err)
	}
	for i := range seeds {
		if got[0][i] != want[i] {
			t.Errorf("seed %d: %+v, want %+v", seeds[i], got[0][i], want[i])
		}
	}
	log := string(must(os.ReadFile(filepath.Join(opts.LogDir, "slot-1.log"))))
	if !strings.Contains(log, "# request 1\n") || !strings.Contains(log, "stderr line 1\n") {
		t.Errorf("log lacks the comments or the standard error:\n%.300s", log)
	}
}

// TestFailures: each failure of DESIGN's list stops the batch with one line
// naming the command, what the player did and the tail of its log; none
// panics or hangs.
func TestFailures(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "player.sh")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fam := probe(t, playerCommand("serve", "2"))
	x := Family{ID: "refuser", Version: "1", Params: []Param{{Name: "x", Default: 1, Min: 0, Max: 2}}}
	cases := []struct {
		name    string
		fam     Family
		command []string
		kind    error
		says    []string // substrings of the error line
	}{
		{"crashes always", fam, playerCommand("crash-always"), ErrExited, []string{"exited (exit status 3) while answering move", "crashing again", "failed 3 times"}},
		{"crashes at start", fam, playerCommand("crash-start"), ErrExited, []string{"exit status 4", "the handshake", "cannot load my tables"}},
		{"hangs", fam, playerCommand("hang"), ErrTimeout, []string{"did not answer move", "thinking very hard"}},
		{"hangs at start", fam, playerCommand("hang-start"), ErrTimeout, []string{"did not answer the handshake within"}},
		{"garbage", Family{ID: "garbage", Version: "1"}, playerCommand("garbage"), ErrProtocol, []string{"with a malformed line", "bestest move ever", "failed 3 times"}},
		{"illegal move", fam, playerCommand("illegal"), engine.ErrIllegalMove, []string{"an illegal move"}},
		{"min > max", x, playerCommand("decl-minmax"), ErrProtocol, []string{"min 2 > max 0"}},
		{"NaN default", x, playerCommand("decl-nan"), ErrProtocol, []string{`"NaN" is not a finite decimal`}},
		{"duplicate name", x, playerCommand("decl-dup"), ErrProtocol, []string{"x declared twice"}},
		{"error to set", x, playerCommand("set-error"), ErrRefused, []string{"answered error to \"set x=1\": x is not to my taste"}},
		{"not executable", fam, []string{notExec}, ErrStart, []string{"cannot be started", "permission denied"}},
		{"does not exist", fam, []string{filepath.Join(dir, "nothing")}, ErrStart, []string{"cannot be started", "no such file"}},
		{"other declaration", fam, playerCommand("serve", "3"), ErrMismatch, []string{"says id evotune-standard", "the run expects"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			opts := testOptions(t)
			// A handshake limit that a player started on a loaded machine (a
			// race-instrumented test binary at that) meets; the hangs at start
			// wait it out.
			opts.HandshakeTimeout, opts.MoveTimeout = 8*time.Second, 300*time.Millisecond
			p := New(2, opts)
			defer p.Close()
			f := c.fam
			f.Command = c.command
			start := time.Now()
			_, err := playPool(t, p, f, [][]float64{f.Defaults(), f.Defaults()}, testSeeds(2))
			if err == nil {
				t.Fatal("no error")
			}
			if el := time.Since(start); el > 20*time.Second {
				t.Errorf("took %v", el)
			}
			msg := err.Error()
			t.Log(msg)
			if !errors.Is(err, c.kind) {
				t.Errorf("error %q does not wrap %v", msg, c.kind)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("error of more than one line: %q", msg)
			}
			for _, s := range append([]string{"player \"" + CommandString(c.command)}, c.says...) {
				if !strings.Contains(msg, s) {
					t.Errorf("error %q does not say %q", msg, s)
				}
			}
		})
	}
}

// TestPlayersOfAnotherKind: the pool refuses a family it cannot play.
func TestPlayersOfAnotherKind(t *testing.T) {
	p := New(1, Options{})
	defer p.Close()
	err := p.Play(context.Background(), &tuner.Batch{Players: tuner.FeaturePlayers{}, Vectors: [][]float64{{1}}, Seeds: []uint64{1}}, [][]engine.Result{{{}}}, nil)
	if !errors.Is(err, tuner.ErrPlayers) {
		t.Fatalf("err %v, want ErrPlayers", err)
	}
}

// TestCancel: a cancelled batch returns the context's error promptly.
func TestCancel(t *testing.T) {
	fam := probe(t, playerCommand("serve", "3"))
	p := New(2, testOptions(t))
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	results := [][]engine.Result{make([]engine.Result, 500)}
	start := time.Now()
	err := p.Play(ctx, &tuner.Batch{Players: fam, Vectors: [][]float64{fam.Defaults()}, Seeds: testSeeds(500)}, results, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want the deadline", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("cancel took %v", el)
	}
}

// TestHungPlayerEndsSoon: a player that never answers a move request ends
// the batch within about the per-board limit for each of its MaxFailures
// failures, whatever the boards a request may hold (a request's limit is
// not the per-board limit times its boards, which held a run 671 s at 64
// boards and 10 s); so does one that stops answering after a few requests.
func TestHungPlayerEndsSoon(t *testing.T) {
	const limit = 2 * time.Second
	fam := probe(t, playerCommand("serve", "2"))
	for _, c := range []struct {
		mode string
		k    int
	}{{"mute", 1}, {"mute", 8}, {"mute", 64}, {"hang", 64}} {
		t.Run(fmt.Sprintf("%s/k=%d", c.mode, c.k), func(t *testing.T) {
			t.Parallel()
			opts := testOptions(t)
			opts.HandshakeTimeout, opts.MoveTimeout, opts.Batch = 8*time.Second, limit, c.k
			p := New(1, opts)
			defer p.Close()
			f := fam
			f.Command = playerCommand(c.mode)
			start := time.Now()
			_, err := playPool(t, p, f, [][]float64{f.Defaults()}, testSeeds(64))
			el := time.Since(start)
			if !errors.Is(err, ErrTimeout) || !strings.Contains(fmt.Sprint(err), "did not answer move") || !strings.Contains(fmt.Sprint(err), "failed 3 times") {
				t.Fatalf("error %v, want a timeout of a move request that failed 3 times", err)
			}
			t.Logf("%v: %v", el.Round(time.Millisecond), err)
			// MaxFailures waits of the limit (one more for hang: its
			// request of several boards fails uncharged first), and the
			// time to start and kill the players (generous: a loaded
			// machine). The limit times the boards would be 16 s at k = 8,
			// 128 s at 64.
			if most := (MaxFailures+1)*limit + 4*time.Second; el > most {
				t.Errorf("the batch ended after %v, want at most %v", el, most)
			}
		})
	}
}
