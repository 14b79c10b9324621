package eval

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/internal/refboard"
)

// randomWeights draws a weight vector with mixed signs and magnitudes.
func randomWeights(rng *rand.Rand, n int) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = (rng.Float64()*2 - 1) * math.Pow(10, float64(rng.IntN(7)-2))
	}
	return w
}

// closeTo compares a compiled value with the reference sum, relative to the
// size of the terms (the sum can cancel to near zero).
func closeTo(got, want float64, w, f []float64) bool {
	scale := 0.0
	for i := range w {
		scale += math.Abs(w[i] * f[i])
	}
	return math.Abs(got-want) <= 1e-9*scale
}

// ownTests names the sets whose arithmetic the generic tests below cannot
// check exactly, with the tests that check them instead: nneonneo computes
// in float32, as the program it mirrors does, so its features and values
// match a float64 reference only within rounding.
var ownTests = map[string]string{
	"nneonneo": "TestNneonneoDifferential, TestNneonneoEveryLine, TestNneonneoScaleAndSymmetry, TestNneonneoMatchesProgram",
}

func TestDifferential(t *testing.T) {
	const boards = 100_000
	for _, s := range registry {
		if ownTests[s.Name] != "" {
			continue
		}
		ref := reference[s.Name]
		if ref == nil {
			t.Fatalf("set %s has no reference implementation in the tests", s.Name)
		}
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(1, uint64(len(s.Name))))
			var c engine.Evaluator
			var w []float64
			var f []float64
			for i := range boards {
				if i%1000 == 0 {
					w = randomWeights(rng, len(s.Features))
					var err error
					if c, err = s.Compile(w); err != nil {
						t.Fatal(err)
					}
				}
				b := refboard.Shaped[engine.Board](rng)
				want := ref(b.Grid())
				f = s.FeatureVector(b, nil, f)
				if !slices.Equal(f, want) {
					t.Fatalf("%s: features %v, reference %v", b, f, want)
				}
				if got, wantV := c.Evaluate(b), Value(w, want); !closeTo(got, wantV, w, want) {
					t.Fatalf("%s: weights %v: Evaluate = %v, reference %v", b, w, got, wantV)
				}
			}
		})
	}
}

// The tables are built from every 16-bit line, so also run every line once
// as each row and each column of an otherwise empty board.
func TestEveryLine(t *testing.T) {
	for _, s := range registry {
		if ownTests[s.Name] != "" {
			continue
		}
		ref := reference[s.Name]
		c, err := s.Compile(s.Defaults)
		if err != nil {
			t.Fatal(err)
		}
		var f []float64
		for line := range 1 << 16 {
			for _, b := range []engine.Board{engine.Board(line) << 32, (engine.Board(line) << 16).Transpose()} {
				want := ref(b.Grid())
				if f = s.FeatureVector(b, nil, f); !slices.Equal(f, want) {
					t.Fatalf("%s: %s: features %v, reference %v", s.Name, b, f, want)
				}
				if got, wantV := c.Evaluate(b), Value(s.Defaults, want); !closeTo(got, wantV, s.Defaults, want) {
					t.Fatalf("%s: %s: Evaluate = %v, reference %v", s.Name, b, got, wantV)
				}
			}
		}
	}
}

func TestGameBoards(t *testing.T) {
	boards := gameBoards(3)
	for _, s := range registry {
		if ownTests[s.Name] != "" {
			continue
		}
		ref := reference[s.Name]
		for _, b := range boards {
			want := ref(b.Grid())
			if got := s.FeatureVector(b, nil, nil); !slices.Equal(got, want) {
				t.Fatalf("%s: %s: features %v, reference %v", s.Name, b, got, want)
			}
		}
	}
}

// TestClassicSetMatchesClassic checks that the classic set with its
// default weights is the fixed reference evaluator exactly:
// 27*empty + 10*mono + 3*smooth, in integers.
func TestClassicSetMatchesClassic(t *testing.T) {
	c, err := Lookup("classic")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2, 2))
	for range 20_000 {
		b := refboard.Shaped[engine.Board](rng)
		f := refClassic(b.Grid())
		if got, want := c.Evaluate(b), float64(27*int(f[0])+10*int(f[1])+3*int(f[2])); got != want {
			t.Fatalf("%s: classic set %v, 27·empty + 10·mono + 3·smooth = %v", b, got, want)
		}
	}
}

func TestSymmetry(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, s := range registry {
		if !s.Symmetric {
			continue
		}
		w := randomWeights(rng, len(s.Features))
		c, err := s.Compile(w)
		if err != nil {
			t.Fatal(err)
		}
		for range 5_000 {
			b := refboard.Shaped[engine.Board](rng)
			f0 := s.FeatureVector(b, nil, nil)
			v0 := c.Evaluate(b)
			for i := 1; i < 8; i++ {
				sb := b.Symmetry(i)
				if f := s.FeatureVector(sb, nil, nil); !slices.Equal(f, f0) {
					t.Fatalf("%s: %s under symmetry %d: features %v, want %v", s.Name, b, i, f, f0)
				}
				if v := c.Evaluate(sb); !closeTo(v, v0, w, f0) {
					t.Fatalf("%s: %s under symmetry %d: value %v, want %v", s.Name, b, i, v, v0)
				}
			}
		}
	}
}

func TestScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, s := range registry {
		if !s.ScaleInvariant || ownTests[s.Name] != "" {
			continue
		}
		w := randomWeights(rng, len(s.Features))
		k := 3.7
		kw := make([]float64, len(w))
		for i := range w {
			kw[i] = k * w[i]
		}
		c1, _ := s.Compile(w)
		ck, _ := s.Compile(kw)
		for range 1_000 {
			b := refboard.Shaped[engine.Board](rng)
			f := s.FeatureVector(b, nil, nil)
			if !closeTo(ck.Evaluate(b), k*c1.Evaluate(b), kw, f) {
				t.Fatalf("%s: %s: value with weights ×%v is %v, want %v", s.Name, b, k, ck.Evaluate(b), k*c1.Evaluate(b))
			}
		}
	}
}

func TestNormalize(t *testing.T) {
	s, _ := Set("standard")
	w := []float64{4.7, 1.1, 27, 10, 7}
	n, err := s.Normalize(w)
	if err != nil {
		t.Fatal(err)
	}
	if n[s.ReferenceIndex()] != s.Defaults[s.ReferenceIndex()] {
		t.Errorf("Normalize: reference weight %v, want %v", n[s.ReferenceIndex()], s.Defaults[s.ReferenceIndex()])
	}
	for i := range n {
		if math.Abs(n[i]-s.Defaults[i]) > 1e-12*s.Defaults[i] {
			t.Errorf("Normalize(%v) = %v, want %v", w, n, s.Defaults)
		}
	}
	w[s.ReferenceIndex()] = -1
	if _, err := s.Normalize(w); !errors.Is(err, ErrWeights) {
		t.Errorf("Normalize with a negative reference: err = %v, want ErrWeights", err)
	}
	for _, set := range registry {
		if set.Defaults[set.ReferenceIndex()] <= 0 {
			t.Errorf("%s: default reference weight %v, want > 0", set.Name, set.Defaults[set.ReferenceIndex()])
		}
	}
}

func TestCompileRejects(t *testing.T) {
	s, _ := Set("standard")
	for _, w := range [][]float64{nil, {1, 2, 3, 4}, {1, 2, 3, 4, 5, 6}, {1, math.NaN(), 3, 4, 5}, {1, 2, math.Inf(-1), 4, 5}} {
		if _, err := s.Compile(w); !errors.Is(err, ErrWeights) {
			t.Errorf("Compile(%v): err = %v, want ErrWeights", w, err)
		}
	}
}

func TestRegistry(t *testing.T) {
	if got := Names(); !slices.Equal(got, []string{"classic", "standard", "nneonneo"}) {
		t.Errorf("Names() = %v", got)
	}
	for _, name := range Names() {
		s, err := Set(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Defaults) != len(s.Features) || s.ReferenceIndex() < 0 || s.ReferenceIndex() >= len(s.Features) {
			t.Errorf("%s: %d defaults, %d features, reference %d", name, len(s.Defaults), len(s.Features), s.ReferenceIndex())
		}
		seen := map[string]bool{}
		for _, f := range s.Features {
			if f.Name == "" || f.Definition == "" || seen[f.Name] {
				t.Errorf("%s: feature %q: empty or duplicate name or definition", name, f.Name)
			}
			seen[f.Name] = true
		}
		e, err := Lookup(name)
		if err != nil || e == nil {
			t.Errorf("Lookup(%q) = %v, %v", name, e, err)
		}
	}
	if _, err := Lookup("nope"); !errors.Is(err, ErrUnknown) {
		t.Errorf("Lookup(nope): err = %v, want ErrUnknown", err)
	}
	if e1, _ := Lookup("standard"); e1 != engine.Evaluator(standardSet.Default()) {
		t.Error("Lookup(standard) compiles anew each time")
	}
}

func TestEvaluateDoesNotAllocate(t *testing.T) {
	boards := gameBoards(1)
	for _, s := range registry {
		c := s.Default()
		f := make([]float64, len(s.Features))
		var sink float64
		if n := testing.AllocsPerRun(10, func() {
			for _, b := range boards {
				sink += c.Evaluate(b)
				f = s.FeatureVector(b, nil, f)
			}
		}); n != 0 {
			t.Errorf("%s: %v allocations per run of Evaluate and Features", s.Name, n)
		}
		_ = sink
	}
}

// TestConcurrentUse shares default and compiled evaluators between
// goroutines; run with -race.
func TestConcurrentUse(t *testing.T) {
	boards := gameBoards(1)
	c, _ := standardSet.Compile([]float64{1, 2, 3, 4, 5})
	want := make([]float64, len(boards))
	for i, b := range boards {
		want[i] = c.Evaluate(b)
	}
	done := make(chan error, 4)
	for range 4 {
		go func() {
			e, err := Lookup("standard")
			if err == nil {
				for i, b := range boards {
					e.Evaluate(b)
					if c.Evaluate(b) != want[i] {
						err = errors.New("values differ between goroutines")
						break
					}
				}
			}
			done <- err
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// TestCornerKeysFromColumns checks the standard set's claim that its
// corner key read from the columns (Lines.ColKeys) is the key read from
// the rows, which the leaf layer relies on for vertical moves.
func TestCornerKeysFromColumns(t *testing.T) {
	s, err := Lookup("standard")
	if err != nil {
		t.Fatal(err)
	}
	l := s.(engine.LineEvaluator).Lines()
	key := func(keys [4]*[1 << 16]uint8, x uint64) uint8 {
		return max(keys[0][uint16(x)], keys[1][uint16(x>>16)], keys[2][uint16(x>>32)], keys[3][uint16(x>>48)])
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for range 200_000 {
		b := refboard.Shaped[engine.Board](rng)
		if rng.IntN(2) == 0 {
			b = engine.Board(rng.Uint64())
		}
		if r, c := key(l.Keys, uint64(b)), key(l.ColKeys, uint64(b.Transpose())); r != c {
			t.Fatalf("%v: corner key %d from the rows, %d from the columns", b.Hex(), r, c)
		}
	}
}
