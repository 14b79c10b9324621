package engine

import (
	"bufio"
	"math/bits"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/evotune/evotune/internal/cputime"
)

// leafBoards returns the spawn layers two plies above the leaves of a
// 5-ply search from the positions of nneonneo/2048-ai's own games
// (testdata/nneonneo_positions.txt): every board after a move, a spawn and
// a move from them, the boards spawnLeaves values in a search.
func leafBoards(tb testing.TB) []Board {
	f, err := os.Open("testdata/nneonneo_positions.txt")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []Board
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		b, err := ParseBoard(strings.Fields(sc.Text())[0])
		if err != nil {
			tb.Fatal(err)
		}
		for _, d := range Dirs {
			c, _, ok := b.Move(d)
			if !ok {
				continue
			}
			for free := c.emptyCells(); free != 0; free &= free - 1 {
				cs := c | Board(free&-free)
				for _, d2 := range Dirs {
					if x, _, ok := cs.Move(d2); ok {
						out = append(out, x)
					}
				}
			}
		}
	}
	return out
}

// BenchmarkLeafLayers values spawn layers whose move layers have only
// leaves below them (leafBoards), the bulk of a search's work, and reports
// the CPU a move layer: with the tables of a line evaluator shaped like
// the standard set's (uniform: one table, the corner key from rows and
// columns), one with a table per line and keys from the rows only
// (perline), no keys (nokeys), rows alone (rows, snake16's shape), the
// same evaluator through Evaluate (evaluate), and the move layer as the
// search valued it before the leaf layer (before: a call per move and an
// interface call per leaf).
//
//	go test ./engine -run '^$' -bench LeafLayers -count 6
func BenchmarkLeafLayers(b *testing.B) {
	uniform := benchLines()
	perline := *uniform
	perline.ColKeys = [4]*[1 << 16]uint8{}
	nokeys := *uniform
	nokeys.Keys, nokeys.KeyValue, nokeys.ColKeys = [4]*[1 << 16]uint8{}, nil, [4]*[1 << 16]uint8{}
	rows := nokeys
	rows.Cols = [4]*[1 << 16]float64{}
	for _, l := range []struct {
		name string
		e    Evaluator
	}{{"uniform", uniform}, {"perline", &perline}, {"nokeys", &nokeys}, {"rows", &rows}, {"evaluate", plainEval{uniform}}, {"before", beforeEval{plainEval{uniform}}}} {
		b.Run(l.name, func(b *testing.B) { benchLeafLayers(b, l.e) })
	}
}

// plainEval hides a Lines' tables: the searcher calls Evaluate.
type plainEval struct{ l *Lines }

func (p plainEval) Evaluate(b Board) float64 { return p.l.Evaluate(b) }

// beforeEval has the benchmark value move layers with oldMax.
type beforeEval struct{ plainEval }

// oldMax is max(b, 1) as the search valued it before the leaf layer: its
// max and after, a call per move and an interface call per leaf.
func (s *Expectimax) oldMax(b Board) float64 {
	s.nodes++
	t := b.Transpose()
	best, found := 0.0, false
	after := func(nb Board, score int) float64 {
		s.nodes++
		return s.scoreMul*float64(score) + s.eval.Evaluate(nb)
	}
	if nb, score := moveCols(b, t, &colUp); nb != b {
		best, found = after(nb, score), true
	}
	if nb, score := moveCols(b, t, &colDown); nb != b {
		if v := after(nb, score); !found || v > best {
			best, found = v, true
		}
	}
	if nb, score := moveRows(b, &rowLeft); nb != b {
		if v := after(nb, score); !found || v > best {
			best, found = v, true
		}
	}
	if nb, score := moveRows(b, &rowRight); nb != b {
		if v := after(nb, score); !found || v > best {
			best, found = v, true
		}
	}
	if !found {
		return s.opts.LossValue
	}
	return best
}

func benchLeafLayers(b *testing.B, e Evaluator) {
	boards := leafBoards(b)
	s, err := NewExpectimax(e, ExpectimaxOptions{Depth: 3, LossValue: DefaultLossValue})
	if err != nil {
		b.Fatal(err)
	}
	_, before := e.(beforeEval)
	b.ReportAllocs()
	sum := 0.0
	i, layers := 0, 0
	cpu0 := cpuTime(b)
	for b.Loop() {
		c := boards[i%len(boards)]
		switch {
		case before:
			for m := c.emptyCells(); m != 0; m &= m - 1 {
				two := Board(m & -m)
				sum += 0.9*s.oldMax(c|two) + 0.1*s.oldMax(c|two<<1)
			}
		default:
			sum += s.chance(c, 2, 1)
		}
		layers += 2 * bits.OnesCount64(c.emptyCells())
		i++
	}
	b.ReportMetric(float64((cpuTime(b)-cpu0).Nanoseconds())/float64(layers), "cpu-ns/layer")
	_ = sum
}

// benchLines is a line evaluator shaped like the standard set's: one
// table, keys that differ between end and middle lines.
func benchLines() *Lines {
	t := new([1 << 16]float64)
	for i := range t {
		t[i] = float64(i%977) * 1.25
	}
	end, mid := new([1 << 16]uint8), new([1 << 16]uint8)
	for i := range end {
		end[i], mid[i] = uint8(i%31), uint8(i%29)
	}
	kv := new([256]float64)
	for i := range kv {
		kv[i] = float64(i) * 3.5
	}
	keys := [4]*[1 << 16]uint8{end, mid, mid, end}
	return &Lines{Rows: [4]*[1 << 16]float64{t, t, t, t}, Cols: [4]*[1 << 16]float64{t, t, t, t}, Keys: keys, KeyValue: kv, ColKeys: keys}
}

// cpuTime is cputime.Process for a benchmark, which stops on an error: on
// a loaded machine CPU time varies far less than the wall time b.Elapsed
// reports.
func cpuTime(b *testing.B) time.Duration {
	d, err := cputime.Process()
	if err != nil {
		b.Fatal(err)
	}
	return d
}
