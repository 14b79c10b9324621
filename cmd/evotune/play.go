package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/engine/stats"
	"github.com/evotune/evotune/internal/cputime"
	"github.com/evotune/evotune/tuner/playerpool"
)

var playCommand = &command{
	name:     "play",
	synopsis: "[--weights FILE | --eval NAME] [--search expectimax|beam|nneonneo] [--depth N] [--width K] [--cutoff P] [--table BITS] [--adaptive] | --player CMD [--params NAME=VALUE,...]] [--games N] [--seed N] [--workers N] [--json]",
	summary:  "play seeded games with a searcher or an external player and report score statistics",
	setup:    setupPlay,
}

func setupPlay(fs *flag.FlagSet) func(context.Context, []string, io.Writer, io.Writer) error {
	sf := addSearchFlags(fs, "with --weights: the file's", "width", "cutoff", "table", "adaptive", "loss")
	games := fs.Int("games", 20, "number of games")
	seed := fs.Uint64("seed", 1, "base seed; game i plays the seed derived from it and i")
	workers := fs.Int("workers", 0, "parallel games (0 = one per core)")
	maxMoves := fs.Int("max-moves", 0, "stop each game after this many moves (0 = play to the end)")
	asJSON := fs.Bool("json", false, "print JSON instead of text, with every game")
	ef := addEvalFlags(fs)
	xf := addExtPlayerFlags(fs)
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if len(args) > 0 {
			return usagef("unexpected argument %q", args[0])
		}
		switch {
		case *games < 1:
			return usagef("flag --games: %d: want at least 1 game", *games)
		case *workers < 0:
			return usagef("flag --workers: %d: want 0 (one per core) or more", *workers)
		case *maxMoves < 0:
			return usagef("flag --max-moves: %d: want 0 (no limit) or more", *maxMoves)
		}
		x, err := xf.start(ctx, fs)
		if err != nil {
			return err
		}
		var (
			e     engine.Evaluator
			ename string
			cfg   engine.SearchConfig
		)
		if x == nil {
			if e, ename, err = ef.load(); err != nil {
				return err
			}
			if cfg, err = sf.merge(ef.fileSearch(), ef.weights, false); err != nil {
				return err
			}
		}
		w := engine.Workers(*workers)
		var pb *bar
		if !*asJSON {
			pb = newBar(stderr, *games, "playing", "games")
		}
		// Without a CPU clock (cputime's fallback) both readings are 0 and
		// so is the figure: no figure rather than a failed run. With an
		// external player it counts this process only.
		start := time.Now()
		cpuStart, _ := cputime.Process()
		var results []engine.Result
		var elapsed float64
		if x != nil {
			pool := x.newPool(w)
			results, err = x.play(ctx, pool, gameSeeds(*seed, 0, *games), *maxMoves, func() { pb.add(1) })
			// The games end here: the players' exit (up to the kill
			// after quit, for one that ignores it) is not play's speed.
			elapsed = time.Since(start).Seconds()
			pool.Close()
		} else {
			results, err = engine.PlayGames(ctx, *games, w,
				func(i int) uint64 { return engine.GameSeed(*seed, uint64(i)) },
				func() (engine.Player, error) { return engine.NewSearcher(e, cfg) },
				*maxMoves, func(int, engine.Result) { pb.add(1) })
			elapsed = time.Since(start).Seconds()
		}
		pb.done()
		if err != nil {
			return err
		}
		cpuEnd, _ := cputime.Process()
		cpuMS := (cpuEnd - cpuStart).Seconds() * 1000
		sum := stats.Summarize(results)
		mps := float64(sum.Moves) / elapsed
		cpuPerMove := cpuMS / float64(max(sum.Moves, 1))
		if *asJSON {
			return writePlayJSON(stdout, sum, mps, cpuPerMove, results, x)
		}
		if x != nil {
			fmt.Fprintf(stdout, "games   %d, player %s %s, seed %d, %d player processes\n", sum.Games, x.fam.ID, x.fam.Version, *seed, w)
			fmt.Fprintf(stdout, "player  %s\n", playerpool.CommandString(x.fam.Command))
			fmt.Fprintf(stdout, "params  %s\n", x.paramsText())
		} else {
			fmt.Fprintf(stdout, "games   %d, %s, evaluator %s, seed %d, %d workers\n", sum.Games, cfg, ename, *seed, w)
		}
		fmt.Fprintf(stdout, "score   mean %.0f ± %.0f (95%% CI), median %.0f, min %d, max %d\n", sum.Mean, sum.CI95, sum.Median, sum.Min, sum.Max)
		var reach []string
		for i, t := range stats.ReachTiles {
			reach = append(reach, fmt.Sprintf("%d %.0f%%", t, 100*sum.Reach[i]))
		}
		fmt.Fprintf(stdout, "reach   %s\n", strings.Join(reach, ", "))
		cpuOf := ""
		if x != nil {
			cpuOf = " of evotune (the player's not counted)"
		}
		fmt.Fprintf(stdout, "speed   %.0f moves/s (%d moves in %.1f s), CPU%s %.4f ms/move\n", mps, sum.Moves, elapsed, cpuOf, cpuPerMove)
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
	// Player is the external player that played, if one did.
	Player *playerJSON `json:"player,omitempty"`
}

type gameJSON struct {
	Seed    uint64 `json:"seed"`
	Score   int    `json:"score"`
	MaxTile int    `json:"max_tile"`
	Moves   int    `json:"moves"`
}

// gameSeeds returns the seeds of games from..to-1 of base seed seed, as
// play numbers them.
func gameSeeds(seed uint64, from, to int) []uint64 {
	seeds := make([]uint64, to-from)
	for i := range seeds {
		seeds[i] = engine.GameSeed(seed, uint64(from+i))
	}
	return seeds
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

func writePlayJSON(w io.Writer, s stats.Summary, mps, cpuPerMove float64, results []engine.Result, x *extPlayer) error {
	out := playJSON{Games: s.Games, Mean: s.Mean, CI95: s.CI95, Median: s.Median, Reach: reachJSON(s.Reach), MovesPerSec: mps, CPUMSPerMove: cpuPerMove}
	if x != nil {
		out.Player = x.json()
	}
	for _, r := range results {
		out.PerGame = append(out.PerGame, gameJSON{Seed: r.Seed, Score: r.Score, MaxTile: r.MaxTile, Moves: r.Moves})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
