//go:build unix

package tunebench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evotune/evotune/internal/proctest"
)

// TestBenchKeepsWhatItMeasured runs the tuner and three peers, two of
// which fail (one breaks the idle limit, one crashes), with Options.Out:
// each failed row costs only itself, every row's and finished seed's file
// is written, and the benchmark run again reads them all back, the same
// bytes, without starting a peer.
func TestBenchKeepsWhatItMeasured(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pids")
	t.Setenv("TUNEBENCH_PEER", "args")
	t.Setenv("TUNEBENCH_PIDS", pidFile)
	p, _ := Lookup("standard-3")
	rows := []Row{{}, {Peer: []string{os.Args[0], "hang"}}, {Peer: []string{os.Args[0], "crash"}}, {Peer: []string{os.Args[0], "good"}}}
	o := Options{Short: true, Seeds: []uint64{1, 2}, Workers: 1, Out: filepath.Join(dir, "out"), PeerStderr: &proctest.LockedBuffer{},
		// Every peer has the idle limit: time for a test binary to start
		// on a loaded machine.
		PeerLimits: PeerLimits{Idle: 5 * time.Second}}
	var notes []string
	o.Note = func(problem, tuner, what string) { notes = append(notes, tuner+": "+what) }
	res, err := Bench(context.Background(), []Problem{p}, rows, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 4 {
		t.Fatalf("%d rows, want 4", len(res))
	}
	if !errors.Is(res[1].Err(), ErrPeerIdle) || len(res[1].Runs) != 0 || !strings.Contains(res[1].Error, "run seed 1") {
		t.Errorf("the hanging peer: error %v, %d runs", res[1].Err(), len(res[1].Runs))
	}
	if !strings.Contains(res[2].Error, "exit status 3") {
		t.Errorf("the crashing peer: error %q", res[2].Error)
	}
	for _, i := range []int{0, 3} {
		if res[i].Err() != nil || len(res[i].Runs) != 2 {
			t.Errorf("%s: error %v, %d runs; want 2 runs", res[i].Name(), res[i].Err(), len(res[i].Runs))
		}
	}
	pids, _ := proctest.ReadPids(pidFile)
	proctest.WaitGone(t, pids...)

	// Every row has its file, every finished run seed its own, and each
	// file is what the row's result says.
	for _, r := range res {
		data, err := os.ReadFile(filepath.Join(rowDir(o.Out, &r), rowFile))
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := json.Marshal(r); !bytes.Equal(bytes.TrimSuffix(data, []byte("\n")), want) {
			t.Errorf("%s: the row's file\n%s\nwant\n%s", r.Name(), data, want)
		}
		for _, run := range r.Runs {
			data, err := os.ReadFile(seedPath(o.Out, &r, run.Seed))
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeResult(data)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := json.Marshal(got.Runs)
			b, _ := json.Marshal([]Run{run})
			if !bytes.Equal(a, b) || !slices.Equal(got.RunSeeds, []uint64{run.Seed}) || got.Start != r.Start {
				t.Errorf("%s, seed %d: the seed's file holds %s, want %s", r.Name(), run.Seed, a, b)
			}
		}
	}
	if _, err := os.Stat(seedPath(o.Out, &res[1], 1)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file for the failed seed: %v", err)
	}

	// Again: everything is read back, nothing runs.
	notes = nil
	os.Remove(pidFile)
	again, err := Bench(context.Background(), []Problem{p}, rows, o)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(res)
	b, _ := json.Marshal(again)
	if !bytes.Equal(a, b) {
		t.Errorf("read back:\n%s\nwant\n%s", b, a)
	}
	if pids, _ := proctest.ReadPids(pidFile); len(pids) > 0 {
		t.Errorf("%d peers started to read finished rows back", len(pids))
	}
	if len(notes) != 4 || !strings.Contains(notes[0], "evotune: row read back: ") {
		t.Errorf("notes %q; want one row read back each", notes)
	}
	if !strings.Contains(again[1].Error, "idle limit") {
		t.Errorf("the failed row read back: %q", again[1].Error)
	}
}
