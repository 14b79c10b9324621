package tunebench

import (
	"embed"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/evotune/evotune/tuner"
)

//go:embed problems/*.yaml
var problemFiles embed.FS

// ErrNoProblem is wrapped by the error of Lookup for a name that is no
// problem.
var ErrNoProblem = errors.New("tunebench: no problem")

// A Problem is a tuning run to time: a config and a target on held-out
// games. The config fixes everything but the run seed and the run's end,
// which the benchmark gives; the target is a ratio of mean scores, the
// recommended weights' over the starting weights', both on the same
// HeldOut games.
type Problem struct {
	// Name names the problem on the command line and in output.
	Name string
	// Summary says in a few words what is tuned from where.
	Summary string
	// File is the embedded config, problems/NAME.yaml, unless Text is set.
	File string
	// Text, if not nil, is the config instead of File's (File then names
	// it in errors): the tuner settings of one's own tried on the
	// problem's start, target and held-out games.
	Text []byte
	// Target is the ratio of held-out mean scores, recommended over start,
	// that counts as reached.
	Target float64
	// HeldOut is the number of held-out games (HeldOutSeed 0..HeldOut-1).
	HeldOut int
	// Budget is the tuning CPU time a run may spend when neither cells
	// nor budgets of one's own are given; a run that has not reached the
	// target by then stops.
	Budget time.Duration
	// Grid is the games between two of a run's points: every run, of the
	// tuner or a peer, is judged at every multiple of Grid games it plays
	// (see docs/tunebench.md, "Reading the output"). A finer grid times a
	// result more finely and costs more held-out games between steps.
	Grid int64
	// Cells are the budgets the problem's rows are compared at, smallest
	// first (see Cell): its small budget (1x) and multiples of it.
	Cells []Cell
}

// problems are the reference problems, cheapest first. Their targets and
// why are in docs/tunebench.md; change one only with a new table there.
//
// The cells: at 1x the small budgets the round's tables were taken at
// (nneonneo-cap1 5,000 games, standard-3 60 CPU s, snake16-2 10), then 4
// and, on nneonneo-cap1, whose games cost least to judge, 16 times them; a
// games budget keeps a CPU budget that scales with it and never binds.
// The 5-ply problems have their own budget only: one run is hours, and 8
// run seeds of 4 times it are days. Each grid gives a run about 10 to 20
// points at the games a run plays in its CPU budget (docs/tunebench.md,
// "Cells"): standard-3 about 330 games a CPU second, snake16-2 about
// 7,500, the 5-ply problems about 6.
var problems = []Problem{
	{
		Name: "standard-3", Summary: "standard, 3 plies, from the hand-set weights (the quick preset)",
		File: "problems/standard-3.yaml", Target: 1.50, HeldOut: 1000, Budget: 240 * time.Second, Grid: 1000,
		Cells: []Cell{cell(1, 60*time.Second, 0, 2000), cell(4, 240*time.Second, 0, 5000)},
	},
	{
		Name: "nneonneo-cap1", Summary: "nneonneo, cap 1 (3 plies), from the program's constants",
		File: "problems/nneonneo-cap1.yaml", Target: 1.50, HeldOut: 1000, Budget: 300 * time.Second, Grid: 1000,
		Cells: []Cell{cell(1, 300*time.Second, 5000, 500), cell(4, 1200*time.Second, 20000, 2000), cell(16, 4800*time.Second, 80000, 5000)},
	},
	{
		Name: "snake16-2", Summary: "snake16 (17 weights), 2 plies, from its halving table",
		File: "problems/snake16-2.yaml", Target: 1.30, HeldOut: 1000, Budget: 120 * time.Second, Grid: 1000,
		Cells: []Cell{cell(1, 10*time.Second, 0, 5000), cell(4, 40*time.Second, 0, 20000)},
	},
	{
		Name: "nneonneo-cap2", Summary: "nneonneo, cap 2 (5 plies), from the program's constants (the nneonneo preset)",
		File: "problems/nneonneo-cap2.yaml", Target: 1.35, HeldOut: 1200, Budget: 9600 * time.Second, Grid: 2000,
		Cells: []Cell{cell(1, 9600*time.Second, 0, 5000)},
	},
	{
		Name: "standard-5", Summary: "standard, 5 plies, from the quick preset's former weights (the plateau)",
		File: "problems/standard-5.yaml", Target: 1.08, HeldOut: 1000, Budget: 9000 * time.Second, Grid: 2000,
		Cells: []Cell{cell(1, 9000*time.Second, 0, 5000)},
	},
}

// Problems returns the reference problems, cheapest first.
func Problems() []Problem { return append([]Problem(nil), problems...) }

// Names returns the problems' names, in order.
func Names() []string {
	names := make([]string, len(problems))
	for i, p := range problems {
		names[i] = p.Name
	}
	return names
}

// Lookup returns the problem named name.
func Lookup(name string) (Problem, error) {
	for _, p := range problems {
		if p.Name == name {
			return p, nil
		}
	}
	return Problem{}, fmt.Errorf("%w %q (problems: %s)", ErrNoProblem, name, strings.Join(Names(), ", "))
}

// Config returns the problem's config, parsed but not resolved, so that a
// caller may set the run seed (and, for a short run, shrink it) before
// Resolve and Validate.
func (p Problem) Config() (*tuner.Config, error) {
	data := p.Text
	if data == nil {
		var err error
		if data, err = problemFiles.ReadFile(p.File); err != nil {
			return nil, fmt.Errorf("tunebench: %s: %w", p.Name, err)
		}
	}
	cfg, err := tuner.ParseConfig(data, p.File)
	if err != nil {
		return nil, fmt.Errorf("tunebench: %s: %w", p.Name, err)
	}
	return cfg, nil
}

// Validate reports whether the problem's config can be run: valid, with
// no generations or duration of its own and stages that end by
// generations, not wall time.
func (p Problem) Validate() error {
	_, err := (&bench{p: p}).config(1)
	return err
}
