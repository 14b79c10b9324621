package engine

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/evotune/evotune/internal/refboard"
)

// firstLegal plays the first legal direction: a fast, simple player.
type firstLegal struct{}

func (firstLegal) Move(b Board) Dir {
	for _, d := range Dirs {
		if _, _, ok := b.Move(d); ok {
			return d
		}
	}
	panic("no legal move")
}

// randomPlayer plays a uniformly random legal move from its own stream.
type randomPlayer struct{ rng *rand.Rand }

func (p *randomPlayer) Reset() { p.rng = rand.New(rand.NewPCG(7, 7)) }
func (p *randomPlayer) Move(b Board) Dir {
	for {
		d := Dirs[p.rng.IntN(4)]
		if _, _, ok := b.Move(d); ok {
			return d
		}
	}
}

// chiSquareBound is a bound on a chi-square statistic with k degrees of
// freedom that a correct implementation exceeds with probability far below
// 1e-9 (Wilson-Hilferty with z = 7), so the test never flakes.
func chiSquareBound(k int) float64 {
	kf := float64(k)
	z := 7.0
	return kf * math.Pow(1-2/(9*kf)+z*math.Sqrt(2/(9*kf)), 3)
}

func TestSpawnStatistics(t *testing.T) {
	rng := NewGameRand(12345)
	boards := []Board{0, 0x0000000000001111, 0x0110011001100110, 0xfffffffffffff0ff}
	for _, b := range boards {
		empty := b.CountEmpty()
		const n = 200_000
		cells := map[int]int{}
		fours := 0
		for range n {
			nb := b.Spawn(rng.Uint64())
			diff := uint64(nb ^ b)
			if diff == 0 || b&Board(diff) != 0 {
				t.Fatalf("%v: spawn %v did not fill an empty cell", b.Hex(), nb.Hex())
			}
			shift := 0
			for diff>>shift&0xf == 0 {
				shift += 4
			}
			if diff>>shift > 0xf {
				t.Fatalf("%v: spawn %v changed more than one cell", b.Hex(), nb.Hex())
			}
			switch diff >> shift {
			case 1:
			case 2:
				fours++
			default:
				t.Fatalf("%v: spawned rank %d", b.Hex(), diff>>shift)
			}
			cells[shift/4]++
		}
		if len(cells) != empty {
			t.Fatalf("%v: spawns hit %d cells, want all %d empty ones", b.Hex(), len(cells), empty)
		}
		chi := 0.0
		want := float64(n) / float64(empty)
		for _, c := range cells {
			chi += (float64(c) - want) * (float64(c) - want) / want
		}
		if empty > 1 && chi > chiSquareBound(empty-1) {
			t.Errorf("%v: cell counts chi-square %.1f > %.1f: not uniform", b.Hex(), chi, chiSquareBound(empty-1))
		}
		e4, e2 := 0.1*n, 0.9*n
		chi = (float64(fours)-e4)*(float64(fours)-e4)/e4 + (float64(n-fours)-e2)*(float64(n-fours)-e2)/e2
		if chi > chiSquareBound(1) {
			t.Errorf("%v: %d fours in %d spawns, chi-square %.1f > %.1f", b.Hex(), fours, n, chi, chiSquareBound(1))
		}
	}
	if full := Board(0x1212212112122121); full.Spawn(42) != full {
		t.Error("Spawn on a full board changed it")
	}
}

// TestSpawnTwin checks Spawn against rules version 1 as its comment states
// them, cell by cell, on random boards (empty and full ones among them) and
// draws.
func TestSpawnTwin(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	boards := append(refboard.Mixed[Board](2, 20_000), 0, 0xfffffffffffffff0, 0x0fffffffffffffff)
	for _, b := range boards {
		for range 8 {
			u := rng.Uint64()
			if got, want := b.Spawn(u), spawnTwin(b, u); got != want {
				t.Fatalf("%v.Spawn(%#x) = %v, want %v", b.Hex(), u, got.Hex(), want.Hex())
			}
		}
	}
}

func spawnTwin(b Board, u uint64) Board {
	var cells []int
	for i := range 16 {
		if b.Cell(i/4, i%4) == 0 {
			cells = append(cells, i)
		}
	}
	if len(cells) == 0 {
		return b
	}
	c := cells[(u>>32)*uint64(len(cells))>>32]
	rank := 1
	if uint32(u) < 429496730 {
		rank = 2
	}
	return b.SetCell(c/4, c%4, rank)
}

func TestNewGameBoard(t *testing.T) {
	for seed := range uint64(1000) {
		b := NewGameBoard(NewGameRand(seed))
		if b.CountEmpty() != 14 || b.MaxRank() > 2 {
			t.Fatalf("seed %d: start board %v, want two tiles of 2 or 4", seed, b)
		}
	}
}

func TestPlayIsPure(t *testing.T) {
	p := &randomPlayer{}
	for seed := range uint64(20) {
		a, b := Play(seed, p), Play(seed, p)
		if a != b {
			t.Fatalf("seed %d: replay differs: %+v vs %+v", seed, a, b)
		}
		if a.Final.CanMove() || a.Moves == 0 || a.MaxTile != a.Final.MaxTile() || a.Seed != seed {
			t.Fatalf("seed %d: result %+v is not a finished game", seed, a)
		}
	}
	if Play(1, firstLegal{}) == Play(2, firstLegal{}) {
		t.Error("seeds 1 and 2 play the same game")
	}
}

// TestPlayScoreAccounting replays a game by hand from the same stream and
// checks Play's score, moves and final board.
func TestPlayScoreAccounting(t *testing.T) {
	const seed = 77
	got := Play(seed, firstLegal{})
	rng := NewGameRand(seed)
	b := NewGameBoard(rng)
	score, moves := 0, 0
	for b.CanMove() {
		g, s, _ := refboard.Of(b).Move(firstLegal{}.Move(b))
		score += s
		moves++
		b = Board(g.Bits()).Spawn(rng.Uint64())
	}
	if got.Score != score || got.Moves != moves || got.Final != b {
		t.Errorf("Play = %+v; by hand score %d, moves %d, final %v", got, score, moves, b.Hex())
	}
	if lim := PlayLimit(seed, firstLegal{}, 10); lim.Moves != 10 || !lim.Final.CanMove() {
		t.Errorf("PlayLimit(10) = %+v", lim)
	}
}

func TestGameSeedSpreads(t *testing.T) {
	seen := map[uint64]bool{}
	for base := range uint64(50) {
		for i := range uint64(200) {
			s := GameSeed(base, i)
			if seen[s] {
				t.Fatalf("GameSeed(%d, %d) repeats a seed", base, i)
			}
			seen[s] = true
		}
	}
}

// TestRulesGolden pins the games a seed produces. If it fails, the rules or
// the spawn procedure changed: that must come with a new RulesVersion, since
// checkpoints and published results depend on it.
func TestRulesGolden(t *testing.T) {
	if RulesVersion != 1 {
		t.Fatalf("RulesVersion %d: update these games for the new rules", RulesVersion)
	}
	tests := []struct {
		seed                  uint64
		score, maxTile, moves int
		final                 Board
	}{
		{1, 428, 32, 69, 0x1214235135134141},
		{2, 1464, 128, 156, 0x1234234534674234},
		{3, 664, 64, 86, 0x1213212142461525},
	}
	for _, tt := range tests {
		r := Play(tt.seed, firstLegal{})
		if r.Score != tt.score || r.MaxTile != tt.maxTile || r.Moves != tt.moves || r.Final != tt.final {
			t.Errorf("seed %d: %+v; rules v1 give score %d, max tile %d, %d moves, final %v", tt.seed, r, tt.score, tt.maxTile, tt.moves, tt.final.Hex())
		}
	}
}
