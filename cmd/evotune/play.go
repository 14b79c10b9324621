package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/engine/stats"
)

var playCommand = &command{
	name:     "play",
	synopsis: "[--weights FILE | --eval NAME] [--search expectimax|beam|nneonneo] [--depth N] [--width K] [--cutoff P] [--table BITS] [--adaptive] [--games N] [--seed N] [--workers N] [--json]",
	summary:  "play seeded games with a searcher and report score statistics",
	setup:    setupPlay,
}

func setupPlay(fs *flag.FlagSet) func(context.Context, []string, io.Writer, io.Writer) error {
	algo := fs.String("search", string(engine.AlgorithmExpectimax), "search algorithm: expectimax, beam, or nneonneo (the search of nneonneo/2048-ai: heuristic only, odd depths 2c+1 for its cap c) (with --weights: the file's)")
	depth := fs.Int("depth", 3, "search depth in plies, a move and a spawn layer counting one each (with --weights: the file's)")
	width := fs.Int("width", 8, "beam width: boards kept per ply, beam only (with --weights: the file's)")
	games := fs.Int("games", 20, "number of games")
	seed := fs.Uint64("seed", 1, "base seed; game i plays the seed derived from it and i")
	workers := fs.Int("workers", 0, "parallel games (0 = one per core)")
	maxMoves := fs.Int("max-moves", 0, "stop each game after this many moves (0 = play to the end)")
	loss := fs.Float64("loss", engine.DefaultLossValue, "value of a lost position in the search")
	var cutoff, table optNumber
	fs.Var(&cutoff, "cutoff", "probability cutoff `P`: a spawn layer less likely than this to be reached is valued as a leaf; 0 = exact search (default: the weights file's, else 0.02 at 4 and 5 plies, 0.001 deeper, none below; nneonneo: the program's 1e-4)")
	fs.Var(&table, "table", "expectimax transposition table of 2^`BITS` entries, 0 = none, at most 30 (default none below 4 plies, 14 from 4 on)")
	adaptive := fs.Bool("adaptive", false, "expectimax: search boards with few distinct tiles less deep (min(depth, max(3, 2*(distinct-2)+1)) plies)")
	asJSON := fs.Bool("json", false, "print JSON instead of text, with every game")
	ef := addEvalFlags(fs)
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if len(args) > 0 {
			return usagef("unexpected argument %q", args[0])
		}
		e, ename, err := ef.load()
		if err != nil {
			return err
		}
		heuristicOnly := false
		fileSearch := ef.searchDefaults(depth, algo, width, &heuristicOnly)
		algorithm, err := engine.ParseAlgorithm(*algo)
		if err != nil {
			return usagef("flag --search: %v", err)
		}
		cfg := engine.SearchConfig{Algorithm: algorithm, Depth: *depth, Width: *width, LossValue: *loss, HeuristicOnly: heuristicOnly}
		switch {
		case *width < 1:
			return usagef("flag --width: %d boards: want at least 1", *width)
		case *games < 1:
			return usagef("flag --games: %d: want at least 1 game", *games)
		case *workers < 0:
			return usagef("flag --workers: %d: want 0 (one per core) or more", *workers)
		case *maxMoves < 0:
			return usagef("flag --max-moves: %d: want 0 (no limit) or more", *maxMoves)
		}
		if err := algorithm.CheckDepth(*depth); err != nil {
			return usagef("flag --depth: %v", err)
		}
		switch {
		case cutoff.set && !(cutoff.v >= 0 && cutoff.v < 1):
			return usagef("flag --cutoff: %v: want 0 (exact) or a probability below 1", cutoff.v)
		case table.set && (table.v != math.Trunc(table.v) || table.v < 0 || table.v > 30):
			return usagef("flag --table: %v: want an integer from 0 (no table) to 30 (log2 of the entries)", table.v)
		}
		// Defaults for the algorithm and depth, then the file's search
		// options where it records them (a file tuned with a cutoff plays
		// with it), then the flags.
		cfg = cfg.WithPlayDefaults()
		if fileSearch != nil && fileSearch.Algorithm == cfg.Algorithm && fileSearch.Depth == cfg.Depth {
			if fileSearch.ProbCutoff != 0 {
				cfg.ProbCutoff = fileSearch.ProbCutoff
			}
			cfg.Adaptive = fileSearch.Adaptive
		}
		if table.set && algorithm == engine.AlgorithmExpectimax {
			cfg.TableBits = int(table.v)
		}
		if cutoff.set {
			cfg.ProbCutoff = cutoff.v
		}
		if *adaptive {
			cfg.Adaptive = true
		}
		w := engine.Workers(*workers)
		var pb *bar
		if !*asJSON {
			pb = newBar(stderr, *games, "playing", "games")
		}
		start, cpuStart := time.Now(), cpuTime()
		results, err := engine.PlayGames(ctx, *games, w,
			func(i int) uint64 { return engine.GameSeed(*seed, uint64(i)) },
			func() (engine.Player, error) { return engine.NewSearcher(e, cfg) },
			*maxMoves, func(int, engine.Result) { pb.add(1) })
		pb.done()
		if err != nil {
			return err
		}
		elapsed := time.Since(start).Seconds()
		cpuMS := (cpuTime() - cpuStart).Seconds() * 1000
		sum := stats.Summarize(results)
		mps := float64(sum.Moves) / elapsed
		cpuPerMove := cpuMS / float64(max(sum.Moves, 1))
		if *asJSON {
			return writePlayJSON(stdout, sum, mps, cpuPerMove, results)
		}
		fmt.Fprintf(stdout, "games   %d, %s, evaluator %s, seed %d, %d workers\n", sum.Games, cfg, ename, *seed, w)
		fmt.Fprintf(stdout, "score   mean %.0f ± %.0f (95%% CI), median %.0f, min %d, max %d\n", sum.Mean, sum.CI95, sum.Median, sum.Min, sum.Max)
		var reach []string
		for i, t := range stats.ReachTiles {
			reach = append(reach, fmt.Sprintf("%d %.0f%%", t, 100*sum.Reach[i]))
		}
		fmt.Fprintf(stdout, "reach   %s\n", strings.Join(reach, ", "))
		fmt.Fprintf(stdout, "speed   %.0f moves/s (%d moves in %.1f s), CPU %.4f ms/move\n", mps, sum.Moves, elapsed, cpuPerMove)
		return nil
	}
}

type playJSON struct {
	Games       int       `json:"games"`
	Mean        float64   `json:"mean"`
	CI95        float64   `json:"ci95"`
	Median      float64   `json:"median"`
	Reach       reachJSON `json:"reach"`
	MovesPerSec float64   `json:"moves_per_sec"`
	// CPUMSPerMove is the process CPU time (user + system, all threads)
	// spent playing, per move: less sensitive to a loaded machine than
	// moves_per_sec, and comparable with single-threaded programs when
	// --workers is 1.
	CPUMSPerMove float64    `json:"cpu_ms_per_move"`
	PerGame      []gameJSON `json:"per_game"`
}

type gameJSON struct {
	Seed    uint64 `json:"seed"`
	Score   int    `json:"score"`
	MaxTile int    `json:"max_tile"`
	Moves   int    `json:"moves"`
}

// reachJSON writes the reach rates as an object keyed by tile, in tile order.
type reachJSON [len(stats.ReachTiles)]float64

func (r reachJSON) MarshalJSON() ([]byte, error) {
	var sb strings.Builder
	sb.WriteByte('{')
	for i, t := range stats.ReachTiles {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, "%q:%s", strconv.Itoa(t), strconv.FormatFloat(r[i], 'g', -1, 64))
	}
	sb.WriteByte('}')
	return []byte(sb.String()), nil
}

func writePlayJSON(w io.Writer, s stats.Summary, mps, cpuPerMove float64, results []engine.Result) error {
	out := playJSON{Games: s.Games, Mean: s.Mean, CI95: s.CI95, Median: s.Median, Reach: reachJSON(s.Reach), MovesPerSec: mps, CPUMSPerMove: cpuPerMove}
	for _, r := range results {
		out.PerGame = append(out.PerGame, gameJSON{Seed: r.Seed, Score: r.Score, MaxTile: r.MaxTile, Moves: r.Moves})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// cpuTime returns the CPU time the process has used so far, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0 // no figure rather than a failed run
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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

func (o *optNumber) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return errors.New("not a number")
	}
	o.set, o.v = true, v
	return nil
}
