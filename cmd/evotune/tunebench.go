package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/evotune/evotune/tuner/playerpool"
	"github.com/evotune/evotune/tuner/tunebench"
)

var tunebenchCommand = &command{
	name: "tunebench",
	synopsis: "[--problems LIST|all] [--seeds 1,2,3] [--confirm] [--cells 1x,4x,16x|all | --budget CPU-S --budget-games N] [--full] [--short]\n" +
		"                         [--workers N] [--peer CMD]... [--config FILE]... [--no-tuner] [--peer-idle D] [--out DIR]\n" +
		"                         [--json | --markdown] [--curves] [--svg DIR]\n" +
		"       evotune tunebench table [--markdown] [--curves] [--svg DIR] FILE.json|DIR...",
	summary: "time tuners side by side: CPU seconds and games until held-out games reach each problem's target",
	setup:   setupTunebench,
}

// defaultTunebenchProblems are the problems run without --problems: the two
// that take minutes, not hours.
const defaultTunebenchProblems = "standard-3,nneonneo-cap1"

// listFlag is a flag that may be given more than once.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

func setupTunebench(fs *flag.FlagSet) runFunc {
	names := fs.String("problems", defaultTunebenchProblems, "comma-separated problems, or all: "+strings.Join(tunebench.Names(), ", ")+
		"; every row is judged at every multiple of the problem's grid of games (1,000; 2,000 for the 5-ply problems)")
	var configs, peers listFlag
	fs.Var(&configs, "config", "a row of evotune's tuner with the tuning config `FILE` instead of the problem's own settings (one problem; the same features, init and final search as the problem's, which keeps its target and held-out games); may be given more than once")
	noTuner := fs.Bool("no-tuner", false, "leave out the row of evotune's tuner with the problem's own settings")
	seedList := fs.String("seeds", "1,2,3", "comma-separated run seeds, one run of each problem and row per seed (with --confirm: 101-108, and none of the development seeds 1-8)")
	confirm := fs.Bool("confirm", false, "play the rows on the confirmation cell: run seeds no setting was chosen on (default 101-108) and a second block of held-out games, the start measured there too, at every cell of each problem unless --cells, --budget or --budget-games say otherwise; without it a row is development, the seeds (1-8) and held-out games settings are chosen on. Choose settings on development rows only and play each confirmation row once")
	out := fs.String("out", "", "keep each run seed's result as the seed ends and each row's as the row ends in `DIR` (DIR/BLOCK/PROBLEM/ROW/seed-N.json and row.json, at a cell DIR/BLOCK/PROBLEM/CELL/ROW/..., each written atomically): a killed benchmark keeps all it finished, every cell of it in one directory. The same command run again reads back what is there and runs only what is missing (more --seeds, rows or cells may be added; other budgets, grid or target, or cells into a problem's rows of one budget and the reverse, are refused); a failed row stays failed until its row.json is removed. tunebench table DIR renders it")
	cellList := fs.String("cells", "", "a comma-separated `LIST` of cells to run each problem at, or all (each problem's own), or none: a cell is a multiple of the problem's small budget, "+
		"1x (nneonneo-cap1 5,000 games, standard-3 60 CPU s, snake16-2 10 CPU s, the 5-ply problems their budget), 4x and, on nneonneo-cap1, 16x, with a grid of games that gives a run 10-20 points; "+
		"runs go on to the cell's budget (--full implied) and each cell is a table with its curves. Default: all under --confirm without --budget or --budget-games, none otherwise (each problem's budget)")
	budget := fs.Float64("budget", 0, "tuning CPU seconds a run may spend before it stops (0 = each problem's own); not with --cells")
	grid := fs.Int64("grid", 0, "games between two of a run's held-out points, for every row and cell (0 = each cell's own, 10-20 points a run; without cells each problem's own: 1,000, or 2,000 for the 5-ply problems); a coarser grid costs fewer held-out games on long budgets")
	budgetGames := fs.Int64("budget-games", 0, "games a run may play before it stops, next to the CPU budget, the tuner's validation games and a peer's requests alike (0 = none); not with --cells")
	full := fs.Bool("full", false, "go on after the target to the budget, for the strength a run of that budget ends with")
	short := fs.Bool("short", false, "shrink every problem to seconds (2 generations, 4 games of 40 moves, 4 held-out games, points every 20 games, a budget of 120 games, times the cell's multiple at a cell): checks that it works, not how fast")
	workers := fs.Int("workers", 0, "games played at once (0 = one per core); CPU seconds count every worker")
	fs.Var(&peers, "peer", "a row of the optimizer this `COMMAND` runs: it speaks the objective protocol on stdin and stdout (docs/objective.md) and is judged as the tuner is, its own CPU counted; words split as a shell splits a simple command; may be given more than once")
	peerIdle := fs.Duration("peer-idle", tunebench.DefaultPeerIdle, "wall `time` a peer may take to send a line when one is awaited (or to read one of evotune's) before its row fails (the other rows go on; the exit status is then 1)")
	asJSON := fs.Bool("json", false, "print one JSON object, with every run's points, instead of tables")
	markdown := fs.Bool("markdown", false, "print the tables as markdown, to paste into docs/tunebench.md")
	curves := fs.Bool("curves", false, "show the curves (the held-out ratio at every grid line) of every table, and the answer across cells, for rows not run at --cells too (older outputs, budgets of one's own)")
	svgDir := fs.String("svg", "", "write each table's chart of its curves into `DIR` as an SVG file; --markdown shows it as an image at DIR/NAME.svg, so give DIR as the page will reach it (from docs/: tunebench-curves)")
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		to := tableFlags{markdown: *markdown, curves: *curves, svg: *svgDir}
		if len(args) > 0 && args[0] == "table" {
			var others []string
			fs.Visit(func(f *flag.Flag) {
				if f.Name != "markdown" && f.Name != "curves" && f.Name != "svg" {
					others = append(others, "--"+f.Name)
				}
			})
			if len(others) > 0 {
				return usagef("tunebench table: flag %s: the table is rendered from the files; only --markdown, --curves and --svg apply", others[0])
			}
			return tunebenchTable(args[1:], to, stdout)
		}
		if len(args) > 0 {
			return usagef("unexpected argument %q (tunebench takes flags, or: tunebench table FILE.json...)", args[0])
		}
		ps, err := parseProblems(*names)
		if err != nil {
			return err
		}
		var rows []tunebench.Row
		if !*noTuner {
			rows = append(rows, tunebench.Row{})
		}
		if len(configs) > 0 && len(ps) != 1 {
			return usagef("flag --config: replaces one problem's tuner settings; --problems names %d", len(ps))
		}
		for _, file := range configs {
			text, err := os.ReadFile(file)
			if err != nil {
				return badInput(fmt.Errorf("flag --config: %w", err))
			}
			// Check it now, so that a bad file is bad input, not a failure
			// after the start's held-out games.
			p := ps[0]
			p.Text, p.File = text, file
			if err := p.Validate(); err != nil {
				return badInput(err)
			}
			rows = append(rows, tunebench.Row{Config: file, ConfigText: text})
		}
		if len(peers) > 0 {
			if err := tunebench.PeersSupported(); err != nil {
				return usagef("flag --peer: %v", err)
			}
		}
		for _, peer := range peers {
			words, err := playerpool.SplitCommand(peer)
			if err != nil {
				return usagef("flag --peer: %v", err)
			}
			if len(words) == 0 {
				return usagef("flag --peer: empty command")
			}
			rows = append(rows, tunebench.Row{Peer: words})
		}
		if len(rows) == 0 {
			return usagef("flag --no-tuner: nothing left to run; add --peer CMD or --config FILE")
		}
		seeds, err := parseSeedList(*seedList)
		if err != nil {
			return err
		}
		if *confirm {
			seedsSet := false
			fs.Visit(func(f *flag.Flag) { seedsSet = seedsSet || f.Name == "seeds" })
			if !seedsSet {
				seeds = nil // the confirmation's own
			} else if err := tunebench.CheckConfirmSeeds(seeds); err != nil {
				return usagef("flag --seeds: %v", err)
			}
		}
		switch {
		case math.IsNaN(*budget) || math.IsInf(*budget, 0) || *budget < 0:
			return usagef("flag --budget: %v: want 0 (each problem's) or a positive number of CPU seconds", *budget)
		case *grid < 0:
			return usagef("flag --grid: %d: want 0 (each problem's own) or a positive number of games", *grid)
		case *budgetGames < 0:
			return usagef("flag --budget-games: %d: want 0 (none) or a positive number of games", *budgetGames)
		case *workers < 0:
			return usagef("flag --workers: %d: want 0 (one per core) or more", *workers)
		case *peerIdle <= 0:
			return usagef("flag --peer-idle: %v: want a positive duration such as 2m", *peerIdle)
		case *asJSON && *markdown:
			return usagef("flag --markdown: prints tables; --json prints the results instead: give one")
		case *asJSON && (*curves || *svgDir != ""):
			return usagef("flag --json: prints the results, no tables: --curves and --svg draw tables' curves (tunebench table renders them from the output)")
		}
		cells, err := parseCells(*cellList, ps, *confirm, *budget > 0 || *budgetGames > 0)
		if err != nil {
			return err
		}
		command := commandLine("evotune tunebench", fs)
		o := tunebench.Options{
			Seeds:       seeds,
			Workers:     *workers,
			Budget:      time.Duration(*budget * float64(time.Second)),
			BudgetGames: *budgetGames,
			Grid:        *grid,
			Full:        *full,
			Cells:       cells,
			Short:       *short,
			Confirm:     *confirm,
			Out:         *out,
			PeerLimits:  tunebench.PeerLimits{Idle: *peerIdle},
			Command:     command,
			Progress: func(problem, tuner string, seed uint64, p tunebench.Point) {
				at := "end"
				if p.Grid > 0 {
					at = "grid " + strconv.FormatInt(p.Grid, 10)
				}
				fmt.Fprintf(stderr, "%s  %s  seed %d  %s  games %d  gen %d  %.1f CPU s  held-out %.0f  ×%.3f\n",
					problem, tuner, seed, at, p.Games, p.Generation, p.CPU, p.Mean, p.Ratio)
			},
			Note: func(problem, tuner, what string) { fmt.Fprintf(stderr, "%s  %s  %s\n", problem, tuner, what) },
		}
		res, err := tunebench.Bench(ctx, ps, rows, o)
		if errors.Is(err, tunebench.ErrOtherBench) {
			return badInput(fmt.Errorf("flag --out: %w", err))
		}
		if errors.Is(err, tunebench.ErrNoCell) {
			return usagef("flag --cells: %v", err)
		}
		if err != nil {
			return err
		}
		if *asJSON {
			err = json.NewEncoder(stdout).Encode(struct {
				Command  string             `json:"command"`
				Short    bool               `json:"short"`
				Full     bool               `json:"full"`
				Problems []tunebench.Result `json:"problems"`
			}{command, *short, *full, res})
		} else {
			err = writeTables(stdout, res, to)
		}
		if err != nil {
			return err
		}
		return failedRows(res)
	}
}

// failedRows is the error of a benchmark some rows of which failed, after
// its output: the first one's failure, with the flag that sets a broken
// limit, and how many failed; the output says which and why.
func failedRows(res []tunebench.Result) error {
	var first error
	failed := 0
	for i := range res {
		if err := res[i].Err(); err != nil {
			if first == nil {
				first = peerHint(err)
			}
			failed++
		}
	}
	switch {
	case failed == 1:
		return first
	case failed == 2:
		return fmt.Errorf("%w (and 1 more row failed: the output says which)", first)
	case failed > 2:
		return fmt.Errorf("%w (and %d more rows failed: the output says which)", first, failed-1)
	}
	return nil
}

// peerHint adds to a peer's broken limit the flag that sets it.
func peerHint(err error) error {
	switch {
	case errors.Is(err, tunebench.ErrPeerIdle):
		return fmt.Errorf("%w; --peer-idle sets the limit", err)
	case errors.Is(err, tunebench.ErrPeerCPU):
		return fmt.Errorf("%w; --budget sets the budget", err)
	}
	return err
}

// commandLine writes the command with the flags set on fs (in the flag
// package's order: by name), each value quoted as a shell needs it, so
// that the line runs the same benchmark again.
func commandLine(name string, fs *flag.FlagSet) string {
	words := []string{name}
	fs.Visit(func(f *flag.Flag) {
		values := []string{f.Value.String()}
		if l, ok := f.Value.(*listFlag); ok {
			values = *l
		}
		for _, v := range values {
			if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() && v == "true" {
				words = append(words, "--"+f.Name)
				continue
			}
			words = append(words, "--"+f.Name, shellWord(v))
		}
	})
	return strings.Join(words, " ")
}

// shellWord is s as one shell word: bare where that is safe.
func shellWord(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._,/:=@%+-", r))
	}) < 0 {
		return s
	}
	return shellQuote(s)
}

// parseProblems reads --problems: names, or all.
func parseProblems(list string) ([]tunebench.Problem, error) {
	if list == "all" {
		return tunebench.Problems(), nil
	}
	var ps []tunebench.Problem
	for name := range strings.SplitSeq(list, ",") {
		p, err := tunebench.Lookup(strings.TrimSpace(name))
		if err != nil {
			return nil, usagef("flag --problems: %v", err)
		}
		if slices.ContainsFunc(ps, func(q tunebench.Problem) bool { return q.Name == p.Name }) {
			return nil, usagef("flag --problems: %s named twice", p.Name)
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// parseSeedList reads --seeds: distinct unsigned integers.
func parseSeedList(list string) ([]uint64, error) {
	var seeds []uint64
	for s := range strings.SplitSeq(list, ",") {
		seed, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return nil, usagef("flag --seeds: %q: want comma-separated unsigned integers such as 1,2,3", s)
		}
		if slices.Contains(seeds, seed) {
			return nil, usagef("flag --seeds: %d named twice", seed)
		}
		seeds = append(seeds, seed)
	}
	return seeds, nil
}
