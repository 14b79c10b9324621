package eval

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/evotune/evotune/engine"
)

// The nneonneo set: the heuristic of the public engine nneonneo/2048-ai
// (2048.cpp, score_heur_board), with its two exponents as shape
// parameters. Every feature is a sum over the 8 lines, so a candidate
// compiles into one table of line values, as for standard; but the table is
// built the way that program builds its own, in float32 with the same
// operations in the same order, and Evaluate adds the 8 look-ups in float32
// in the program's order. With the program's constants the table equals the
// program's bit for bit, so this evaluator, and a search that mirrors the
// program's, reproduce its values and hence its move choices exactly, and
// weights tuned here mean the same thing when pasted into it. The program's
// constants are float32, so the compiled evaluator rounds weights and
// parameters to float32 (the features it reports use the rounded powers).
var nneonneoSet = &FeatureSet{
	Name:    "nneonneo",
	Summary: "the heuristic of nneonneo/2048-ai: line offset, empty cells, merges, powered monotonicity and tile sum",
	Features: []Feature{
		{"offset", "1 per line, 8 per board: its weight is what a live board is worth more than a dead one (0)"},
		{"empty", "the empty cells of each line, summed over the 8 lines (2 per empty cell of the board)"},
		{"merges", "Σ over the 8 lines: walk the line's non-empty ranks in order, skipping empty cells; every maximal run of k >= 2 equal consecutive ranks adds k"},
		{"monotonicity", "- Σ over the 8 lines of min(L, R), where over the 3 adjacent pairs (a, b) of the line, empty cells counted as rank 0, L += a^p - b^p if a > b, else R += b^p - a^p; p = monotonicity_power"},
		{"sum", "- Σ over the 8 lines of Σ r^q over the line's cells, q = sum_power, 0^q = 0"},
	},
	// The program's constants: SCORE_LOST_PENALTY, SCORE_EMPTY_WEIGHT,
	// SCORE_MERGES_WEIGHT, SCORE_MONOTONICITY_WEIGHT, SCORE_SUM_WEIGHT.
	Defaults: []float64{200000, 270, 700, 47, 11},
	Params: []Param{
		{Name: "monotonicity_power", Definition: "the exponent p of the ranks in monotonicity (SCORE_MONOTONICITY_POWER)", Default: 4, Min: 1, Max: 6},
		{Name: "sum_power", Definition: "the exponent q of the ranks in sum (SCORE_SUM_POWER)", Default: 3.5, Min: 1, Max: 6},
	},
	// The features are invariant under the 8 symmetries, but the program's
	// float32 arithmetic adds a line's terms and the lines in an order the
	// symmetries change, so values agree only to rounding, and features
	// with a fractional power also only to float64 rounding.
	Symmetric: false,
	// Linear in the weights for fixed parameters, and a dead board is worth 0
	// under any scale; the compatible search adds no move scores.
	ScaleInvariant: true,
	Reference:      "empty",
	WeightLimit:    math.MaxFloat32,
	Model:          nneonneoModel{},
}

// Feature and parameter indices of the nneonneo set.
const (
	nnOffset = iota
	nnEmpty
	nnMerges
	nnMono
	nnSum
)

const (
	nnMonoPower = iota
	nnSumPower
)

// nnLine holds the features of one line that do not depend on the
// parameters.
type nnLine struct {
	empty, merges int8
}

// nnLines is indexed by a 16-bit line, its first cell in the low nibble.
var nnLines = sync.OnceValue(func() *[1 << 16]nnLine {
	t := new([1 << 16]nnLine)
	for row := range 1 << 16 {
		empty, merges := nnCounts(lineOf(row))
		t[row] = nnLine{int8(empty), int8(merges)}
	}
	return t
})

func lineOf(row int) [4]int {
	return [4]int{row & 0xf, row >> 4 & 0xf, row >> 8 & 0xf, row >> 12 & 0xf}
}

// nnCounts returns the empty cells and the merges feature of a line,
// following the program's loop: prev is the last non-empty rank and counter
// the length of its run so far, minus one.
func nnCounts(line [4]int) (empty, merges int) {
	prev, counter := 0, 0
	for _, rank := range line {
		if rank == 0 {
			empty++
			continue
		}
		if prev == rank {
			counter++
		} else if counter > 0 {
			merges += 1 + counter
			counter = 0
		}
		prev = rank
	}
	if counter > 0 {
		merges += 1 + counter
	}
	return empty, merges
}

// nnPowers returns r^p for the ranks r = 0..15.
func nnPowers(p float64) [16]float64 {
	var t [16]float64
	for r := range t {
		t[r] = powRank(r, p)
	}
	return t
}

// powRank returns r^p correctly rounded to float64 (0^p = 0, p > 0). The
// program calls the C library's pow, which is within 0.52 ulp and so almost
// always the correctly rounded value; math.Pow is not (its 3.5th powers of
// 2, 7, 8, 9 and 15 are each 1 ulp off), and with it 49 entries of the
// program's default table came out 1 float32 ulp off, where the correctly
// rounded powers give the program's table bit for bit (checked on the
// defaults and on 40 random weight and parameter vectors). p is a float32
// in practice, so p = m·2^e exactly with m odd: r^p is the 2^-e-th root of
// r^m, computed with 128-bit floats: their error, about 2^-122 relative
// after the 50 or so operations, leaves the rounding to 53 bits in doubt
// only for values within that distance of a midpoint between doubles.
func powRank(r int, p float64) float64 {
	if r == 0 {
		return 0
	}
	if r == 1 || p == 0 {
		return 1
	}
	if p == math.Trunc(p) && p <= 13 { // exact in float64: 15^13 < 2^53
		x := 1.0
		for range int(p) {
			x *= float64(r)
		}
		return x
	}
	frac, exp := math.Frexp(p) // p = frac·2^exp, frac in [0.5, 1)
	m := uint64(frac * (1 << 53))
	e := exp - 53
	tz := bits.TrailingZeros64(m)
	m >>= tz
	e += tz
	const prec = 128
	base := new(big.Float).SetPrec(prec).SetInt64(int64(r))
	x := new(big.Float).SetPrec(prec).SetInt64(1)
	for ; m != 0; m >>= 1 {
		if m&1 == 1 {
			x.Mul(x, base)
		}
		base.Mul(base, base)
	}
	for ; e > 0; e-- {
		x.Mul(x, x)
	}
	for ; e < 0; e++ {
		x.Sqrt(x)
	}
	v, _ := x.Float64()
	return v
}

// nnLineValue is the program's heuristic of one line (init_tables in
// 2048.cpp), operation for operation: float32 accumulators fed with float64
// powers, and the weighted sum in float32 from left to right. The explicit
// float32 conversions round where the program rounds and keep the compiler
// from fusing a multiply and an add, which the program does not do either.
// l is the line's entry of nnLines.
func nnLineValue(line [4]int, l nnLine, w [5]float32, pp, pq *[16]float64) float32 {
	sum := float32(0)
	for _, rank := range line {
		sum = float32(float64(sum) + pq[rank])
	}
	left, right := float32(0), float32(0)
	for i := 1; i < 4; i++ {
		a, b := line[i-1], line[i]
		if a > b {
			left = float32(float64(left) + (pp[a] - pp[b]))
		} else {
			right = float32(float64(right) + (pp[b] - pp[a]))
		}
	}
	mono := left // std::min(left, right)
	if right < left {
		mono = right
	}
	v := w[nnOffset] + float32(w[nnEmpty]*float32(l.empty))
	v += float32(w[nnMerges] * float32(l.merges))
	v -= float32(w[nnMono] * mono)
	v -= float32(w[nnSum] * sum)
	return v
}

type nneonneoModel struct{}

// Compile builds the line table the program builds from its constants,
// which are float32: weights and powers are rounded to float32 first, and
// weights the program could not hold are refused.
func (nneonneoModel) Compile(w, p []float64) (engine.Evaluator, error) {
	var w32 [5]float32
	for i, x := range w {
		w32[i] = float32(x)
		if math.Abs(x) > nneonneoSet.WeightLimit {
			return nil, fmt.Errorf("%w: nneonneo: weight of %s is %g, want a float32 (magnitude at most %g)",
				ErrWeights, nneonneoSet.Features[i].Name, x, math.MaxFloat32)
		}
	}
	pw := nnPowersOf(p)
	lines := nnLines()
	t := new([1 << 16]float32)
	for row := range t {
		t[row] = nnLineValue(lineOf(row), lines[row], w32, &pw.mono, &pw.sum)
	}
	return &compiled{kind: kindLines32, table32: t}, nil
}

// nnShapePowers holds r^p for the ranks r under the two power parameters,
// rounded to float32 as the program's constants are.
type nnShapePowers struct {
	p         [2]float32
	mono, sum [16]float64
}

// nnLastPowers caches the powers last computed: golden checks, versions
// and tests ask for the features of many boards under the same parameters,
// and correctly rounded fractional powers take big-float arithmetic.
var nnLastPowers atomic.Pointer[nnShapePowers]

// nnPowersOf returns the powers of the parameter vector p.
func nnPowersOf(p []float64) *nnShapePowers {
	key := [2]float32{float32(p[nnMonoPower]), float32(p[nnSumPower])}
	if pw := nnLastPowers.Load(); pw != nil && pw.p == key {
		return pw
	}
	pw := &nnShapePowers{p: key, mono: nnPowers(float64(key[0])), sum: nnPowers(float64(key[1]))}
	nnLastPowers.Store(pw)
	return pw
}

// Features computes the features in float64 from their definitions (not in
// the program's float32), summing the rows top to bottom and then the
// columns left to right, with the powers rounded to float32 as Compile
// rounds them.
func (nneonneoModel) Features(b engine.Board, p, f []float64) {
	pw := nnPowersOf(p)
	lines := nnLines()
	x := uint64(b)
	y := uint64(b.Transpose())
	var empty, merges int
	mono, sum := 0.0, 0.0
	for _, z := range [2]uint64{x, y} {
		for i := range 4 {
			row := uint16(z >> (16 * i))
			l := lines[row]
			empty += int(l.empty)
			merges += int(l.merges)
			m, s := nnShape(lineOf(int(row)), &pw.mono, &pw.sum)
			mono += m
			sum += s
		}
	}
	f[nnOffset] = 8
	f[nnEmpty] = float64(empty)
	f[nnMerges] = float64(merges)
	f[nnMono] = mono
	f[nnSum] = sum
}

// nnShape returns a line's monotonicity and sum features in float64.
func nnShape(line [4]int, pp, pq *[16]float64) (mono, sum float64) {
	left, right := 0.0, 0.0
	for i := 1; i < 4; i++ {
		a, b := line[i-1], line[i]
		if a > b {
			left += pp[a] - pp[b]
		} else {
			right += pp[b] - pp[a]
		}
	}
	for _, r := range line {
		sum -= pq[r]
	}
	return 0 - min(left, right), sum // 0 - x, not -x: no negative zero
}
