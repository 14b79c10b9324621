package eval

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/internal/refboard"
)

// refNneonneo is the twin of the nneonneo features, in float64 from the
// definitions on a grid, with math.Pow: its monotonicity and sum may differ
// from the compiled features in the last bits (powRank rounds correctly,
// math.Pow does not).
func refNneonneo(g refboard.Grid, p, q float64) []float64 {
	empty, merges := 0, 0
	mono, sum := 0.0, 0.0
	for _, l := range g.Lines() {
		var ranks []int // the non-empty ranks, in order
		for _, r := range l {
			if r == 0 {
				empty++
			} else {
				ranks = append(ranks, r)
			}
			if r > 0 {
				sum -= math.Pow(float64(r), q)
			}
		}
		for i := 0; i < len(ranks); {
			j := i
			for j < len(ranks) && ranks[j] == ranks[i] {
				j++
			}
			if j-i >= 2 {
				merges += j - i
			}
			i = j
		}
		left, right := 0.0, 0.0
		for i := range 3 {
			a, b := float64(l[i]), float64(l[i+1])
			pa, pb := 0.0, 0.0
			if a > 0 {
				pa = math.Pow(a, p)
			}
			if b > 0 {
				pb = math.Pow(b, p)
			}
			if a > b {
				left += pa - pb
			} else {
				right += pb - pa
			}
		}
		mono -= min(left, right)
	}
	return []float64{8, float64(empty), float64(merges), mono, sum}
}

// refNNProgram is the twin of the compiled value: the program's
// score_heur_board on a grid, its float32 arithmetic written out from
// 2048.cpp (init_tables, score_helper, score_heur_board). It shares powRank
// with the package, which TestPowRank checks on its own; pw holds its
// values for the two parameters, rounded to float32 as the program's
// constants are (see nnPowTables).
func refNNProgram(g refboard.Grid, w []float64, pw [2][16]float64) float32 {
	pow := func(r int, i int) float64 { return pw[i][r] }
	lineValue := func(line [4]int) float32 {
		P, MW, SW, M, E := float32(w[0]), float32(w[3]), float32(w[4]), float32(w[2]), float32(w[1])
		const mp, sp = 0, 1
		var sum float32
		empty, merges, prev, counter := 0, 0, 0, 0
		for i := range 4 {
			rank := line[i]
			sum = float32(float64(sum) + pow(rank, sp))
			if rank == 0 {
				empty++
			} else {
				if prev == rank {
					counter++
				} else if counter > 0 {
					merges += 1 + counter
					counter = 0
				}
				prev = rank
			}
		}
		if counter > 0 {
			merges += 1 + counter
		}
		var ml, mr float32
		for i := 1; i < 4; i++ {
			if line[i-1] > line[i] {
				ml = float32(float64(ml) + (pow(line[i-1], mp) - pow(line[i], mp)))
			} else {
				mr = float32(float64(mr) + (pow(line[i], mp) - pow(line[i-1], mp)))
			}
		}
		mn := ml
		if mr < ml {
			mn = mr
		}
		x := float32(E * float32(empty))
		y := float32(M * float32(merges))
		z := float32(MW * mn)
		u := float32(SW * sum)
		return P + x + y - z - u
	}
	ls := g.Lines()
	var rows, cols float32
	for i := range 4 {
		rows += lineValue(ls[i])
		cols += lineValue(ls[4+i])
	}
	return rows + cols
}

// nnPowTables returns powRank of the ranks 0-15 for the two parameters,
// rounded to float32 first.
func nnPowTables(p []float64) [2][16]float64 {
	var t [2][16]float64
	for i := range t {
		for r := range t[i] {
			t[i][r] = powRank(r, float64(float32(p[i])))
		}
	}
	return t
}

// randomParams draws shape parameters within their bounds, now and then at
// a bound or an integer.
func randomParams(rng *rand.Rand) []float64 {
	p := make([]float64, 2)
	for i := range p {
		switch rng.IntN(4) {
		case 0:
			p[i] = float64(1 + rng.IntN(6))
		default:
			p[i] = 1 + 5*rng.Float64()
		}
	}
	return p
}

// termScale is Σ|w_f·f_f|, the size against which rounding is judged.
func termScale(w, f []float64) float64 {
	s := 0.0
	for i := range w {
		s += math.Abs(w[i] * f[i])
	}
	return s
}

func TestNneonneoDifferential(t *testing.T) {
	s := nneonneoSet
	rng := rand.New(rand.NewPCG(11, 11))
	var f []float64
	for range 150 {
		w := randomWeights(rng, len(s.Features))
		p := randomParams(rng)
		if rng.IntN(5) == 0 {
			w, p = s.Defaults, s.DefaultParams()
		}
		c, err := s.CompileParams(w, p)
		if err != nil {
			t.Fatal(err)
		}
		pf := []float64{float64(float32(p[0])), float64(float32(p[1]))}
		pw := nnPowTables(p)
		for range 600 {
			b := refboard.Shaped[engine.Board](rng)
			want := refNneonneo(b.Grid(), pf[0], pf[1])
			f = s.FeatureVector(b, p, f)
			for i := range f {
				if f[i] != want[i] && !(math.Abs(f[i]-want[i]) <= 1e-12*math.Abs(want[i])) {
					t.Fatalf("%s: params %v: features %v, reference %v", b, p, f, want)
				}
			}
			got := c.Evaluate(b)
			if prog := refNNProgram(b.Grid(), w, pw); got != float64(prog) {
				t.Fatalf("%s: weights %v params %v: Evaluate = %v, the program's arithmetic gives %v", b, w, p, got, prog)
			}
			// The program's float32 arithmetic against the definition.
			if v := Value(w, want); !(math.Abs(got-v) <= 1e-6*termScale(w, want)) {
				t.Fatalf("%s: weights %v params %v: Evaluate = %v, Σ w·f = %v", b, w, p, got, v)
			}
		}
	}
}

// Every line as each row and each column of an otherwise empty board.
func TestNneonneoEveryLine(t *testing.T) {
	s := nneonneoSet
	c := s.Default()
	p := s.DefaultParams()
	pw := nnPowTables(p)
	for line := range 1 << 16 {
		for _, b := range []engine.Board{engine.Board(line) << 32, (engine.Board(line) << 16).Transpose()} {
			if got, want := c.Evaluate(b), refNNProgram(b.Grid(), s.Defaults, pw); got != float64(want) {
				t.Fatalf("%s: Evaluate = %v, the program's arithmetic gives %v", b, got, want)
			}
			f := s.FeatureVector(b, nil, nil)
			want := refNneonneo(b.Grid(), p[0], p[1])
			for i := range f {
				if !(math.Abs(f[i]-want[i]) <= 1e-12*math.Abs(want[i])) {
					t.Fatalf("%s: features %v, reference %v", b, f, want)
				}
			}
		}
	}
}

func TestNneonneoMerges(t *testing.T) {
	for _, tc := range []struct {
		line   [4]int
		merges int
	}{
		{[4]int{1, 0, 1, 2}, 2}, // 2 _ 2 4: one run of two, across the gap
		{[4]int{1, 1, 1, 0}, 3},
		{[4]int{1, 1, 2, 2}, 4},
		{[4]int{1, 2, 1, 2}, 0},
		{[4]int{3, 3, 3, 3}, 4},
		{[4]int{0, 0, 0, 0}, 0},
	} {
		if _, m := nnCounts(tc.line); m != tc.merges {
			t.Errorf("merges of %v = %d, want %d", tc.line, m, tc.merges)
		}
	}
}

// TestPowRank checks the correctly rounded powers against exact values and
// against math.Pow, which is within an ulp or two.
func TestPowRank(t *testing.T) {
	for _, tc := range []struct {
		r    int
		p, v float64
	}{
		{0, 3.5, 0}, {1, 5.75, 1}, {2, 4, 16}, {15, 4, 50625}, {4, 3.5, 128}, {9, 2.5, 243},
		{15, 1.5, 58.09475019311125}, // 15·√15 = 58.094750193111250...
		// 15^3.5 = 13071.318793450031987...: the nearest double is
		// 13071.318793450031, the C library's pow gives the next one up.
		{15, 3.5, 13071.318793450031},
		{2, 3.5, 11.313708498984761}, // 8√2 = 11.3137084989847603904...
	} {
		if got := powRank(tc.r, tc.p); got != tc.v {
			t.Errorf("powRank(%d, %v) = %v, want %v", tc.r, tc.p, got, tc.v)
		}
	}
	rng := rand.New(rand.NewPCG(12, 12))
	for range 300 {
		p := float64(float32(1 + 5*rng.Float64()))
		r := rng.IntN(16)
		got, want := powRank(r, p), math.Pow(float64(r), p)
		if math.Abs(got-want) > 4e-16*want {
			t.Fatalf("powRank(%d, %v) = %v, math.Pow %v", r, p, got, want)
		}
	}
}

func TestNneonneoScaleAndSymmetry(t *testing.T) {
	s := nneonneoSet
	rng := rand.New(rand.NewPCG(13, 13))
	for range 20 {
		w := randomWeights(rng, len(s.Features))
		p := randomParams(rng)
		const k = 3.7
		kw := make([]float64, len(w))
		for i := range w {
			kw[i] = k * w[i]
		}
		c1, _ := s.CompileParams(w, p)
		ck, _ := s.CompileParams(kw, p)
		for range 200 {
			b := refboard.Shaped[engine.Board](rng)
			f := s.FeatureVector(b, p, nil)
			tol := 2e-6 * k * termScale(w, f)
			if d := ck.Evaluate(b) - k*c1.Evaluate(b); !(math.Abs(d) <= tol) {
				t.Fatalf("%s: value with weights ×%v is %v, want %v", b, k, ck.Evaluate(b), k*c1.Evaluate(b))
			}
			for i := 1; i < 8; i++ {
				sb := b.Symmetry(i)
				fs := s.FeatureVector(sb, p, nil)
				for j := range f {
					if !(math.Abs(fs[j]-f[j]) <= 1e-12*math.Abs(f[j])) {
						t.Fatalf("%s under symmetry %d: features %v, want %v", b, i, fs, f)
					}
				}
				if d := c1.Evaluate(sb) - c1.Evaluate(b); !(math.Abs(d) <= 2e-6*termScale(w, f)) {
					t.Fatalf("%s under symmetry %d: value %v, want %v", b, i, c1.Evaluate(sb), c1.Evaluate(b))
				}
			}
		}
	}
}

func TestNneonneoParams(t *testing.T) {
	s := nneonneoSet
	if got := s.ParamNames(); !slices.Equal(got, []string{"monotonicity_power", "sum_power"}) {
		t.Errorf("ParamNames() = %v", got)
	}
	if got := s.DefaultParams(); !slices.Equal(got, []float64{4, 3.5}) {
		t.Errorf("DefaultParams() = %v", got)
	}
	if s.ParamIndex("sum_power") != 1 || s.ParamIndex("power") != -1 {
		t.Error("ParamIndex")
	}
	for _, p := range s.Params {
		if !(p.Min <= p.Default && p.Default <= p.Max) || p.Definition == "" {
			t.Errorf("parameter %+v", p)
		}
	}
	if s.Features[s.ReferenceIndex()].Name != "empty" || !s.ScaleInvariant {
		t.Errorf("reference %d, scale-invariant %v", s.ReferenceIndex(), s.ScaleInvariant)
	}
	// The evaluator computes with the parameters it was compiled with;
	// Default with the defaults.
	c, err := s.CompileParams(s.Defaults, []float64{2, 6})
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range gameBoards(1) {
		if got, want := c.Evaluate(b), refNNProgram(b.Grid(), s.Defaults, nnPowTables([]float64{2, 6})); got != float64(want) {
			t.Fatalf("%s: compiled with parameters 2, 6: %v, want %v", b, got, want)
		}
		if got, want := s.Default().Evaluate(b), refNNProgram(b.Grid(), s.Defaults, nnPowTables([]float64{4, 3.5})); got != float64(want) {
			t.Fatalf("%s: Default: %v, want %v", b, got, want)
		}
		if i == 50 {
			break
		}
	}
	for _, p := range [][]float64{{4}, {4, 3.5, 1}, {0.5, 3.5}, {4, 6.01}, {math.NaN(), 3.5}, {4, math.Inf(1)}} {
		if _, err := s.CompileParams(s.Defaults, p); !errors.Is(err, ErrParams) {
			t.Errorf("CompileParams(defaults, %v): err = %v, want ErrParams", p, err)
		}
	}
	if _, err := s.CompileParams([]float64{1e39, 1, 1, 1, 1}, nil); !errors.Is(err, ErrWeights) {
		t.Errorf("a weight beyond float32: err = %v, want ErrWeights", err)
	}
	// A set without parameters takes none.
	if _, err := standardSet.CompileParams(standardSet.Defaults, []float64{1}); !errors.Is(err, ErrParams) {
		t.Errorf("standard with a parameter: err = %v, want ErrParams", err)
	}
	if c, err := standardSet.CompileParams(standardSet.Defaults, nil); err != nil || c == nil {
		t.Errorf("standard: %v, %v", c, err)
	}
}

func TestNneonneoDoesNotAllocate(t *testing.T) {
	c := nneonneoSet.Default()
	boards := gameBoards(1)
	f := make([]float64, 5)
	var sink float64
	if n := testing.AllocsPerRun(10, func() {
		for _, b := range boards {
			sink += c.Evaluate(b)
			f = nneonneoSet.FeatureVector(b, nil, f)
		}
	}); n != 0 {
		t.Errorf("%v allocations per run of Evaluate and Features", n)
	}
	_ = sink
}

// nnRow is one line of testdata/nneonneo_values.tsv: a board with the
// program's heuristic and root move values under one set of constants at
// one cap.
type nnRow struct {
	line      int
	constants string
	cap       int
	board     engine.Board
	heur      float32
	distinct  int
	values    [4]float32 // by engine.Dir; NaN for an illegal move
	evaluated uint64
}

// nnConstants maps the constants column to weights and parameters.
var nnConstants = map[string][2][]float64{
	"default": {{200000, 270, 700, 47, 11}, {4, 3.5}},
	"alt":     {{150000, 300, 500, 30, 15}, {3.25, 2.8}},
}

func readNNValues(t testing.TB) []nnRow {
	const path = "testdata/nneonneo_values.tsv"
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []nnRow
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		text := sc.Text()
		if strings.HasPrefix(text, "#") || strings.HasPrefix(text, "constants\t") {
			continue
		}
		fs := strings.Split(text, "\t")
		if len(fs) != 10 {
			t.Fatalf("%s:%d: %d fields, want 10", path, n, len(fs))
		}
		r := nnRow{line: n, constants: fs[0]}
		bad := func(err error) {
			if err != nil {
				t.Fatalf("%s:%d: %v", path, n, err)
			}
		}
		r.cap, err = strconv.Atoi(fs[1])
		bad(err)
		r.board, err = engine.ParseBoard(fs[2])
		bad(err)
		h, err := strconv.ParseFloat(fs[3], 32)
		bad(err)
		r.heur = float32(h)
		r.distinct, err = strconv.Atoi(fs[4])
		bad(err)
		for i := range 4 {
			if fs[5+i] == "illegal" {
				r.values[i] = float32(math.NaN())
				continue
			}
			v, err := strconv.ParseFloat(fs[5+i], 32)
			bad(err)
			r.values[i] = float32(v)
		}
		r.evaluated, err = strconv.ParseUint(fs[9], 10, 64)
		bad(err)
		if _, ok := nnConstants[r.constants]; !ok {
			t.Fatalf("%s:%d: unknown constants %q", path, n, r.constants)
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestNneonneoMatchesProgram checks the heuristic against the program's own
// score_heur_board on boards from its games: the goal is agreement to
// float32 rounding (relative 1e-6); the table is built as the program
// builds it, so the values agree bit for bit, and the test asks for that.
func TestNneonneoMatchesProgram(t *testing.T) {
	compiled := map[string]engine.Evaluator{}
	for name, c := range nnConstants {
		var err error
		if compiled[name], err = nneonneoSet.CompileParams(c[0], c[1]); err != nil {
			t.Fatal(err)
		}
	}
	rows := readNNValues(t)
	if len(rows) < 1000 {
		t.Fatalf("%d rows, want the whole table", len(rows))
	}
	for _, r := range rows {
		got := compiled[r.constants].Evaluate(r.board)
		if !(math.Abs(got-float64(r.heur)) <= 1e-6*math.Abs(float64(r.heur))) {
			t.Fatalf("line %d: %s: heuristic %v, the program's %v", r.line, r.board, got, r.heur)
		}
		if got != float64(r.heur) {
			t.Errorf("line %d: %s: heuristic %v, the program's %v: not bit for bit", r.line, r.board, got, r.heur)
		}
	}
}

// TestNneonneoTableMatchesProgram compares whole line tables with the
// program's heur_score_table, by SHA-256 of its 65536 float32s in little
// endian: for the program's constants, as its init_tables fills it, and for
// the alt constants of testdata/nneonneo_values.tsv, as the same loop
// fills it with those constants (both built with the flags of that file).
// math.Pow in place of powRank already changes 49 entries of the first.
func TestNneonneoTableMatchesProgram(t *testing.T) {
	for name, want := range map[string]string{
		"default": "e85b63b405509fe9dbe183bbd5fcae5b7b8123e9b02071450fe9be47f40a5f66",
		"alt":     "3132f82bb92fae3004694162c34b32a021ac6344e9abf8fa34a8c5e41fbd5b03",
	} {
		k := nnConstants[name]
		c, err := nneonneoSet.CompileParams(k[0], k[1])
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 0, 4<<16)
		for _, v := range c.(*compiled).table32 {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
		}
		sum := sha256.Sum256(buf)
		if got := hex.EncodeToString(sum[:]); got != want {
			t.Errorf("%s: table SHA-256 %s, the program's %s", name, got, want)
		}
	}
}

// BenchmarkNneonneoCompile is the cost of one candidate (w, p): the powers,
// correctly rounded, and the line table.
func BenchmarkNneonneoCompile(b *testing.B) {
	rng := rand.New(rand.NewPCG(14, 14))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := nneonneoSet.CompileParams(nneonneoSet.Defaults, randomParams(rng)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNneonneoEvaluate(b *testing.B) {
	benchmarkEvaluate(b, nneonneoSet.Default())
}
