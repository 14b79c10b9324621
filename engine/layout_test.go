package engine

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// This file holds a benchmark-only copy of the expectimax searcher with
// other transposition-table entry layouts, for BenchmarkLayout (issue 10
// asked for them): the production searcher keeps its 24-byte entry, and
// the copy searches with each layout under the production entry's policy
// (kept for the game, a live entry of this search gives way only to one at
// least as deep), so the layouts differ in the entry alone.
//
//   - Layout24 is the production entry, copied: the copy's cost against
//     the production searcher's is the price of the copy itself.
//   - Layout16Key is 16 bytes and exact: the key word is an invertible
//     hash of the board whose index bits, which the slot already implies,
//     are replaced by the remaining plies (4 bits) and the lifetime's tag
//     (the rest), so one compare checks board, depth and tag; the value is
//     a float64. Without room for the search counter, a new value always
//     replaces the old.
//   - Layout16F32 is 16 bytes: the board, a float32 value, a 16-bit tag,
//     an 8-bit search counter and the depth. A float32 rounds the cached
//     values, so the search is no longer exact.
//   - Layout24Always is the production entry with Layout16Key's policy (a
//     new value always replaces the old), to tell the policy's effect from
//     the layout's.

// EntryLayout names one of the entry layouts above.
type EntryLayout uint8

const (
	Layout24 EntryLayout = iota
	Layout16Key
	Layout16F32
	Layout24Always
)

type entry16Key struct {
	word  uint64
	value float64
}

type entry16F32 struct {
	key    Board
	value  float32
	tag    uint16
	search uint8
	depth  uint8
}

// LayoutSearch is the benchmark copy of Expectimax with a choice of entry
// layout: max, after and chance are Expectimax's, the table probe and store
// dispatch on the layout (a branch that always goes the same way).
type LayoutSearch struct {
	eval   Evaluator
	opts   ExpectimaxOptions
	layout EntryLayout
	t24    []ttEntry
	t16k   []entry16Key
	t16f   []entry16F32
	bits   int
	mask   uint64
	tag    uint32
	search uint16
	nodes  uint64
	hits   uint64
}

// NewLayoutSearch returns the copy with a table of 2^opts.TableBits
// entries (at least 2^8 for Layout16Key, whose key word holds the depth
// and tag in the index bits) in the given layout.
func NewLayoutSearch(e Evaluator, opts ExpectimaxOptions, layout EntryLayout) *LayoutSearch {
	s := &LayoutSearch{eval: e, opts: opts, layout: layout, bits: opts.TableBits, mask: 1<<opts.TableBits - 1, tag: 1}
	switch layout {
	case Layout24, Layout24Always:
		s.t24 = make([]ttEntry, 1<<opts.TableBits)
	case Layout16Key:
		s.t16k = make([]entry16Key, 1<<opts.TableBits)
	case Layout16F32:
		s.t16f = make([]entry16F32, 1<<opts.TableBits)
	}
	return s
}

// Reset starts a new lifetime, as Expectimax.Reset does.
func (s *LayoutSearch) Reset() {
	s.tag++
	limit := uint32(1<<32 - 1)
	switch s.layout {
	case Layout16Key:
		limit = 1<<(s.bits-4) - 1
	case Layout16F32:
		limit = 1<<16 - 1
	}
	if s.tag > limit {
		clear(s.t24)
		clear(s.t16k)
		clear(s.t16f)
		s.tag = 1
	}
}

// Nodes returns the nodes and table hits of the last search.
func (s *LayoutSearch) Nodes() (nodes, hits uint64) { return s.nodes, s.hits }

// Search returns the value of every root move (NaN for an illegal one) and
// the best move, as Expectimax.Move chooses it.
func (s *LayoutSearch) Search(b Board) (vals [4]float64, best Dir) {
	s.nodes, s.hits = 0, 0
	s.search++
	bestV, found := 0.0, false
	for i, d := range Dirs {
		nb, score, ok := b.Move(d)
		if !ok {
			vals[i] = nan()
			continue
		}
		v := float64(score) + s.chance(nb, s.opts.Depth-1, 1)
		vals[i] = v
		if !found || v > bestV {
			bestV, best, found = v, d, true
		}
	}
	return vals, best
}

func nan() float64 {
	var z float64
	return z / z
}

func (s *LayoutSearch) max(b Board, d int, prob float64) float64 {
	s.nodes++
	if d == 0 {
		return s.eval.Evaluate(b)
	}
	t := b.Transpose()
	best, found := 0.0, false
	if nb, score := moveCols(b, t, &colUp); nb != b {
		best, found = s.after(nb, score, d, prob), true
	}
	if nb, score := moveCols(b, t, &colDown); nb != b {
		if v := s.after(nb, score, d, prob); !found || v > best {
			best, found = v, true
		}
	}
	if nb, score := moveRows(b, &rowLeft); nb != b {
		if v := s.after(nb, score, d, prob); !found || v > best {
			best, found = v, true
		}
	}
	if nb, score := moveRows(b, &rowRight); nb != b {
		if v := s.after(nb, score, d, prob); !found || v > best {
			best, found = v, true
		}
	}
	if !found {
		return s.opts.LossValue
	}
	return best
}

func (s *LayoutSearch) after(nb Board, score, d int, prob float64) float64 {
	if d == 1 {
		s.nodes++
		return float64(score) + s.eval.Evaluate(nb)
	}
	return float64(score) + s.chance(nb, d-1, prob)
}

// keyHash is an invertible hash of the board (odd multiplies and an
// xorshift), so equal hashes mean equal boards.
func keyHash(b Board) uint64 {
	h := uint64(b) * 0x9E3779B97F4A7C15
	h ^= h >> 29
	return h * 0xBF58476D1CE4E5B9
}

func (s *LayoutSearch) chance(b Board, d int, prob float64) float64 {
	s.nodes++
	x := uint64(b)
	x |= x >> 2
	x |= x >> 1
	free := ^x & 0x1111111111111111
	empty := bits.OnesCount64(free)
	if d == 0 || empty == 0 || prob < s.opts.ProbCutoff {
		return s.eval.Evaluate(b)
	}
	var idx, word uint64
	switch s.layout {
	case Layout24, Layout24Always:
		idx = s.index24(b, d)
		if e := &s.t24[idx]; e.key == b && int(e.depth) == d && e.tag == s.tag {
			s.hits++
			return e.value
		}
	case Layout16Key:
		h := keyHash(b)
		idx = ((h >> 20) ^ uint64(d)*0x9E3779B97F4A7C15>>40) & s.mask
		// The slot and the depth give the index bits back, so the word
		// keeps the rest of the hash and puts depth and tag there.
		word = h&^(s.mask<<20) | (uint64(d)|uint64(s.tag)<<4)<<20
		if e := &s.t16k[idx]; e.word == word {
			s.hits++
			return e.value
		}
	case Layout16F32:
		idx = s.index24(b, d)
		if e := &s.t16f[idx]; e.key == b && int(e.depth) == d && e.tag == uint16(s.tag) {
			s.hits++
			return float64(e.value)
		}
	}
	p2 := prob * 0.9 / float64(empty)
	p4 := prob * 0.1 / float64(empty)
	sum := 0.0
	if d == 1 {
		s.nodes += 2 * uint64(empty)
		for m := free; m != 0; m &= m - 1 {
			two := Board(m & -m)
			sum += 0.9*s.eval.Evaluate(b|two) + 0.1*s.eval.Evaluate(b|two<<1)
		}
	} else {
		for m := free; m != 0; m &= m - 1 {
			two := Board(m & -m)
			sum += 0.9*s.max(b|two, d-1, p2) + 0.1*s.max(b|two<<1, d-1, p4)
		}
	}
	v := sum / float64(empty)
	switch s.layout {
	case Layout24:
		if e := &s.t24[idx]; e.tag != s.tag || e.search != s.search || d >= int(e.depth) {
			*e = ttEntry{key: b, value: v, tag: s.tag, search: s.search, depth: uint8(d)}
		}
	case Layout24Always:
		s.t24[idx] = ttEntry{key: b, value: v, tag: s.tag, search: s.search, depth: uint8(d)}
	case Layout16Key:
		s.t16k[idx] = entry16Key{word: word, value: v}
	case Layout16F32:
		if e := &s.t16f[idx]; e.tag != uint16(s.tag) || e.search != uint8(s.search) || d >= int(e.depth) {
			*e = entry16F32{key: b, value: float32(v), tag: uint16(s.tag), search: uint8(s.search), depth: uint8(d)}
		}
	}
	return v
}

func (s *LayoutSearch) index24(b Board, d int) uint64 {
	h := (uint64(b) ^ uint64(d)<<59) * 0x9E3779B97F4A7C15
	h ^= h >> 29
	h *= 0xBF58476D1CE4E5B9
	return (h >> 20) & s.mask
}

// TestLayoutsExact checks the exact layouts against the production
// searcher, root move by root move and bit for bit, over positions of
// seeded games searched in order with the table kept across moves and
// games (so tags wrap for Layout16Key's 2^8-entry table), and that the
// float32 layout's values stay within float32 rounding.
func TestLayoutsExact(t *testing.T) {
	e := snakeEval{}
	rng := rand.New(rand.NewPCG(10, 10))
	for _, depth := range []int{4, 5} {
		for _, tbits := range []int{8, 12} {
			opts := ExpectimaxOptions{Depth: depth, TableBits: tbits, LossValue: DefaultLossValue}
			ref, _ := NewExpectimax(e, ExpectimaxOptions{Depth: depth, LossValue: DefaultLossValue})
			lay := []*LayoutSearch{NewLayoutSearch(e, opts, Layout24), NewLayoutSearch(e, opts, Layout16Key), NewLayoutSearch(e, opts, Layout16F32), NewLayoutSearch(e, opts, Layout24Always)}
			for game := range 40 {
				for _, l := range lay {
					l.Reset()
				}
				b := Board(0).Spawn(rng.Uint64()).Spawn(rng.Uint64())
				for move := 0; move < 30 && b.CanMove(); move++ {
					want := ref.Search(b)
					for li, l := range lay {
						vals, best := l.Search(b)
						if best != want.Best {
							t.Fatalf("depth %d, 2^%d, layout %d, game %d move %d: best %v, want %v", depth, tbits, li, game, move, best, want.Best)
						}
						for _, mv := range want.Moves {
							got := vals[mv.Dir]
							if EntryLayout(li) != Layout16F32 && got != mv.Value {
								t.Fatalf("depth %d, 2^%d, layout %d, game %d move %d, %v: %v, want %v", depth, tbits, li, game, move, mv.Dir, got, mv.Value)
							}
							if d := got - mv.Value; d > 1e-4*abs(mv.Value)+1e-3 || -d > 1e-4*abs(mv.Value)+1e-3 {
								t.Fatalf("float32 layout, depth %d, game %d move %d, %v: %v, want %v", depth, game, move, mv.Dir, got, mv.Value)
							}
						}
					}
					nb, _, _ := b.Move(want.Best)
					b = nb.Spawn(rng.Uint64())
				}
			}
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// snakeEval weighs each cell's rank by its place on a snake path from a
// corner, with weights that are not integers, so that values round
// differently in float32.
type snakeEval struct{}

func (snakeEval) Evaluate(b Board) float64 {
	v := 0.0
	w := 1.0
	for x := uint64(b); x != 0; x >>= 4 {
		v += w * float64(x&0xf)
		w *= 1.37
	}
	return v
}
