package tunebench

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrNoCell is wrapped by the error of a cell name that is no cell of a
// problem (Problem.Cell, Options.Cells).
var ErrNoCell = errors.New("tunebench: no cell")

// AllCells, as the one name in Options.Cells, runs every cell of each
// problem.
const AllCells = "all"

// A Cell is one budget at which a problem's rows are compared, asking the
// question users ask: does more time help? Its budgets are a multiple
// (Scale) of the problem's small budget, and a run goes on to them
// (Options.Full), so that its final point is what a run of that budget
// hands over; its grid gives a run about 10 to 20 points, so that a long
// cell does not spend as many held-out games as it tunes.
type Cell struct {
	// Name names the cell on the command line, in Result.Cell and in the
	// directories of Options.Out: its Scale and "x" ("1x", "4x", "16x").
	Name string
	// Scale is the multiple of the problem's small budget: 1, 4, 16.
	Scale int
	// Budget is a run's tuning CPU time.
	Budget time.Duration
	// BudgetGames, when positive, is a run's budget in games, next to
	// Budget: the one that binds, Budget then being a scale of the
	// problem's own that a run does not reach.
	BudgetGames int64
	// Grid is the games between two of a run's points.
	Grid int64
}

// cellName matches the name of a cell: a scale and "x". Options.Out tells
// a cell's directory from a row's by it.
var cellName = regexp.MustCompile(`^[1-9][0-9]*x$`)

// Label is the cell as the tables name it: "4×".
func (c Cell) Label() string { return strconv.Itoa(c.Scale) + "×" }

// cell makes a problem's cell of scale times its small budget.
func cell(scale int, budget time.Duration, games, grid int64) Cell {
	return Cell{Name: strconv.Itoa(scale) + "x", Scale: scale, Budget: budget, BudgetGames: games, Grid: grid}
}

// CellNames returns the names of the problem's cells, smallest first.
func (p Problem) CellNames() []string {
	names := make([]string, len(p.Cells))
	for i, c := range p.Cells {
		names[i] = c.Name
	}
	return names
}

// Cell returns the problem's cell named name.
func (p Problem) Cell(name string) (Cell, error) {
	for _, c := range p.Cells {
		if c.Name == name {
			return c, nil
		}
	}
	has := "none"
	if len(p.Cells) > 0 {
		has = strings.Join(p.CellNames(), ", ")
	}
	return Cell{}, fmt.Errorf("%w %q on %s (its cells: %s)", ErrNoCell, name, p.Name, has)
}

// SelectCells returns the cells of p that names (Options.Cells) name: nil
// for no names, every cell of p for AllCells. A name p has not is an
// error (ErrNoCell), and so is a name given twice.
func (p Problem) SelectCells(names []string) ([]Cell, error) {
	if len(names) == 1 && names[0] == AllCells {
		if len(p.Cells) == 0 {
			return nil, fmt.Errorf("%w: %s has none", ErrNoCell, p.Name)
		}
		return slices.Clone(p.Cells), nil
	}
	var out []Cell
	for _, name := range names {
		if name == AllCells {
			return nil, fmt.Errorf("%w: %s with other cells: give it alone", ErrNoCell, AllCells)
		}
		c, err := p.Cell(name)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(out, func(d Cell) bool { return d.Name == name }) {
			return nil, fmt.Errorf("%w: %s named twice", ErrNoCell, name)
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Cell) int { return cmp.Compare(a.Scale, b.Scale) })
	return out, nil
}

// oneCell resolves o.Cells for a function that runs one row of p: none,
// or exactly one.
func oneCell(p Problem, o Options) (*Cell, error) {
	cs, err := cellsOf(p, o)
	switch {
	case err != nil:
		return nil, err
	case len(cs) > 1:
		return nil, fmt.Errorf("tunebench: %s: %d cells: a row runs one (Bench runs several)", p.Name, len(cs))
	case len(cs) == 1:
		return &cs[0], nil
	}
	return nil, nil
}

// cellsOf resolves o.Cells for problem p, refusing them beside budgets of
// o's own: a cell is its budgets.
func cellsOf(p Problem, o Options) ([]Cell, error) {
	if len(o.Cells) == 0 {
		return nil, nil
	}
	if o.Budget > 0 || o.BudgetGames > 0 {
		return nil, fmt.Errorf("%w: cells %s beside a budget of the options' own: a cell is its budgets", ErrNoCell, strings.Join(o.Cells, ","))
	}
	return p.SelectCells(o.Cells)
}

// cellOf names the cell r was played at: its own (Result.Cell), or for a
// result without one (written before cells, or with explicit budgets) the
// cell of its problem whose budgets it ran to, if any; the zero Cell
// otherwise.
func cellOf(r Result) Cell {
	p, err := Lookup(r.Problem)
	if r.Cell != "" {
		if c, err := p.Cell(r.Cell); err == nil {
			return c
		}
		// A problem of one's own, or a cell its problem no longer has:
		// named still, its budgets the result's.
		n, _ := strconv.Atoi(strings.TrimSuffix(r.Cell, "x"))
		return Cell{Name: r.Cell, Scale: n, Budget: time.Duration(r.Budget * float64(time.Second)), BudgetGames: r.BudgetGames, Grid: r.Grid}
	}
	if err != nil || !r.Full || r.Short {
		return Cell{}
	}
	for _, c := range p.Cells {
		if c.Budget.Seconds() == r.Budget && c.BudgetGames == r.BudgetGames {
			return c
		}
	}
	return Cell{}
}
