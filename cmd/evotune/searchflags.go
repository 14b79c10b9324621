package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"

	"github.com/evotune/evotune/engine"
)

// searchFlags are the search flags of the commands that play or search with
// an evaluator (play, compare, search): --search and --depth, and those of
// --width, --cutoff, --table, --adaptive and --loss that a command offers.
// merge lays them over a weights file's search, by one rule for every
// command.
type searchFlags struct {
	fs       *flag.FlagSet
	algo     string
	depth    int
	width    int
	cutoff   optNumber
	table    optInt
	adaptive bool
	loss     float64
}

// searchFlagKeys maps a search option, as engine.SearchError names it, to
// the flag that sets it.
var searchFlagKeys = map[string]string{
	"algorithm": "search", "depth": "depth", "width": "width",
	"table": "table", "cutoff": "cutoff", "adaptive": "adaptive",
}

// addSearchFlags defines --search and --depth on fs, and of width, cutoff,
// table, adaptive and loss those named in which. fromFile says, for the
// usage text, where a weights file's search comes in ("with --weights: the
// file's").
func addSearchFlags(fs *flag.FlagSet, fromFile string, which ...string) *searchFlags {
	// The defaults of the flags a command does not offer.
	f := &searchFlags{fs: fs, width: 8, loss: engine.DefaultLossValue}
	fs.StringVar(&f.algo, "search", string(engine.AlgorithmExpectimax), "search algorithm: expectimax, beam, or nneonneo (the search of nneonneo/2048-ai: heuristic only, odd depths 2c+1 for its cap c) ("+fromFile+")")
	fs.IntVar(&f.depth, "depth", 3, "search depth in plies, a move and a spawn layer counting one each ("+fromFile+")")
	for _, name := range which {
		switch name {
		case "width":
			fs.IntVar(&f.width, "width", 8, "beam width: boards kept per ply, beam only ("+fromFile+")")
		case "cutoff":
			fs.Var(&f.cutoff, "cutoff", "probability cutoff `P`: a spawn layer less likely than this to be reached is valued as a leaf; 0 = exact search (default: a weights file's if it was tuned at this search and depth, else 0.02 at 4 and 5 plies, 0.001 deeper, none below; nneonneo: the program's 1e-4)")
		case "table":
			fs.Var(&f.table, "table", "expectimax transposition table of 2^`BITS` entries, 0 = none, at most 30 (default none below 4 plies, 14 from 4 on)")
		case "adaptive":
			fs.BoolVar(&f.adaptive, "adaptive", false, "expectimax: search boards with few distinct tiles less deep (min(depth, max(3, 2*(distinct-2)+1)) plies) (default: a weights file's if it was tuned at this search and depth)")
		case "loss":
			fs.Float64Var(&f.loss, "loss", engine.DefaultLossValue, "value of a lost position in the search")
		}
	}
	return f
}

func (f *searchFlags) given(name string) bool { return flagGiven(f.fs, name) }

// merge returns the search to play or search with, given the search a
// weights file records (nil: none, or no file) and the file's name for
// errors. The rule, the same for every command:
//
//  1. Algorithm, depth and width: the flag if given, else the file's (its
//     width only for beam), else the flag's default.
//  2. Heuristic only: the file's. Weights tuned without move scores have no
//     scale for them, so no flag adds them.
//  3. Table, cutoff and loss value: the defaults for that algorithm and
//     depth, players' (engine's WithPlayDefaults, DefaultLossValue) or,
//     with exact, the exact search's (none, and a loss value of 0).
//  4. The file's cutoff (unless 0) and adaptive depth, if the search chosen
//     has the file's algorithm and depth: the weights were tuned with them,
//     and at another depth they would make another search.
//  5. --cutoff, --table, --adaptive and --loss, where given.
//
// The result is validated; an error names the flag that set the bad value,
// or the file when the value came from it, and is a usage error.
func (f *searchFlags) merge(file *engine.SearchConfig, fileName string, exact bool) (engine.SearchConfig, error) {
	cfg := engine.SearchConfig{Algorithm: engine.Algorithm(f.algo), Depth: f.depth, Width: f.width}
	if file != nil {
		if !f.given("search") && file.Algorithm != "" {
			cfg.Algorithm = file.Algorithm
		}
		if !f.given("depth") && file.Depth > 0 {
			cfg.Depth = file.Depth
		}
		if !f.given("width") && file.Width > 0 {
			cfg.Width = file.Width
		}
		cfg.HeuristicOnly = file.HeuristicOnly
	}
	if exact {
		cfg.LossValue = 0
	} else {
		cfg = cfg.WithPlayDefaults()
		cfg.LossValue = engine.DefaultLossValue
	}
	if file != nil && file.Algorithm == cfg.Algorithm && file.Depth == cfg.Depth {
		if file.ProbCutoff != 0 {
			cfg.ProbCutoff = file.ProbCutoff
		}
		cfg.Adaptive = file.Adaptive
	}
	if f.cutoff.set {
		cfg.ProbCutoff = f.cutoff.v
	}
	if f.table.set {
		cfg.TableBits = f.table.v
	}
	if f.given("adaptive") {
		cfg.Adaptive = f.adaptive
	}
	if f.given("loss") {
		cfg.LossValue = f.loss
	}
	// A width given is a width even where only beam reads it, as in a
	// config: --width 0 is a mistake whatever the search.
	if f.given("width") && f.width < 1 {
		return cfg, usagef("flag --width: %d: want at least 1 board", f.width)
	}
	return cfg, f.check(cfg, fileName)
}

// check returns cfg.Validate's error as a usage error naming where the bad
// value came from: its flag if given, else the weights file.
func (f *searchFlags) check(cfg engine.SearchConfig, fileName string) error {
	var se *engine.SearchError
	if err := cfg.Validate(); !errors.As(err, &se) {
		return badInput(err)
	}
	name := searchFlagKeys[se.Key]
	if !f.given(name) && fileName != "" {
		return usagef("%s: search.%s: %s; give --%s", fileName, se.Key, se.Msg, name)
	}
	return usagef("flag --%s: %s", name, se.Msg)
}

// flagGiven reports whether the flag name was set on the command line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(fl *flag.Flag) { given = given || fl.Name == name })
	return given
}

// optNumber is a number flag whose default depends on other flags: unset,
// it shows no default of its own in the usage text.
type optNumber struct {
	set bool
	v   float64
}

func (o *optNumber) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.FormatFloat(o.v, 'g', -1, 64)
}

// Get implements flag.Getter, so that a parse error says what the flag
// takes.
func (o *optNumber) Get() any { return o.v }

func (o *optNumber) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return errors.New("not a number")
	}
	o.set, o.v = true, v
	return nil
}

// optInt is optNumber for integers.
type optInt struct {
	set bool
	v   int
}

func (o *optInt) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.Itoa(o.v)
}

// Get implements flag.Getter.
func (o *optInt) Get() any { return o.v }

func (o *optInt) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("not an integer")
	}
	o.set, o.v = true, v
	return nil
}
