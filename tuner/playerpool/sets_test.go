package playerpool

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/tuner"
)

// setsVectors are n candidates of the standard set, each its own.
func setsVectors(fam Family, n int) [][]float64 {
	vs := make([][]float64, n)
	for c := range vs {
		v := fam.Defaults()
		v[0] += float64(7 * c) // monotonicity
		v[4] -= float64(5 * c) // merge
		vs[c] = v
	}
	return vs
}

// playVersion plays vectors on seeds with the test player of protocol
// version env (testProtocolEnv) through a pool of slots and k, and
// returns the results and the requests' mean boards.
func playVersion(t *testing.T, env string, fam Family, slots, k int, vectors [][]float64, seeds []uint64, mode ...string) ([][]engine.Result, float64, error) {
	t.Helper()
	t.Setenv(testProtocolEnv, env)
	if len(mode) == 0 {
		mode = []string{"serve", "2"}
	}
	fam.Command = playerCommand(mode[0], mode[1:]...)
	opts := testOptions(t)
	opts.Batch = k
	p := New(slots, opts)
	defer p.Close()
	res, err := playPool(t, p, fam, vectors, seeds)
	req, boards := p.Requests()
	return res, float64(boards) / float64(max(req, 1)), err
}

// TestSetsMixCandidates: a player of version 2 gets requests that hold
// the games of several candidates, fuller than one candidate's games can
// make them, and every game's result is the one a player of version 1
// gives and the one played in process, with 1, 3 and 16 slots and with a
// player holding only 2 sets.
func TestSetsMixCandidates(t *testing.T) {
	seeds := testSeeds(3)
	fam := probe(t, playerCommand("serve", "2"))
	vectors := setsVectors(fam, 6)
	want, one, err := playVersion(t, "1", fam, 1, 16, vectors, seeds)
	if err != nil {
		t.Fatal(err)
	}
	set := must(eval.Set("standard"))
	for c, v := range vectors {
		s := must(engine.NewSearcher(must(set.CompileVector(v)), standardSearch(2)))
		for g, seed := range seeds {
			if r := engine.PlayLimit(seed, s, 0); want[c][g] != r {
				t.Fatalf("version 1: candidate %d game %d: %+v, in process %+v", c, g, want[c][g], r)
			}
		}
	}
	for _, tc := range []struct {
		env   string
		slots int
	}{{"", 1}, {"", 3}, {"", 16}, {"2 2", 1}, {"2 1", 1}} {
		got, mean, err := playVersion(t, tc.env, fam, tc.slots, 16, vectors, seeds)
		if err != nil {
			t.Fatalf("%q, %d slots: %v", tc.env, tc.slots, err)
		}
		for c := range vectors {
			sameResults(t, fmt.Sprintf("version 2 %q, %d slots, candidate %d", tc.env, tc.slots, c), seeds, got[c], want[c], "version 1")
		}
		t.Logf("protocol %q, %d slots: %.2f boards a request (version 1, 1 slot: %.2f)", tc.env, tc.slots, mean, one)
		// One slot of version 1 holds at most a candidate's 3 games; of
		// version 2 with 2 sets or more, up to 16 of 18.
		if tc.slots == 1 && tc.env != "2 1" && mean < 1.5*one {
			t.Errorf("%q, 1 slot: %.2f boards a request, version 1 %.2f: the candidates' games do not share requests", tc.env, mean, one)
		}
	}
}

// TestSetsFailureIsTheGames: in requests mixing candidates, a crash on one
// board of one game stops the batch naming that game and candidate, the
// same for 1 and 4 slots, and crashes now and then are survived with the
// results of an undisturbed player.
func TestSetsFailureIsTheGames(t *testing.T) {
	seeds := testSeeds(6)
	fam := probe(t, playerCommand("serve", "2"))
	vectors := setsVectors(fam, 4)
	set := must(eval.Set("standard"))
	s := must(engine.NewSearcher(must(set.CompileVector(vectors[2])), standardSearch(2)))
	g := engine.NewGame(seeds[3])
	for range 40 {
		if err := g.Play(s.Move(g.Board())); err != nil {
			t.Fatal(err)
		}
	}
	var did []string
	for _, slots := range []int{1, 4} {
		_, _, err := playVersion(t, "", fam, slots, 8, vectors, seeds, "crash-on-board", g.Board().Hex())
		var pe *Error
		if !errors.As(err, &pe) || !errors.Is(err, ErrExited) {
			t.Fatalf("%d slots: err %v, want the player's exit", slots, err)
		}
		for _, want := range []string{"game 3 of candidate 2 failed 3 times", "crashing on " + g.Board().Hex()} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%d slots: error %q does not say %q", slots, err, want)
			}
		}
		did = append(did, pe.Did)
	}
	if did[0] != did[1] {
		t.Errorf("1 slot: %q; 4 slots: %q", did[0], did[1])
	}

	want, _, err := playVersion(t, "1", fam, 1, 8, vectors, seeds)
	if err != nil {
		t.Fatal(err)
	}
	for _, slots := range []int{1, 2} {
		dir := t.TempDir()
		got, _, err := playVersion(t, "", fam, slots, 8, vectors, seeds, "crash-some", dir, "3")
		if err != nil {
			t.Fatalf("%d slots: %v", slots, err)
		}
		if started := len(must(os.ReadDir(dir))); started < 4 {
			t.Errorf("%d slots: %d processes started, want 3 crashes and a restart", slots, started)
		}
		for c := range vectors {
			sameResults(t, fmt.Sprintf("%d slots, candidate %d", slots, c), seeds, got[c], want[c], "undisturbed")
		}
	}
}

// TestSetsShared: batches in play at once on a pool of version 2 give
// the results each gives alone.
func TestSetsShared(t *testing.T) {
	seeds := testSeeds(4)
	fam := probe(t, playerCommand("serve", "2"))
	vectors := setsVectors(fam, 5)
	want, _, err := playVersion(t, "1", fam, 1, 8, vectors, seeds)
	if err != nil {
		t.Fatal(err)
	}
	fam.Command = playerCommand("serve", "2")
	p := New(2, Options{Batch: 8, LogDir: t.TempDir()})
	defer p.Close()
	results := make([][][]engine.Result, 3)
	errs := make(chan error, len(results))
	for i := range results {
		results[i] = make([][]engine.Result, len(vectors))
		for c := range vectors {
			results[i][c] = make([]engine.Result, len(seeds))
		}
		go func() {
			errs <- p.Play(context.Background(), &tuner.Batch{Players: fam, Vectors: vectors, Seeds: seeds, Ahead: i == 2}, results[i], nil)
		}()
	}
	for range results {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for i := range results {
		for c := range vectors {
			sameResults(t, fmt.Sprintf("batch %d, candidate %d", i, c), seeds, results[i][c], want[c], "alone")
		}
	}
}
