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

// The positions file holds runs of consecutive positions from real games
// at four stages, for the benchmarks that choose the table policy: the
// searchers spend their time on boards like these, not on the opening. A run
// is a few moves in a row of one game, so a table kept across moves meets
// what it would meet in play.
const positionsFile = "testdata/positions.txt"

var updatePositions = flag.Bool("update-positions", false, "regenerate "+positionsFile+" by playing seeded games")

// The stages: a run starts at move 40, or at the first position on which
// the tile is present.
var positionStages = []struct {
	name string
	tile int // 0: the early stage
}{{"early", 0}, {"1024", 1024}, {"4096", 4096}, {"8192", 8192}}

const (
	positionRuns   = 8 // games per stage
	positionRunLen = 6 // consecutive positions per run
)

// positionWeights are standard-set weights (monotonicity, smoothness, empty,
// corner, merge) from a run of the quick preset, its distribution mean at
// generation 21: the player that makes the positions must reach 8192 now
// and then at 3 plies, which the hand-set defaults rarely do.
var positionWeights = []float64{86.7, 3.9, 40.0, 132.2, 66.4}

type position struct {
	stage string
	seed  uint64
	move  int
	board engine.Board
}

func TestPositionsFile(t *testing.T) {
	if *updatePositions {
		writePositions(t)
	}
	pos := loadPositions(t)
	if want := len(positionStages) * positionRuns * positionRunLen; len(pos) != want {
		t.Fatalf("%s: %d positions, want %d", positionsFile, len(pos), want)
	}
	for i, p := range pos {
		if !p.board.CanMove() {
			t.Fatalf("%s: position %d (%v) has no legal move", positionsFile, i+1, p.board.Hex())
		}
	}
}

// writePositions plays games 0, 1, 2, ... of base seed 2048 at 3 plies and
// keeps the first positionRuns runs of each stage.
func writePositions(t *testing.T) {
	set, err := eval.Set("standard")
	if err != nil {
		t.Fatal(err)
	}
	e, err := set.Compile(positionWeights)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := engine.NewExpectimax(e, engine.ExpectimaxOptions{Depth: 3, LossValue: engine.DefaultLossValue})
	runs := make([][]position, len(positionStages))
	full := func() bool {
		for _, r := range runs {
			if len(r) < positionRuns*positionRunLen {
				return false
			}
		}
		return true
	}
	for i := uint64(0); !full(); i++ {
		if i == 5000 {
			t.Fatalf("5000 games did not fill every stage: %d, %d, %d, %d positions", len(runs[0]), len(runs[1]), len(runs[2]), len(runs[3]))
		}
		seed := engine.GameSeed(2048, i)
		rng := engine.NewGameRand(seed)
		b := engine.NewGameBoard(rng)
		start := make([]int, len(positionStages)) // move at which each stage's run began, -1 before
		for k := range start {
			start[k] = -1
		}
		for move := 0; b.CanMove(); move++ {
			for k, st := range positionStages {
				if start[k] < 0 && len(runs[k]) < positionRuns*positionRunLen &&
					(st.tile == 0 && move == 40 || st.tile > 0 && b.MaxTile() >= st.tile) {
					start[k] = move
				}
				if start[k] >= 0 && move < start[k]+positionRunLen {
					runs[k] = append(runs[k], position{st.name, seed, move, b})
				}
			}
			nb, _, _ := b.Move(s.Move(b))
			b = nb.Spawn(rng.Uint64())
		}
		for k := range runs { // a run cut short by the game's end is dropped
			if start[k] >= 0 && len(runs[k])%positionRunLen != 0 {
				runs[k] = runs[k][:len(runs[k])/positionRunLen*positionRunLen]
			}
		}
	}
	var sb strings.Builder
	sb.WriteString("# Positions from seeded games for the search benchmarks: stage seed move board.\n")
	sb.WriteString("# Regenerate with go test ./engine -run TestPositionsFile -update-positions.\n")
	for _, r := range runs {
		for _, p := range r {
			fmt.Fprintf(&sb, "%s %d %d %s\n", p.stage, p.seed, p.move, p.board.Hex())
		}
	}
	if err := os.WriteFile(positionsFile, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func loadPositions(tb testing.TB) []position {
	f, err := os.Open(positionsFile)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []position
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Fields(text)
		if len(fields) != 4 {
			tb.Fatalf("%s:%d: want stage seed move board", positionsFile, line)
		}
		seed, err1 := strconv.ParseUint(fields[1], 10, 64)
		move, err2 := strconv.Atoi(fields[2])
		b, err3 := engine.ParseBoard(fields[3])
		if err1 != nil || err2 != nil || err3 != nil {
			tb.Fatalf("%s:%d: bad seed, move or board", positionsFile, line)
		}
		out = append(out, position{fields[0], seed, move, b})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}
