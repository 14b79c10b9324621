package refboard

import (
	"go/parser"
	"go/token"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestOfBits(t *testing.T) {
	const b = uint64(0xfedcba9876543210)
	g := Of(b)
	if g[0][0] != 0 || g[0][1] != 1 || g[1][0] != 4 || g[3][3] != 15 {
		t.Errorf("Of(%#x) = %v", b, g)
	}
	if g.Bits() != b {
		t.Errorf("Of(%#x).Bits() = %#x", b, g.Bits())
	}
	if g.CountEmpty() != 1 || g.MaxRank() != 15 || (Grid{}).MaxRank() != 0 || (Grid{}).CountEmpty() != 16 {
		t.Errorf("CountEmpty, MaxRank = %d, %d", g.CountEmpty(), g.MaxRank())
	}
}

func TestMove(t *testing.T) {
	tests := []struct {
		in, want Grid
		d        dir
		score    int
		ok       bool
	}{
		{Grid{{1, 1, 1, 1}}, Grid{{2, 2}}, "left", 8, true},
		{Grid{{1, 1, 1}}, Grid{{0, 0, 1, 2}}, "right", 4, true},
		{Grid{{2}, {1}, {1}}, Grid{{2}, {2}}, "up", 4, true},
		{Grid{{2}, {1}, {1}}, Grid{{}, {}, {2}, {2}}, "down", 4, true},
		{Grid{{15, 15}}, Grid{{15, 15}}, "left", 0, false},
		{Grid{{1, 2, 1, 2}, {2, 1, 2, 1}, {1, 2, 1, 2}, {2, 1, 2, 1}}, Grid{{1, 2, 1, 2}, {2, 1, 2, 1}, {1, 2, 1, 2}, {2, 1, 2, 1}}, "up", 0, false},
	}
	for _, tt := range tests {
		g, score, ok := tt.in.Move(tt.d)
		if g != tt.want || score != tt.score || ok != tt.ok {
			t.Errorf("%v.Move(%v) = %v, %d, %v; want %v, %d, %v", tt.in, tt.d, g, score, ok, tt.want, tt.score, tt.ok)
		}
	}
	if full := tests[len(tests)-1].in; full.CanMove() {
		t.Errorf("%v.CanMove() = true", full)
	}
}

// TestSequences pins the first boards of each generator: tests choose
// their seeds once, and a generator that drew differently would quietly
// change the boards every one of them checks.
func TestSequences(t *testing.T) {
	if got, want := Mixed[uint64](1, 4), []uint64{0xff4ae39f6bb44fb8, 0x2030021011222313, 0xe4079f49406900d, 0x83cc75a31d585412}; !slices.Equal(got, want) {
		t.Errorf("Mixed(1, 4) = %#x, want %#x", got, want)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	if got, want := []uint64{Random[uint64](rng, 0.4, 11), Random[uint64](rng, 0.4, 11)}, []uint64{0xa80311950535197, 0x40aa050050580067}; !slices.Equal(got, want) {
		t.Errorf("Random = %#x, want %#x", got, want)
	}
	rng = rand.New(rand.NewPCG(1, 2))
	var got []uint64
	for range 4 {
		got = append(got, Shaped[uint64](rng))
	}
	if want := []uint64{0xa9aa8989a8908980, 0x400001003, 0x30000000002, 0x456646544454454}; !slices.Equal(got, want) {
		t.Errorf("Shaped = %#x, want %#x", got, want)
	}
}

// TestTestOnly checks that no production file of the module imports a
// test-only package: a program linking one would grow its flags (golden's
// -update) and carry code that no user asked for.
func TestTestOnly(t *testing.T) {
	testOnly := []string{"github.com/evotune/evotune/internal/refboard", "github.com/evotune/evotune/internal/golden"}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); slices.Contains(testOnly, p) {
				t.Errorf("%s imports %s, which is for tests only", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
