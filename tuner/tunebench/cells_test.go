package tunebench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestProblemCells pins the cells the benchmark asks "does more time
// help?" at (1x, 4x and on nneonneo-cap1 16x the small budgets), and checks
// that each grid gives a run 10 to 20 points at the games a run plays in
// its budget (docs/tunebench.md, "Cells": the rates measured there).
func TestProblemCells(t *testing.T) {
	type want struct {
		name   string
		budget time.Duration
		games  int64
	}
	cells := map[string][]want{
		"nneonneo-cap1": {{"1x", 300 * time.Second, 5000}, {"4x", 1200 * time.Second, 20000}, {"16x", 4800 * time.Second, 80000}},
		"standard-3":    {{"1x", 60 * time.Second, 0}, {"4x", 240 * time.Second, 0}},
		"snake16-2":     {{"1x", 10 * time.Second, 0}, {"4x", 40 * time.Second, 0}},
		"nneonneo-cap2": {{"1x", 9600 * time.Second, 0}},
		"standard-5":    {{"1x", 9000 * time.Second, 0}},
	}
	// Games a CPU second, the tuner's, measured (docs/tunebench.md).
	rate := map[string]float64{"standard-3": 330, "snake16-2": 7500, "nneonneo-cap2": 5.5, "standard-5": 6.5}
	for _, p := range Problems() {
		w := cells[p.Name]
		if len(p.Cells) != len(w) {
			t.Errorf("%s: cells %v, want %v", p.Name, p.CellNames(), w)
			continue
		}
		for i, c := range p.Cells {
			if c.Name != w[i].name || c.Budget != w[i].budget || c.BudgetGames != w[i].games || c.Scale != []int{1, 4, 16}[i] {
				t.Errorf("%s: cell %+v, want %+v", p.Name, c, w[i])
			}
			games := float64(c.BudgetGames)
			if games == 0 {
				games = rate[p.Name] * c.Budget.Seconds()
			}
			if n := games / float64(c.Grid); n < 9.5 || n > 20 {
				t.Errorf("%s %s: %.1f points a run (%.0f games, grid %d), want 10 to 20", p.Name, c.Name, n, games, c.Grid)
			}
		}
	}
}

func TestSelectCells(t *testing.T) {
	cap1, _ := Lookup("nneonneo-cap1")
	std3, _ := Lookup("standard-3")
	for _, tc := range []struct {
		p     Problem
		names []string
		want  []string // the cells' names, or the error's text
		err   bool
	}{
		{cap1, nil, nil, false},
		{cap1, []string{AllCells}, []string{"1x", "4x", "16x"}, false},
		{std3, []string{AllCells}, []string{"1x", "4x"}, false},
		{cap1, []string{"16x", "1x"}, []string{"1x", "16x"}, false},
		{std3, []string{"16x"}, []string{`no cell "16x" on standard-3 (its cells: 1x, 4x)`}, true},
		{std3, []string{"1x", "1x"}, []string{"1x named twice"}, true},
		{std3, []string{"1x", AllCells}, []string{"all with other cells"}, true},
		{std3, []string{"x"}, []string{`no cell "x"`}, true},
	} {
		cs, err := tc.p.SelectCells(tc.names)
		if tc.err {
			if !errors.Is(err, ErrNoCell) || !strings.Contains(err.Error(), tc.want[0]) {
				t.Errorf("%s %v: error %v, want ErrNoCell with %q", tc.p.Name, tc.names, err, tc.want[0])
			}
			continue
		}
		var got []string
		for _, c := range cs {
			got = append(got, c.Name)
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s %v: %v, %v; want %v", tc.p.Name, tc.names, got, err, tc.want)
		}
	}
}

// TestBenchCells runs two problems at every cell into a directory: a row
// result a problem, cell and row, each with its cell's budgets and runs to
// them; then runs the same again, which reads every row back, each from
// its cell's directory.
func TestBenchCells(t *testing.T) {
	ps := []Problem{mustLookup(t, "standard-3"), mustLookup(t, "nneonneo-cap1")}
	o := Options{Short: true, Seeds: []uint64{1}, Workers: 1, Cells: []string{AllCells}, Out: t.TempDir()}
	res, err := Bench(context.Background(), ps, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"standard-3 1x", "standard-3 4x", "nneonneo-cap1 1x", "nneonneo-cap1 4x", "nneonneo-cap1 16x"}
	var got []string
	for _, r := range res {
		got = append(got, r.Problem+" "+r.Cell)
		c, err := mustLookup(t, r.Problem).Cell(r.Cell)
		if err != nil || !r.Full || r.Budget != c.Budget.Seconds() || r.BudgetGames != shortBudgetGames*int64(c.Scale) || len(r.Runs) != 1 {
			t.Errorf("%s %s: full %v, budget %v s and %d games, %d runs; want full, the cell's %v and %d games (short)", r.Problem, r.Cell, r.Full, r.Budget, r.BudgetGames, len(r.Runs), c.Budget, shortBudgetGames*int64(c.Scale))
		}
		if _, err := os.Stat(filepath.Join(o.Out, Development, r.Problem, r.Cell, "evotune", rowFile)); err != nil {
			t.Errorf("%s %s: %v", r.Problem, r.Cell, err)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("results %v, want %v", got, want)
	}
	var notes []string
	o.Note = func(problem, _, what string) { notes = append(notes, problem+" "+what) }
	o.Progress = func(string, string, uint64, Point) { t.Error("a row kept in the directory ran again") }
	again, err := Bench(context.Background(), ps, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != len(want) || !strings.HasPrefix(notes[4], "nneonneo-cap1 16x row read back: ") || !strings.Contains(notes[4], filepath.Join("nneonneo-cap1", "16x", "evotune", rowFile)) {
		t.Errorf("notes %q, want every row read back from its cell", notes)
	}
	if a, b := mustJSON(res), mustJSON(again); string(a) != string(b) {
		t.Errorf("the rows read back differ:\n%s\nwant\n%s", b, a)
	}
	rs, err := ReadDir(o.Out)
	if err != nil || len(rs) != len(want) {
		t.Fatalf("ReadDir: %v, %d rows", err, len(rs))
	}
	for i, r := range rs {
		if r.Problem+" "+r.Cell != want[i] {
			t.Errorf("ReadDir's row %d is %s %s, want %s", i, r.Problem, r.Cell, want[i])
		}
	}
}

// TestCellsRefused checks that a cell a problem lacks, or cells beside a
// budget of one's own, are refused before anything runs.
func TestCellsRefused(t *testing.T) {
	ps := []Problem{mustLookup(t, "nneonneo-cap1"), mustLookup(t, "standard-3")}
	for _, o := range []Options{
		{Cells: []string{"16x"}},
		{Cells: []string{"1x"}, Budget: time.Second},
		{Cells: []string{"1x"}, BudgetGames: 100},
		{Cells: []string{"2x"}},
	} {
		o.Short, o.Seeds = true, []uint64{1}
		o.Progress = func(string, string, uint64, Point) { t.Errorf("%v: a row ran", o.Cells) }
		if _, err := Bench(context.Background(), ps, nil, o); !errors.Is(err, ErrNoCell) {
			t.Errorf("cells %v, budget %v, %d games: error %v, want ErrNoCell", o.Cells, o.Budget, o.BudgetGames, err)
		}
	}
	if _, err := RunProblem(context.Background(), ps[0], Options{Short: true, Cells: []string{AllCells}}); err == nil || !strings.Contains(err.Error(), "3 cells: a row runs one") {
		t.Errorf("RunProblem at three cells: %v", err)
	}
}

// TestOutKeepsCellsApart checks the refusals of a directory that holds
// another benchmark: rows of one budget given cells, cells given rows of
// one budget, and a cell's rows taken under other conditions.
func TestOutKeepsCellsApart(t *testing.T) {
	p := mustLookup(t, "standard-3")
	ctx := context.Background()
	// The cell 1x as if its budget had changed since the directory was
	// written.
	moved := p
	moved.Cells = slices.Clone(p.Cells)
	moved.Cells[0].Budget = 61 * time.Second
	run := func(p Problem, o Options) error {
		o.Short, o.Seeds, o.Workers = true, []uint64{1}, 1
		ran := false
		o.Progress = func(string, string, uint64, Point) { ran = true }
		_, err := Bench(ctx, []Problem{p}, nil, o)
		if errors.Is(err, ErrOtherBench) && ran {
			t.Errorf("refused after a row ran: %v", err)
		}
		return err
	}
	cells, single := t.TempDir(), t.TempDir()
	if err := run(p, Options{Out: cells, Cells: []string{"1x"}}); err != nil {
		t.Fatal(err)
	}
	if err := run(p, Options{Out: single}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		p    Problem
		o    Options
		want string
	}{
		{p, Options{Out: cells}, "holds the rows of cell 1x"},
		{p, Options{Out: cells, BudgetGames: 40}, "holds the rows of cell 1x"},
		{p, Options{Out: single, Cells: []string{"4x"}}, "holds rows of one budget, not of cells"},
		{moved, Options{Out: cells, Cells: []string{"1x"}}, "its budget_cpu_s is 60, this benchmark's 61"},
	} {
		if err := run(tc.p, tc.o); !errors.Is(err, ErrOtherBench) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("cells %v, %d games: error %v, want ErrOtherBench with %q", tc.o.Cells, tc.o.BudgetGames, err, tc.want)
		}
	}
	// Another cell joins the benchmark.
	if err := run(p, Options{Out: cells, Cells: []string{AllCells}}); err != nil {
		t.Errorf("the directory's cells and one more: %v", err)
	}
}

func mustLookup(t *testing.T, name string) Problem {
	t.Helper()
	p, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCellOf checks the cell a result counts as: its own, or for a result
// without one the cell its budgets and Full say, and a cell of a problem
// of one's own named still.
func TestCellOf(t *testing.T) {
	for _, tc := range []struct {
		r    Result
		want string
	}{
		{Result{Problem: "nneonneo-cap1", Cell: "4x", Budget: 1200, BudgetGames: 20000, Full: true}, "4x"},
		{Result{Problem: "nneonneo-cap1", Budget: 300, BudgetGames: 5000, Full: true}, "1x"},
		{Result{Problem: "nneonneo-cap1", Budget: 300, BudgetGames: 5000}, ""},
		{Result{Problem: "nneonneo-cap1", Budget: 300, BudgetGames: 5000, Full: true, Short: true}, ""},
		{Result{Problem: "nneonneo-cap1", Budget: 75, Full: true}, ""},
		{Result{Problem: "standard-3", Budget: 60, Full: true}, "1x"},
		{Result{Problem: "standard-3", Budget: 240, Full: true}, "4x"},
		{Result{Problem: "snake16-2", Budget: 30, Full: true}, ""},
		{Result{Problem: "mine", Cell: "2x", Budget: 20, Full: true}, "2x"},
	} {
		if c := cellOf(tc.r); c.Name != tc.want {
			t.Errorf("%s at %v s and %d games, cell %q, full %v: cell %q, want %q", tc.r.Problem, tc.r.Budget, tc.r.BudgetGames, tc.r.Cell, tc.r.Full, c.Name, tc.want)
		}
	}
	mine := Result{Problem: "mine", Cell: "2x", Budget: 20, Full: true}
	if got := groupTitle([]Result{mine}); got != "mine, 2×: 20 CPU s (development)" {
		t.Errorf("a cell of a problem of one's own: title %q", got)
	}
}
