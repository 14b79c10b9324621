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
)

// TestBenchResumesARow checks a row that had not ended: the run seeds
// kept are read back, the others run, and the row is the one an
// uninterrupted benchmark gives, its CPU figures aside.
func TestBenchResumesARow(t *testing.T) {
	p, _ := Lookup("nneonneo-cap1")
	o := Options{Short: true, Seeds: []uint64{1, 2, 3}, Workers: 1, Full: true}
	whole, err := RunProblem(context.Background(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Out = t.TempDir()
	first, err := RunProblem(context.Background(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	// As if killed during seed 3: its file and the row's never written.
	os.Remove(filepath.Join(rowDir(o.Out, &first), rowFile))
	os.Remove(seedPath(o.Out, &first, 3))
	kept, _ := os.ReadFile(seedPath(o.Out, &first, 2))
	rs, err := ReadDir(o.Out)
	if err != nil || len(rs) != 1 || !rs[0].unfinished || len(rs[0].Runs) != 2 {
		t.Fatalf("the unfinished row: %v, %+v", err, rs)
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, rs, false); err != nil || !strings.Contains(buf.String(), "evotune  unfinished  -") || !strings.Contains(buf.String(), "evotune unfinished: 2 run seeds kept") {
		t.Errorf("the unfinished row's table (%v):\n%s", err, buf.String())
	}

	resumed, err := RunProblem(context.Background(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(seedPath(o.Out, &first, 2)); !bytes.Equal(again, kept) {
		t.Errorf("seed 2's file was written again")
	}
	for i := range whole.Runs {
		if a, b := withoutCPU(resumed.Runs[i]), withoutCPU(whole.Runs[i]); !slices.EqualFunc(a, b, func(x, y Point) bool { return x == y || samePoint(x, y) }) {
			t.Errorf("seed %d: resumed %+v, uninterrupted %+v", whole.Runs[i].Seed, a, b)
		}
	}
	if a, b := mustJSON(first.Runs[:2]), mustJSON(resumed.Runs[:2]); !bytes.Equal(a, b) {
		t.Errorf("the seeds read back:\n%s\nwant\n%s", b, a)
	}
	if resumed.Start != whole.Start || resumed.MedianFinal != whole.MedianFinal {
		t.Errorf("start %v, median %v; uninterrupted %v, %v", resumed.Start, resumed.MedianFinal, whole.Start, whole.MedianFinal)
	}
}

// samePoint compares points whose Recommended pointers differ.
func samePoint(a, b Point) bool {
	return string(mustJSON(a)) == string(mustJSON(b))
}

func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}

// TestOtherBench checks that a directory of another benchmark is refused
// before anything runs, and a row of other run seeds made again from its
// seeds' files.
func TestOtherBench(t *testing.T) {
	p, _ := Lookup("standard-3")
	o := Options{Short: true, Seeds: []uint64{1}, Workers: 1, Out: t.TempDir()}
	if _, err := RunProblem(context.Background(), p, o); err != nil {
		t.Fatal(err)
	}
	for _, change := range []func(*Options){
		func(o *Options) { o.Budget = time.Second },
		func(o *Options) { o.Full = true },
		func(o *Options) { o.BudgetGames = 40 },
	} {
		q := o
		change(&q)
		ran := false
		q.Progress = func(string, string, uint64, Point) { ran = true }
		_, err := Bench(context.Background(), []Problem{p}, nil, q)
		if !errors.Is(err, ErrOtherBench) || !strings.Contains(err.Error(), "row.json: its ") || ran {
			t.Errorf("error %v, ran %v; want ErrOtherBench before any run", err, ran)
		}
	}
	o.Seeds = []uint64{1, 2}
	var notes []string
	o.Note = func(_, _, what string) { notes = append(notes, what) }
	r, err := RunProblem(context.Background(), p, o)
	if err != nil || len(r.Runs) != 2 || !slices.Equal(r.RunSeeds, []uint64{1, 2}) {
		t.Fatalf("seeds 1 and 2: %v, %+v", err, r.RunSeeds)
	}
	if len(notes) != 3 || !strings.HasPrefix(notes[0], "seed 1  read back: ") || !strings.HasPrefix(notes[1], "seed 2  written: ") {
		t.Errorf("notes %q", notes)
	}
}

func TestFileName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"evotune", "evotune"},
		{"standard-3", "standard-3"},
		{"python3 opt.py --careful", "python3_opt.py_--careful-"},
		{"evotune, ladder.yaml", "evotune_ladder.yaml-"},
		{".hidden", "_hidden-"},
		{strings.Repeat("a", 70), strings.Repeat("a", 60) + "-"},
	} {
		got := fileName(tc.in)
		if tc.want == tc.in && got != tc.want || tc.want != tc.in && (!strings.HasPrefix(got, tc.want) || len(got) != len(tc.want)+8) {
			t.Errorf("fileName(%q) = %q, want %q and a hash where it changed", tc.in, got, tc.want)
		}
	}
	if fileName("a b") == fileName("a/b") {
		t.Error("two names that differ only in what was replaced share a file name")
	}
}

// TestBlocksAreDisjoint proves the two blocks of held-out games disjoint
// for any sizes below 2^60 games each.
func TestBlocksAreDisjoint(t *testing.T) {
	if overlaps(heldOutBase, 1<<60, confirmBase, 1<<60) {
		t.Error("the blocks overlap within 2^60 games")
	}
	if !overlaps(heldOutBase, 1<<62, confirmBase, 1<<62) {
		t.Error("the blocks do not meet even at 2^62 games: the proof above checks nothing")
	}
	if ConfirmSeed(0) == HeldOutSeed(0) {
		t.Error("both blocks start with the same game")
	}
}

func TestConfirmSeeds(t *testing.T) {
	for _, seeds := range [][]uint64{{1}, {101, 8}, {3, 4}} {
		if err := CheckConfirmSeeds(seeds); err == nil || !strings.Contains(err.Error(), "development seeds 1-8") {
			t.Errorf("%v: %v", seeds, err)
		}
	}
	for _, seeds := range [][]uint64{nil, {0, 9, 101}, ConfirmSeeds} {
		if err := CheckConfirmSeeds(seeds); err != nil {
			t.Errorf("%v: %v", seeds, err)
		}
	}
	p, _ := Lookup("standard-3")
	b, seeds := newBench(p, Options{Confirm: true})
	if !slices.Equal(seeds, ConfirmSeeds) || b.block != Confirmation || len(b.seeds) != 1000 || b.seeds[7] != ConfirmSeed(7) {
		t.Errorf("confirmation: run seeds %v, block %s, held-out game 7 %d", seeds, b.block, b.seeds[7])
	}
	b, seeds = newBench(p, Options{})
	if !slices.Equal(seeds, DefaultSeeds) || b.block != Development || b.seeds[7] != HeldOutSeed(7) {
		t.Errorf("development: run seeds %v, block %s", seeds, b.block)
	}
	if _, err := RunProblem(context.Background(), p, Options{Short: true, Confirm: true, Seeds: []uint64{101, 2}}); err == nil || !strings.Contains(err.Error(), "run seed 2 is one of the development seeds") {
		t.Errorf("a confirmation on run seed 2: %v", err)
	}
}

// TestConfirmRuns runs the tuner and a peer on the confirmation cell: the
// start is measured on the confirmation block, the result says so, and the
// peer is refused held-out games of either block.
func TestConfirmRuns(t *testing.T) {
	p, _ := Lookup("standard-3")
	ctx := context.Background()
	dev, err := RunProblem(ctx, p, Options{Short: true, Seeds: []uint64{101}, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	conf, err := RunProblem(ctx, p, Options{Short: true, Confirm: true, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if conf.Block != Confirmation || !slices.Equal(conf.RunSeeds, ConfirmSeeds) || len(conf.Runs) != 8 || dev.Block != Development {
		t.Errorf("block %q, run seeds %v, %d runs; development's block %q", conf.Block, conf.RunSeeds, len(conf.Runs), dev.Block)
	}
	// Four short held-out games: the blocks' starts differ.
	if conf.Start == dev.Start {
		t.Errorf("the start scores %v on both blocks", conf.Start)
	}
	if a, b := withoutCPU(dev.Runs[0]), withoutCPU(conf.Runs[0]); a[len(a)-1].Mean == b[len(b)-1].Mean && a[0].Mean == b[0].Mean {
		t.Errorf("run seed 101 judged alike on both blocks: %+v", a)
	}
	o := peerOptions(t, "heldout")
	o.Confirm, o.Seeds = true, []uint64{101}
	r, err := RunPeer(ctx, p, o)
	if err != nil || r.Block != Confirmation {
		t.Errorf("a peer asking for held-out games of both blocks, on the confirmation cell: %v, block %q", err, r.Block)
	}
}
