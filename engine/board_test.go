package engine

import (
	"errors"
	"testing"

	"github.com/evotune/evotune/internal/refboard"
)

func TestParseBoard(t *testing.T) {
	tests := []struct {
		in   string
		want Board
	}{
		{"0x654321", 0x654321},
		{"2 4 8 16/32 64 0 0/0 0 0 0/0 0 0 0", 0x654321},
		{"2 4 8 16/32 64 . _/0 0 0 0/0 0 0 0", 0x654321},
		{"0xffffffffffffffff", 0xffffffffffffffff},
		{"0x0", 0},
		{"0 0 0 0/0 0 0 0/0 0 0 0/0 0 0 32768", 0xf000000000000000},
		{" 2 0 0 0\n0 0 0 0\n0 0 0 0\n0 0 0 2 ", 0x1000000000000001},
	}
	for _, tt := range tests {
		got, err := ParseBoard(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseBoard(%q) = %v, %v; want %v", tt.in, got.Hex(), err, tt.want.Hex())
		}
	}
	bad := []string{
		"", "0x", "0x12345678901234567", "0xg1", "1 2 3", "2 4 8 16/32 64 0 0/0 0 0 0",
		"3 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0", "65536 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0",
		"1 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0", "-2 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0",
		"x 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0", "2 0 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0",
	}
	for _, in := range bad {
		if b, err := ParseBoard(in); err == nil || !errors.Is(err, ErrBoard) {
			t.Errorf("ParseBoard(%q) = %v, %v; want an ErrBoard error", in, b.Hex(), err)
		}
	}
}

func TestBoardTextRoundTrip(t *testing.T) {
	for _, b := range refboard.Mixed[Board](7, 2000) {
		for _, s := range []string{b.Hex(), b.String()} {
			got, err := ParseBoard(s)
			if err != nil || got != b {
				t.Fatalf("ParseBoard(%q) = %v, %v; want %v", s, got.Hex(), err, b.Hex())
			}
		}
	}
	if got, want := Board(0x654321).String(), "2 4 8 16/32 64 0 0/0 0 0 0/0 0 0 0"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestCountEmptyAndMaxRank(t *testing.T) {
	for _, b := range refboard.Mixed[Board](3, 5000) {
		g := refboard.Of(b)
		empty, maxRank := g.CountEmpty(), g.MaxRank()
		if b.CountEmpty() != empty || b.MaxRank() != maxRank {
			t.Fatalf("%v: CountEmpty, MaxRank = %d, %d; want %d, %d", b.Hex(), b.CountEmpty(), b.MaxRank(), empty, maxRank)
		}
	}
}

// TestMovesDifferential compares the table moves with the grid twin on
// 100,000+ random boards in all four directions: board, score and legality.
func TestMovesDifferential(t *testing.T) {
	boards := refboard.Mixed[Board](1, 100_000)
	for _, b := range boards {
		checkMove(t, b)
	}
}

func checkMove(t *testing.T, b Board) {
	t.Helper()
	g := refboard.Of(b)
	for _, d := range Dirs {
		nb, score, ok := b.Move(d)
		wg, wscore, wok := g.Move(d)
		if want := Board(wg.Bits()); nb != want || score != wscore || ok != wok {
			t.Fatalf("%v.Move(%v) = %v, %d, %v; want %v, %d, %v", b.Hex(), d, nb.Hex(), score, ok, want.Hex(), wscore, wok)
		}
	}
	if b.CanMove() != g.CanMove() {
		t.Fatalf("%v.CanMove() = %v, want %v", b.Hex(), b.CanMove(), g.CanMove())
	}
}

func FuzzMove(f *testing.F) {
	for _, b := range refboard.Mixed[Board](5, 20) {
		f.Add(uint64(b))
	}
	f.Add(uint64(0xffffffffffffffff))
	f.Fuzz(func(t *testing.T, x uint64) {
		b := Board(x)
		checkMove(t, b)
		// A move never loses tile mass: the sum of tile values is preserved.
		for _, d := range Dirs {
			nb, _, _ := b.Move(d)
			if tileMass(nb) != tileMass(b) {
				t.Fatalf("%v.Move(%v) changed tile mass %d -> %d", b.Hex(), d, tileMass(b), tileMass(nb))
			}
		}
	})
}

func tileMass(b Board) int {
	m := 0
	for x := uint64(b); x != 0; x >>= 4 {
		m += tileValue(int(x & 0xf))
	}
	return m
}

func TestMoveRules(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		d     Dir
		want  string
		score int
		legal bool
	}{
		{"merge first pair", "2 2 2 0/0 0 0 0/0 0 0 0/0 0 0 0", Left, "4 2 0 0/0 0 0 0/0 0 0 0/0 0 0 0", 4, true},
		{"merge once each", "2 2 2 2/0 0 0 0/0 0 0 0/0 0 0 0", Left, "4 4 0 0/0 0 0 0/0 0 0 0/0 0 0 0", 8, true},
		{"right merges from the right", "2 2 2 0/0 0 0 0/0 0 0 0/0 0 0 0", Right, "0 0 2 4/0 0 0 0/0 0 0 0/0 0 0 0", 4, true},
		{"no merge of new tile", "4 2 2 0/0 0 0 0/0 0 0 0/0 0 0 0", Left, "4 4 0 0/0 0 0 0/0 0 0 0/0 0 0 0", 4, true},
		{"gap then merge", "2 0 0 2/0 0 0 0/0 0 0 0/0 0 0 0", Left, "4 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0", 4, true},
		{"32768 pair does not merge", "32768 32768 0 0/0 0 0 0/0 0 0 0/0 0 0 0", Left, "32768 32768 0 0/0 0 0 0/0 0 0 0/0 0 0 0", 0, false},
		{"32768 pair slides", "0 32768 32768 0/0 0 0 0/0 0 0 0/0 0 0 0", Left, "32768 32768 0 0/0 0 0 0/0 0 0 0/0 0 0 0", 0, true},
		{"16384 pair makes 32768", "16384 16384 16384 16384/0 0 0 0/0 0 0 0/0 0 0 0", Left, "32768 32768 0 0/0 0 0 0/0 0 0 0/0 0 0 0", 65536, true},
		{"nothing moves: illegal", "2 4 0 0/0 0 0 0/0 0 0 0/0 0 0 0", Left, "2 4 0 0/0 0 0 0/0 0 0 0/0 0 0 0", 0, false},
		{"up merges toward row 0", "2 0 0 0/2 0 0 0/2 0 0 0/0 0 0 0", Up, "4 0 0 0/2 0 0 0/0 0 0 0/0 0 0 0", 4, true},
		{"down merges toward row 3", "2 0 0 0/2 0 0 0/2 0 0 0/0 0 0 0", Down, "0 0 0 0/0 0 0 0/2 0 0 0/4 0 0 0", 4, true},
		{"full board, no move", "2 4 2 4/4 2 4 2/2 4 2 4/4 2 4 2", Up, "2 4 2 4/4 2 4 2/2 4 2 4/4 2 4 2", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, want := mustParse(t, tt.in), mustParse(t, tt.want)
			nb, score, ok := b.Move(tt.d)
			if nb != want || score != tt.score || ok != tt.legal {
				t.Errorf("Move(%v) = %v, %d, %v; want %v, %d, %v", tt.d, nb, score, ok, want, tt.score, tt.legal)
			}
		})
	}
	if Board(0).CanMove() {
		t.Error("CanMove() on the empty board = true")
	}
	if mustParse(t, "2 4 2 4/4 2 4 2/2 4 2 4/4 2 4 2").CanMove() {
		t.Error("CanMove() on a full board with no equal neighbours = true")
	}
}

func mustParse(t testing.TB, s string) Board {
	t.Helper()
	b, err := ParseBoard(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// symDir maps a direction through Symmetry(i): mirroring rows swaps left and
// right, mirroring columns swaps up and down, transposing swaps the axes.
func symDir(d Dir, i int) Dir {
	if i&1 != 0 {
		d = map[Dir]Dir{Up: Up, Down: Down, Left: Right, Right: Left}[d]
	}
	if i&2 != 0 {
		d = map[Dir]Dir{Up: Down, Down: Up, Left: Left, Right: Right}[d]
	}
	if i&4 != 0 {
		d = map[Dir]Dir{Up: Left, Left: Up, Down: Right, Right: Down}[d]
	}
	return d
}

func TestSymmetries(t *testing.T) {
	for _, b := range refboard.Mixed[Board](11, 20_000) {
		g := refboard.Of(b)
		var tr, mh, mv, rot refboard.Grid
		for r := range 4 {
			for c := range 4 {
				tr[c][r] = g[r][c]
				mh[r][3-c] = g[r][c]
				mv[3-r][c] = g[r][c]
				rot[c][3-r] = g[r][c]
			}
		}
		if b.Transpose() != Board(tr.Bits()) || b.MirrorH() != Board(mh.Bits()) || b.MirrorV() != Board(mv.Bits()) || b.Rotate() != Board(rot.Bits()) {
			t.Fatalf("%v: a symmetry disagrees with the grid twin", b.Hex())
		}
		for i := range 8 {
			s := b.Symmetry(i)
			if s.CountEmpty() != b.CountEmpty() || tileMass(s) != tileMass(b) {
				t.Fatalf("%v.Symmetry(%d) lost tiles", b.Hex(), i)
			}
			// Moves commute with the symmetries.
			for _, d := range Dirs {
				nb, score, ok := b.Move(d)
				snb, sscore, sok := s.Move(symDir(d, i))
				if nb.Symmetry(i) != snb || score != sscore || ok != sok {
					t.Fatalf("%v: Move(%v) does not commute with Symmetry(%d)", b.Hex(), d, i)
				}
			}
		}
		if b.Rotate().Rotate().Rotate().Rotate() != b {
			t.Fatalf("%v: four rotations are not the identity", b.Hex())
		}
	}
	// The 8 symmetries of an asymmetric board are distinct.
	b := mustParse(t, "2 4 8 16/32 64 0 0/0 0 0 0/0 0 0 0")
	seen := map[Board]bool{}
	for i := range 8 {
		seen[b.Symmetry(i)] = true
	}
	if len(seen) != 8 {
		t.Errorf("asymmetric board has %d distinct images, want 8", len(seen))
	}
}

// TestMovesEveryRow checks the row tables whole: every row, placed in each
// row and each column of an otherwise empty board, against the grid twin.
func TestMovesEveryRow(t *testing.T) {
	for row := range 1 << 16 {
		for i := range 4 {
			b := Board(row) << (16 * i)
			checkMove(t, b)
			checkMove(t, b.Transpose())
		}
	}
}
