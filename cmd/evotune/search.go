package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"

	"github.com/evotune/evotune/engine"
)

var searchCommand = &command{
	name:     "search",
	synopsis: "--board B [--weights FILE | --eval NAME] [--search expectimax|nneonneo] [--depth N] [--tt=BOOL] [--table BITS] [--cutoff P] [--symmetry] [--json]",
	summary:  "search one board (exact expectimax, or nneonneo/2048-ai's search) and report its value, node count and each move's value",
	setup:    setupSearch,
}

// searchTableBits sizes the table of the search command: 2^22 entries
// (96 MiB) hold an 8-ply search of a mid-game board without much loss.
const searchTableBits = 22

func setupSearch(fs *flag.FlagSet) func(context.Context, []string, io.Writer, io.Writer) error {
	board := fs.String("board", "", "the board: hex 0x... (cell (r,c) at bit 4*(4r+c), exponents) or tiles \"2 4 8 16/32 64 0 0/0 0 0 0/0 0 0 0\" (required)")
	sf := addSearchFlags(fs, "with --weights: the file's", "cutoff")
	fs.Lookup("search").Usage = "expectimax (exact unless --tt, --table or --cutoff say otherwise), or nneonneo: the search of nneonneo/2048-ai, whose move values are that program's score_toplevel_move (odd depth 2c+1 for its cap c; --cutoff 0 = its 1e-4) (with --weights: the file's)"
	fs.Lookup("cutoff").Usage = "probability cutoff `P`: a spawn layer less likely than this to be reached is valued as a leaf; 0 = exact search (default: a weights file's if it was tuned at this search and depth, else 0)"
	tt := fs.Bool("tt", false, "use a transposition table: the same values with fewer nodes, but counts that depend on the table (off: the exact node counts of the search semantics)")
	table := fs.Int("table", 0, fmt.Sprintf("transposition table size, log2 of its entries, 1 to 30; implies --tt (--tt alone: %d)", searchTableBits))
	sym := fs.Bool("symmetry", false, "also search the 8 symmetric images of the board and check that their values agree (to 1e-9)")
	asJSON := fs.Bool("json", false, "print JSON instead of text")
	ef := addEvalFlags(fs)
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if len(args) > 0 {
			return usagef("unexpected argument %q (the board goes in --board)", args[0])
		}
		if *board == "" {
			return usagef("flag --board is required: hex 0x... or tiles \"2 4 8 16/32 64 0 0/0 0 0 0/0 0 0 0\"")
		}
		b, err := engine.ParseBoard(*board)
		if err != nil {
			return usagef("flag --board: %v", err)
		}
		if sf.algo == string(engine.AlgorithmBeam) {
			return usagef("flag --search: %q: want expectimax or nneonneo", sf.algo)
		}
		if *table < 0 || *table > 30 {
			return usagef("flag --table: %d: want 1 to 30 (log2 of the entries; 0 leaves --tt to decide)", *table)
		}
		e, ename, err := ef.load()
		if err != nil {
			return err
		}
		// The table is this command's own choice: exact node counts unless
		// asked, so it is set after the merge, which sees none.
		cfg, err := sf.merge(ef.fileSearch(), ef.weights, true)
		if err != nil {
			return err
		}
		if cfg.Algorithm == engine.AlgorithmBeam {
			return usagef("%s: search.algorithm: beam, which this command does not run; give --search expectimax or nneonneo", ef.weights)
		}
		if cfg.Algorithm == engine.AlgorithmNneonneo {
			if *tt || *table != 0 || *sym {
				return usagef("flags --tt, --table and --symmetry are for expectimax (the nneonneo search keeps its own table per root move)")
			}
			return searchNneonneo(stdout, b, cfg, e, ename, *asJSON)
		}
		if *tt {
			cfg.TableBits = searchTableBits
		}
		if *table > 0 {
			cfg.TableBits = *table
		}
		opts := engine.ExpectimaxOptions{Depth: cfg.Depth, LossValue: cfg.LossValue, TableBits: cfg.TableBits, ProbCutoff: cfg.ProbCutoff, HeuristicOnly: cfg.HeuristicOnly, Adaptive: cfg.Adaptive}
		s, err := engine.NewExpectimax(e, opts)
		if err != nil {
			return err
		}
		res := s.Search(b)
		var images []float64
		if *sym {
			for i := range 8 {
				s.Reset()
				images = append(images, s.Search(b.Symmetry(i)).Value)
			}
		}
		if *asJSON {
			return writeSearchJSON(stdout, b, cfg.Depth, res)
		}
		fmt.Fprintf(stdout, "board     %s\n%s", b.Hex(), b.Pretty())
		fmt.Fprintf(stdout, "search    %s, evaluator %s\n", cfg, ename)
		fmt.Fprintf(stdout, "value     %s\n", fmtValue(res.Value))
		fmt.Fprintf(stdout, "nodes     %d (table hits %d)\n", res.Nodes, res.TTHits)
		if !res.HasMove {
			fmt.Fprintln(stdout, "best      none: no legal move, the game is over")
		} else {
			fmt.Fprintf(stdout, "best      %v\n\n%-6s %20s %14s\n", res.Best, "move", "value", "nodes")
			for _, m := range res.Moves {
				fmt.Fprintf(stdout, "%-6v %20s %14d\n", m.Dir, fmtValue(m.Value), m.Nodes)
			}
		}
		if *sym {
			// The images sum their spawn layers in different cell orders,
			// so equal values may differ in the last bits.
			same := true
			for _, v := range images {
				same = same && math.Abs(v-images[0]) <= 1e-9*math.Max(1, math.Abs(images[0]))
			}
			verdict := "all equal"
			if !same {
				verdict = "NOT equal: the evaluator is not symmetric"
			}
			fmt.Fprintf(stdout, "\nsymmetry  the 8 images' values are %s:", verdict)
			for _, v := range images {
				fmt.Fprintf(stdout, " %s", fmtValue(v))
			}
			fmt.Fprintln(stdout)
		}
		return nil
	}
}

func fmtValue(v float64) string { return fmt.Sprintf("%.6f", v) }

type searchJSON struct {
	Board  string     `json:"board"`
	Depth  int        `json:"depth"`
	Value  float64    `json:"value"`
	Nodes  uint64     `json:"nodes"`
	TTHits uint64     `json:"tt_hits"`
	Best   *string    `json:"best"`
	Moves  []moveJSON `json:"moves"`
}

type moveJSON struct {
	Dir   string  `json:"dir"`
	Value float64 `json:"value"`
	Nodes uint64  `json:"nodes"`
}

func writeSearchJSON(w io.Writer, b engine.Board, depth int, res engine.SearchResult) error {
	out := searchJSON{Board: b.Hex(), Depth: depth, Value: res.Value, Nodes: res.Nodes, TTHits: res.TTHits, Moves: []moveJSON{}}
	if res.HasMove {
		best := res.Best.String()
		out.Best = &best
	}
	for _, m := range res.Moves {
		out.Moves = append(out.Moves, moveJSON{Dir: m.Dir.String(), Value: m.Value, Nodes: m.Nodes})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// searchNneonneo searches b with the nneonneo/2048-ai search: each move's
// value is what that program's score_toplevel_move returns for it, so a
// port can be checked against this output.
func searchNneonneo(w io.Writer, b engine.Board, cfg engine.SearchConfig, e engine.Evaluator, ename string, asJSON bool) error {
	s, err := engine.NewSearcher(e, cfg)
	if err != nil {
		return usagef("%v", err)
	}
	res := s.Search(b)
	if asJSON {
		return writeSearchJSON(w, b, cfg.Depth, res)
	}
	fmt.Fprintf(w, "board     %s\n%s", b.Hex(), b.Pretty())
	fmt.Fprintf(w, "search    %s, evaluator %s\n", cfg, ename)
	fmt.Fprintf(w, "value     %s\n", fmtValue(res.Value))
	fmt.Fprintf(w, "nodes     %d\n", res.Nodes)
	if !res.HasMove {
		fmt.Fprintln(w, "best      none: no legal move, the game is over")
		return nil
	}
	fmt.Fprintf(w, "best      %v\n\n%-6s %20s\n", res.Best, "move", "value")
	for _, m := range res.Moves {
		fmt.Fprintf(w, "%-6v %20s\n", m.Dir, fmtValue(m.Value))
	}
	return nil
}
