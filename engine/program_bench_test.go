package engine_test

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

var (
	progPositions = flag.String("progpos", "", "BenchmarkProgramPositions: positions written by nn-harness --positions 1")
	progWeights   = flag.String("progweights", "", "BenchmarkProgramPositions: a weights file (default: the standard set's defaults)")
	progDepth     = flag.Int("progdepth", 5, "BenchmarkProgramPositions: plies")
	progTable     = flag.Int("progtable", -1, "BenchmarkProgramPositions: log2 table entries (-1: the players' default)")
)

// BenchmarkProgramPositions searches the positions of nneonneo/2048-ai's
// own games (its harness's --positions 1: every position, game by game)
// as a player of this engine would meet them: the players' search at
// -progdepth plies (move scores, loss value, table kept for a game and the
// cutoff of its depth), with the weights of -progweights. It reports the
// CPU a move, to set beside the program's own figure for those games
// (docs/measurements.md, "The leaf layer"):
//
//	go test ./engine -run '^$' -bench ProgramPositions -benchtime 1x \
//	    -progpos cap2.tsv -progdepth 5 -progweights weights.yaml
func BenchmarkProgramPositions(b *testing.B) {
	if *progPositions == "" {
		b.Skip("no -progpos file")
	}
	e := progEvaluator(b)
	pos := loadProgramPositions(b, *progPositions)
	s, err := engine.NewSearcher(e, progConfig())
	if err != nil {
		b.Fatal(err)
	}
	benchSearcherPositions(b, s.(*engine.Expectimax), pos)
	b.ReportMetric(float64(len(pos)), "moves/op")
}

// progConfig is the players' search at -progdepth plies, with the table
// of -progtable.
func progConfig() engine.SearchConfig {
	cfg := engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: *progDepth, LossValue: engine.DefaultLossValue}.WithPlayDefaults()
	if *progTable >= 0 {
		cfg.TableBits = *progTable
	}
	return cfg
}

// progEvaluator compiles the weights of -progweights, or the standard
// set's defaults.
func progEvaluator(b *testing.B) engine.Evaluator {
	if *progWeights == "" {
		set, err := eval.Set("standard")
		if err != nil {
			b.Fatal(err)
		}
		return set.Default()
	}
	wf, err := eval.ReadWeightsFile(*progWeights)
	if err != nil {
		b.Fatal(err)
	}
	e, err := wf.Compile()
	if err != nil {
		b.Fatal(err)
	}
	return e
}

// loadProgramPositions reads the harness's "board seed moves" lines.
func loadProgramPositions(tb testing.TB, path string) []position {
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []position
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 {
			tb.Fatalf("%s:%d: want board seed moves", path, line)
		}
		b, err1 := engine.ParseBoard(fields[0])
		seed, err2 := strconv.ParseUint(fields[1], 10, 64)
		move, err3 := strconv.Atoi(fields[2])
		if err1 != nil || err2 != nil || err3 != nil {
			tb.Fatalf("%s:%d: bad board, seed or move", path, line)
		}
		out = append(out, position{"program", seed, move, b})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

var (
	progGames = flag.Int("proggames", 10, "BenchmarkProgramGames: games per op")
	progDump  = flag.String("progdump", "", "BenchmarkProgramGames: write every position played to this file, as nn-harness --positions 1 does")
)

// BenchmarkProgramGames plays seeded games (base seed 1) with the players'
// search at -progdepth plies and the weights of -progweights, the games
// `evotune play --seed 1` plays, and reports the CPU a move. With -progdump
// it writes the positions of its first pass in the format of the
// program's harness, so that the program can search them too (its values
// mode) and the two be compared on this engine's positions:
//
//	go test ./engine -run '^$' -bench ProgramGames -benchtime 1x \
//	    -progdepth 5 -proggames 20 -progweights weights.yaml -progdump own5.tsv
func BenchmarkProgramGames(b *testing.B) {
	if *progDump != "" {
		dumpPositions(b)
	}
	e := progEvaluator(b)
	s, err := engine.NewSearcher(e, progConfig())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	moves := 0
	cpu0 := engine.CPUTime(b)
	for b.Loop() {
		for i := range *progGames {
			moves += engine.Play(engine.GameSeed(1, uint64(i)), s).Moves
		}
	}
	b.ReportMetric(float64((engine.CPUTime(b)-cpu0).Nanoseconds())/float64(moves), "cpu-ns/move")
	b.ReportMetric(float64(moves)/float64(b.N), "moves/op")
}

// dumpPositions writes the positions of the games BenchmarkProgramGames
// plays, "board seed moves" after a header line, game by game.
func dumpPositions(b *testing.B) {
	s, err := engine.NewSearcher(progEvaluator(b), progConfig())
	if err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "# board\tseed\tmoves (every position of %d games at %d plies)\n", *progGames, *progDepth)
	for i := range *progGames {
		seed := engine.GameSeed(1, uint64(i))
		rec := &recorder{p: s, seed: uint64(i + 1), out: &sb}
		engine.Play(seed, rec)
	}
	if err := os.WriteFile(*progDump, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
}

// recorder is a Player that writes each board it is asked about.
type recorder struct {
	p     engine.Player
	seed  uint64
	moves int
	out   *strings.Builder
}

func (r *recorder) Move(b engine.Board) engine.Dir {
	r.moves++
	fmt.Fprintf(r.out, "%s\t%d\t%d\n", b.Hex(), r.seed, r.moves)
	return r.p.Move(b)
}

// Reset passes a new game on to the player.
func (r *recorder) Reset() {
	if x, ok := r.p.(engine.Resetter); ok {
		x.Reset()
	}
}
