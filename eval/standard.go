package eval

import (
	"sync"

	"github.com/evotune/evotune/engine"
)

// The standard set: the five features of the mission. Every feature but
// corner is a sum over lines (empty a sum over rows), so a weight vector
// compiles into one table of line values; see compile.
var standardSet = &FeatureSet{
	Name:    "standard",
	Summary: "monotonicity, smoothness, empty cells, corner, merges",
	Features: []Feature{
		{"monotonicity", "- Σ over the 8 lines of min(up, down), where up = Σ max(0, r[i+1]-r[i]) and down = Σ max(0, r[i]-r[i+1]) over the 3 adjacent pairs of the line, empty cells counted as rank 0"},
		{"smoothness", "- Σ |r_a - r_b| over horizontally or vertically adjacent cells a, b that are both non-empty"},
		{"empty", "the number of empty cells"},
		{"corner", "the largest rank on the board if some corner cell holds it, else 0"},
		{"merge", "the number of horizontally or vertically adjacent pairs of equal non-empty cells"},
	},
	// Hand-set in the spirit of the public heuristics: empty cells and
	// monotonicity dominate. These are the weights of DESIGN.md's
	// measurements (26.1k mean score at 3 plies with move scores added).
	Defaults:       []float64{47, 11, 270, 100, 70},
	Symmetric:      true,
	ScaleInvariant: true,
	Reference:      "empty",
	Model:          standardModel{},
}

// Feature indices of the standard set.
const (
	stdMono = iota
	stdSmooth
	stdEmpty
	stdCorner
	stdMerge
)

// stdLine holds one line's share of the standard features. The magnitudes
// are at most 45, so int8 keeps the table at 256 KiB.
type stdLine struct {
	mono, smooth, empty, merge int8
}

// stdLines is indexed by a 16-bit line, its first cell in the low nibble;
// built on first use so that commands that never evaluate do not pay for it.
var stdLines = sync.OnceValue(func() *[1 << 16]stdLine {
	t := new([1 << 16]stdLine)
	for row := range 1 << 16 {
		var line [4]int
		for i := range 4 {
			line[i] = row >> (4 * i) & 0xf
		}
		t[row] = standardLine(line)
	}
	return t
})

// standardLine computes a line's share of each line feature.
func standardLine(r [4]int) stdLine {
	var t stdLine
	up, down := 0, 0
	for i := range 3 {
		a, b := r[i], r[i+1]
		if b > a {
			up += b - a
		} else {
			down += a - b
		}
		if a != 0 && b != 0 {
			t.smooth -= int8(abs(a - b))
			if a == b {
				t.merge++
			}
		}
	}
	t.mono = -int8(min(up, down))
	for _, k := range r {
		if k == 0 {
			t.empty++
		}
	}
	return t
}

type standardModel struct{}

// Compile folds every line feature into one table used for rows and columns
// alike. Empty cells would count twice (once in their row, once in their
// column), so the table carries half the empty weight: halving is exact in
// binary floating point.
func (standardModel) Compile(w, _ []float64) (engine.Evaluator, error) {
	cornerOnce.Do(buildCornerKeys)
	lines := stdLines()
	t := new([1 << 16]float64)
	wm, ws, we, wg := w[stdMono], w[stdSmooth], w[stdEmpty]/2, w[stdMerge]
	for i := range t {
		l := lines[i]
		t[i] = wm*float64(l.mono) + ws*float64(l.smooth) + we*float64(l.empty) + wg*float64(l.merge)
	}
	l := &engine.Lines{
		Rows:     [4]*[1 << 16]float64{t, t, t, t},
		Cols:     [4]*[1 << 16]float64{t, t, t, t},
		Keys:     [4]*[1 << 16]uint8{&cornerKeyEnd, &cornerKeyMid, &cornerKeyMid, &cornerKeyEnd},
		KeyValue: cornerTable(w[stdCorner]),
		// The corner is a corner of its column as of its row: read from
		// the columns (top to bottom), the same keys give the same largest
		// key (see cornerKey).
		ColKeys: [4]*[1 << 16]uint8{&cornerKeyEnd, &cornerKeyMid, &cornerKeyMid, &cornerKeyEnd},
	}
	return &compiled{kind: kindLines, lines: l}, nil
}

func (standardModel) Features(b engine.Board, _, f []float64) {
	cornerOnce.Do(buildCornerKeys)
	lines := stdLines()
	x := uint64(b)
	y := uint64(b.Transpose())
	var mono, smooth, empty, merge int
	for i := range 4 {
		r, c := lines[uint16(x>>(16*i))], lines[uint16(y>>(16*i))]
		mono += int(r.mono) + int(c.mono)
		smooth += int(r.smooth) + int(c.smooth)
		merge += int(r.merge) + int(c.merge)
		empty += int(r.empty)
	}
	f[stdMono] = float64(mono)
	f[stdSmooth] = float64(smooth)
	f[stdEmpty] = float64(empty)
	f[stdCorner] = float64(cornerRank(x))
	f[stdMerge] = float64(merge)
}
