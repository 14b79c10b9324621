package engine_test

import (
	"fmt"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

func ExampleParseBoard() {
	b, _ := engine.ParseBoard("0x654321")
	fmt.Println(b)
	fmt.Print(b.Pretty())
	// Output:
	// 2 4 8 16/32 64 0 0/0 0 0 0/0 0 0 0
	//      2     4     8    16
	//     32    64     .     .
	//      .     .     .     .
	//      .     .     .     .
}

func ExampleBoard_Move() {
	b, _ := engine.ParseBoard("2 2 2 0/2 2 2 2/0 0 0 0/0 0 0 0")
	nb, score, legal := b.Move(engine.Left)
	fmt.Println(nb, score, legal)
	_, _, legal = nb.Move(engine.Up)
	fmt.Println("up legal:", legal)
	// Output:
	// 4 2 0 0/4 4 0 0/0 0 0 0/0 0 0 0 12 true
	// up legal: true
}

func ExampleExpectimax_Search() {
	b, _ := engine.ParseBoard("2 4 8 16/32 64 0 0/0 0 0 0/0 0 0 0")
	classic, _ := eval.Lookup("classic") // the classic set with its default weights
	s, _ := engine.NewExpectimax(classic, engine.ExpectimaxOptions{Depth: 2})
	res := s.Search(b)
	fmt.Printf("value %.2f, %d nodes, best %v\n", res.Value, res.Nodes, res.Best)
	for _, m := range res.Moves {
		fmt.Printf("%-5v %.2f %d\n", m.Dir, m.Value, m.Nodes)
	}
	// Output:
	// value 160.49, 43 nodes, best right
	// down  154.59 21
	// right 160.49 21
}

func ExamplePlay() {
	classic, _ := eval.Lookup("classic")
	player, _ := engine.NewExpectimax(classic, engine.ExpectimaxOptions{Depth: 2, LossValue: engine.DefaultLossValue})
	r := engine.Play(42, player)
	fmt.Println(r.Score, r.MaxTile, r.Moves)
	fmt.Println(r == engine.Play(42, player)) // a game is a pure function of its seed
	// Output:
	// 6260 512 455
	// true
}

// A row-decomposable evaluator of one's own: empty cells and a reward for
// large tiles in the bottom row, written as tables of row and column
// values (engine.Lines), which the searchers read at their leaves instead
// of calling Evaluate. An Evaluator whose features are not sums over
// lines plays through Evaluate, with the same values.
func ExampleLines() {
	empty, bottom := new([1 << 16]float64), new([1 << 16]float64)
	for line := range 1 << 16 {
		for i := range 4 {
			r := line >> (4 * i) & 0xf
			if r == 0 {
				empty[line] += 10
			}
			bottom[line] += float64(r * r)
		}
		bottom[line] += empty[line]
	}
	// Rows 0-2 count their empty cells, row 3 its tiles too; no columns.
	e := &engine.Lines{Rows: [4]*[1 << 16]float64{empty, empty, empty, bottom}}
	s, _ := engine.NewExpectimax(e, engine.ExpectimaxOptions{Depth: 3})
	b, _ := engine.ParseBoard("2 0 0 0/4 0 0 0/8 0 0 0/16 0 0 2")
	res := s.Search(b)
	fmt.Println(e.Evaluate(b), res.Best, res.Nodes)
	// Output:
	// 127 up 307
}
