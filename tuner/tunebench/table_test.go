package tunebench

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/evotune/evotune/internal/golden"
)

// tableResults are results of two tuners on one problem and of one on
// another, with every case a table shows: a run that never reached the
// target, a median not reached, a drop from the best point passed, a row
// of tuner settings of one's own, a command with a bar in it.
func tableResults() []Result {
	pt := func(grid, games int64, cpu, ratio float64) Point {
		return Point{Grid: grid, Games: games, CPU: cpu, Mean: 30000 * ratio, Ratio: ratio, RatioCI95: [2]float64{ratio - 0.06, ratio + 0.07}}
	}
	run := func(seed uint64, pts ...Point) Run {
		r := Run{Seed: seed, Points: pts, Final: pts[len(pts)-1], Stop: "budget"}
		for i := range pts {
			if pts[i].Ratio >= 1.5 {
				p := pts[i]
				r.Reached = &p
				break
			}
		}
		return r
	}
	base := Result{Problem: "nneonneo-cap1", Target: 1.5, HeldOut: 1000, Budget: 75, BudgetGames: 5000, Grid: 1000, Full: true, Start: 31613.956}
	evo := base
	evo.Command = "evotune tunebench --budget 75 --budget-games 5000 --full --json --problems nneonneo-cap1 --seeds 1,2,3"
	evo.Runs = []Run{
		run(1, pt(1000, 1200, 4.1, 1.31), pt(2000, 2100, 8.2, 1.52), pt(3000, 3050, 12.9, 1.61), pt(0, 4960, 20.4, 1.55)),
		run(2, pt(1000, 1100, 4.0, 1.20), pt(2000, 2200, 8.0, 1.41), pt(0, 4900, 19.8, 1.46)),
		run(3, pt(1000, 1000, 3.9, 1.51), pt(2000, 2000, 7.7, 1.58), pt(0, 4990, 20.0, 1.58)),
	}
	own := base
	own.Config, own.Command = "ladder.yaml", "evotune tunebench --budget 75 --budget-games 5000 --config ladder.yaml --full --json --no-tuner --problems nneonneo-cap1 --seeds 1,2,3"
	own.Runs = []Run{run(1, pt(1000, 1200, 4.1, 1.31), pt(0, 4960, 20.4, 1.45)), run(2, pt(1000, 1200, 4.1, 1.21), pt(0, 4960, 20.4, 1.44))}
	peer := base
	peer.Peer = "/usr/bin/python3 opt.py --sampler 'a|b'"
	peer.Command = "evotune tunebench --budget 75 --budget-games 5000 --full --json --no-tuner --peer '/usr/bin/python3 opt.py --sampler '\\''a|b'\\''' --problems nneonneo-cap1 --seeds 1,2,3"
	peer.Runs = []Run{run(1, pt(1000, 1000, 5.5, 1.50), pt(0, 5000, 24.4, 1.57)), run(2, pt(1000, 1040, 6.0, 1.45), pt(0, 4980, 23.0, 1.53)), run(3, pt(0, 5000, 22.1, 1.49))}
	other := Result{Problem: "snake16-2", Target: 1.3, HeldOut: 1000, Budget: 10, Grid: 1000, Start: 3204, Runs: []Run{run(1, pt(1000, 1100, 1.1, 1.36))}}
	// A peer that failed at its second run seed, and a confirmation cell
	// of two rows, given among the development rows: its table comes
	// after theirs.
	failed := base
	failed.Peer, failed.Command = "python3 crash.py", "evotune tunebench --budget 75 --budget-games 5000 --full --json --no-tuner --peer 'python3 crash.py' --problems nneonneo-cap1 --seeds 1,2,3"
	failed.Runs = []Run{run(1, pt(1000, 1000, 5.5, 1.40), pt(0, 5000, 24.4, 1.52))}
	failed.Error = "tunebench: nneonneo-cap1, peer python3, run seed 2: peer python3: exit status 1 (its stderr ends: \"Traceback\\nZeroDivisionError\")"
	confirm := base
	confirm.Block, confirm.RunSeeds, confirm.Start = Confirmation, []uint64{101, 102, 103}, 31702.4
	confirm.Command = "evotune tunebench --budget 75 --budget-games 5000 --confirm --full --json --problems nneonneo-cap1 --seeds 101,102,103"
	confirm.Runs = []Run{run(101, pt(1000, 1200, 4.1, 1.48), pt(0, 4960, 20.4, 1.53)), run(102, pt(0, 4990, 20.0, 1.51)), run(103, pt(0, 4990, 20.0, 1.49))}
	confirmPeer := confirm
	confirmPeer.Peer, confirmPeer.Command = "python3 opt.py", "evotune tunebench --budget 75 --budget-games 5000 --confirm --full --json --no-tuner --peer 'python3 opt.py' --problems nneonneo-cap1 --seeds 101,102,103"
	confirmPeer.Runs = []Run{run(101, pt(0, 5000, 24.4, 1.47)), run(102, pt(0, 5000, 24.4, 1.55)), run(103, pt(0, 5000, 24.4, 1.50))}
	rs := []Result{evo, own, peer, confirm, failed, other, confirmPeer}
	for i := range rs {
		rs[i].summarize()
	}
	return rs
}

func TestTableGolden(t *testing.T) {
	for _, markdown := range []bool{false, true} {
		var buf bytes.Buffer
		if err := WriteTable(&buf, tableResults(), markdown); err != nil {
			t.Fatal(err)
		}
		name := "table.txt.golden"
		if markdown {
			name = "table.md.golden"
		}
		golden.Check(t, filepath.Join("testdata", name), buf.Bytes())
	}
}

// TestTableOfSavedOutputs renders outputs saved before the grid (one peer
// named at the top, no commands): the way docs' older tables are read
// again.
func TestTableOfSavedOutputs(t *testing.T) {
	var all []Result
	for _, name := range []string{"c1q-cma.json", "c1q-spsa.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "peers", name))
		if err != nil {
			t.Fatal(err)
		}
		rs, err := ReadResults(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		all = append(all, rs...)
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, all, true); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "table-saved.md.golden"), buf.Bytes())
}

func TestReadResultsErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{\n\"problems\": [}", "line 2: invalid character"},
		{`{"problems":[]}`, "no results"},
		{`{"problems":[{"problem":"x","runs":[{"seed":1,"points":[]}]}]}`, "run seed 1 (run 1): no points"},
	} {
		_, err := ReadResults([]byte(tc.in))
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.want)) {
			t.Errorf("%q: error %v, want one containing %q", tc.in, err, tc.want)
		}
	}
}

func TestSummaryFigures(t *testing.T) {
	rs := tableResults()
	evo := rs[0]
	// Seed 1 passed ×1.61 and ended ×1.55; seed 2 never met ×1.50.
	if evo.Runs[0].Max.Ratio != 1.61 || evo.Runs[0].Drop < 0.0599 || evo.Runs[0].Drop > 0.0601 {
		t.Errorf("seed 1: best %v, drop %v; want 1.61 and 0.06", evo.Runs[0].Max.Ratio, evo.Runs[0].Drop)
	}
	if evo.WorstFinal != 1.46 || evo.MedianFinal != 1.55 || evo.Reached != 2 || *evo.MedianCPU != 8.2 || evo.WorstDrop != evo.Runs[0].Drop {
		t.Errorf("worst %v, median %v, reached %d, median CPU %v, worst drop %v", evo.WorstFinal, evo.MedianFinal, evo.Reached, *evo.MedianCPU, evo.WorstDrop)
	}
	if rs[1].MedianCPU != nil {
		t.Errorf("a row no run of which reached: median CPU %v", *rs[1].MedianCPU)
	}
}
