package tunebench

import (
	"bytes"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evotune/evotune/internal/golden"
)

// cellResults are rows of nneonneo-cap1 at its cells 1x and 4x, on the
// confirmation cell: evotune at both, a peer at 4x only, with a run that
// ends before the last grid line another reaches, a run that ends lower
// than its best point, and a peer whose name a chart must escape.
func cellResults() []Result {
	pt := func(grid, games int64, ratio float64) Point {
		return Point{Grid: grid, Games: games, CPU: float64(games) / 300, Mean: 32000 * ratio, Ratio: ratio, RatioCI95: [2]float64{ratio - 0.06, ratio + 0.07}}
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
	cap1, _ := Lookup("nneonneo-cap1")
	at := func(name string) Result {
		c, _ := cap1.Cell(name)
		return Result{Problem: cap1.Name, Target: 1.5, HeldOut: 1000, Budget: c.Budget.Seconds(), BudgetGames: c.BudgetGames,
			Grid: c.Grid, Cell: c.Name, Full: true, Block: Confirmation, RunSeeds: []uint64{101, 102, 103}, Start: 32017}
	}
	one := at("1x")
	one.Command = "evotune tunebench --confirm --problems nneonneo-cap1 --seeds 101,102,103 --json"
	one.Runs = []Run{
		run(101, pt(500, 520, 1.20), pt(1000, 1040, 1.38), pt(1500, 1560, 1.51), pt(2000, 2080, 1.55), pt(0, 2400, 1.52)),
		run(102, pt(500, 500, 1.10), pt(1000, 1000, 1.30), pt(1500, 1500, 1.44), pt(0, 1900, 1.47)),
		run(103, pt(500, 540, 1.25), pt(1000, 1080, 1.41), pt(1500, 1620, 1.49), pt(2000, 2160, 1.53), pt(0, 2380, 1.54)),
	}
	four := at("4x")
	four.Command = one.Command
	four.Runs = []Run{
		run(101, pt(2000, 2080, 1.55), pt(4000, 4160, 1.59), pt(6000, 6240, 1.60), pt(0, 7900, 1.56)),
		run(102, pt(2000, 2000, 1.46), pt(4000, 4000, 1.50), pt(6000, 6000, 1.52), pt(0, 7950, 1.53)),
		run(103, pt(2000, 2160, 1.53), pt(4000, 4320, 1.57), pt(0, 5000, 1.58)),
	}
	peer := at("4x")
	peer.Peer = `python3 opt.py --label "<a&b>"`
	peer.Command = `evotune tunebench --confirm --cells 4x --no-tuner --peer 'python3 opt.py --label "<a&b>"' --problems nneonneo-cap1 --seeds 101,102,103 --json`
	peer.Runs = []Run{
		run(101, pt(2000, 2000, 1.40), pt(4000, 4000, 1.48), pt(6000, 6000, 1.51), pt(8000, 8000, 1.53)),
		run(102, pt(2000, 2000, 1.35), pt(4000, 4000, 1.45), pt(6000, 6000, 1.49), pt(8000, 8000, 1.50)),
		run(103, pt(2000, 2000, 1.42), pt(4000, 4000, 1.47), pt(6000, 6000, 1.52), pt(8000, 8000, 1.51)),
	}
	rs := []Result{one, four, peer}
	for i := range rs {
		rs[i].summarize()
	}
	return rs
}

func TestCurveOf(t *testing.T) {
	rs := cellResults()
	c := curveOf(rs[0], "evotune")
	// Run 102 ended at 1,900 games: at the line 2,000 it counts with its
	// final ×1.47.
	if !slices.Equal(c.lines, []int64{500, 1000, 1500, 2000}) || c.end != 2400 {
		t.Fatalf("lines %v, end %d", c.lines, c.end)
	}
	wantMedian := []float64{1.20, 1.38, 1.49, 1.53, 1.52}
	wantWorst := []float64{1.10, 1.30, 1.44, 1.47, 1.47}
	for i := range wantMedian {
		if math.Abs(c.median[i]-wantMedian[i]) > 1e-12 || math.Abs(c.worst[i]-wantWorst[i]) > 1e-12 {
			t.Errorf("point %d: median %v, worst %v; want %v, %v", i, c.median[i], c.worst[i], wantMedian[i], wantWorst[i])
		}
	}
	if last := len(c.median) - 1; c.median[last] != rs[0].MedianFinal || c.worst[last] != rs[0].WorstFinal {
		t.Errorf("the end: %v / %v, the row's final %v / %v", c.median[last], c.worst[last], rs[0].MedianFinal, rs[0].WorstFinal)
	}
}

func TestCurveColumns(t *testing.T) {
	var lines []int64
	for i := int64(1); i <= 45; i++ {
		lines = append(lines, 1000*i)
	}
	cols := curveColumns([]curve{{lines: lines[:30]}, {lines: lines}})
	if len(cols) != 15 || cols[0] != 3000 || cols[14] != 45000 {
		t.Errorf("45 lines show as %v; want every third, 3,000 to 45,000", cols)
	}
	if cols := curveColumns([]curve{{lines: lines[:20]}}); len(cols) != 20 {
		t.Errorf("20 lines show as %d", len(cols))
	}
}

// TestMoreTime checks the answer across cells: each row's figures at each
// cell, the change from its cell before, "-" where a row did not run.
func TestMoreTime(t *testing.T) {
	groups := groupResults(cellResults())
	answers := moreTimes(groups, false)
	m := answers[0]
	if len(answers) != 1 || m == nil {
		t.Fatalf("answers %v, want one before the first table", answers)
	}
	if !slices.Equal(m.heads, []string{"1×: 5,000 games", "4×: 20,000 games"}) || !slices.Equal(m.rows, []string{"evotune", `python3 opt.py --label "<a&b>"`}) {
		t.Errorf("heads %q, rows %q", m.heads, m.rows)
	}
	got := [][]string{m.figures("evotune"), m.figures(m.rows[1])}
	want := [][]string{
		{"×1.520 / ×1.470, drop 0.030", "×1.560 / ×1.530 (+0.040 / +0.060), drop 0.040"},
		{"-", "×1.510 / ×1.500, drop 0.010"},
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("figures %q, want %q", got, want)
	}
	// Rows without a named cell (written before cells) get no answer
	// unless asked: the pages' older tables stay as they were.
	old := cellResults()
	for i := range old {
		old[i].Cell = ""
	}
	if a := moreTimes(groupResults(old), false); len(a) != 0 {
		t.Errorf("results without cells: %d answers", len(a))
	}
	if a := moreTimes(groupResults(old), true); len(a) != 1 {
		t.Errorf("results without cells, curves asked: %d answers, want the one their budgets say", len(a))
	}
	if s := signed(-0.0004); s != "+0.000" {
		t.Errorf("signed(-0.0004) = %q", s)
	}
	if s := signed(-0.012); s != "−0.012" {
		t.Errorf("signed(-0.012) = %q", s)
	}
}

// TestCellTablesGolden renders tables of cells as text and markdown, with
// their charts: the answer across cells, a table a cell with its curves.
func TestCellTablesGolden(t *testing.T) {
	for _, markdown := range []bool{false, true} {
		var buf bytes.Buffer
		charts := map[string][]byte{}
		o := TableOptions{Markdown: markdown, ChartDir: "charts", Chart: func(name string, svg []byte) error {
			charts[name] = svg
			return nil
		}}
		if err := WriteTables(&buf, cellResults(), o); err != nil {
			t.Fatal(err)
		}
		name := "table-cells.txt.golden"
		if markdown {
			name = "table-cells.md.golden"
		}
		golden.Check(t, filepath.Join("testdata", name), buf.Bytes())
		if len(charts) != 2 {
			t.Errorf("%d charts, want one a cell", len(charts))
		}
		for name, svg := range charts {
			if !strings.Contains(buf.String(), "charts/"+name) {
				t.Errorf("the tables do not name the chart %s", name)
			}
			if strings.Contains(name, "-4x-") && (bytes.Contains(svg, []byte(`"<a&b>"`)) || !bytes.Contains(svg, []byte("&lt;a&amp;b&gt;"))) {
				t.Errorf("%s: the peer's name is not escaped", name)
			}
			golden.Check(t, filepath.Join("testdata", "charts", name+".golden"), svg)
		}
	}
	// The same results written before cells render as they always did.
	old := cellResults()
	for i := range old {
		old[i].Cell = ""
	}
	var buf bytes.Buffer
	if err := WriteTables(&buf, old, TableOptions{Markdown: true}); err != nil {
		t.Fatal(err)
	}
	if s := buf.String(); strings.Contains(s, "Held-out ratio at") || strings.Contains(s, "more time") || !strings.Contains(s, "#### nneonneo-cap1 (confirmation)") {
		t.Errorf("results without cells drew curves:\n%s", s)
	}
}
