package tuner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/internal/yamlx"
)

// TestCoordinatesSet: a set's weights are unbounded unless the config
// bounds them, shape parameters keep their own bounds, scales are the
// start's magnitude (1 for 0), the tuner's units the same but a shape
// parameter's at most a fifth of its range (a weight's whatever its
// bounds), and the reference weight is held exactly when the search adds
// no move scores.
func TestCoordinatesSet(t *testing.T) {
	cfg, err := ReadConfig([]byte(`
features: nneonneo
init: {merges: 0, sum: -11, monotonicity_power: 1.5, sum_power: 2.5}
bounds: {monotonicity: [0, 100], sum_power: [2, 3]}
search: {algorithm: nneonneo, depth: 3}
`), "nn.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := Coordinates(cfg, *cfg.StageList()[0].Search)
	if err != nil {
		t.Fatal(err)
	}
	inf := math.Inf(1)
	want := []Coordinate{
		{Name: "offset", Start: 200000, Lower: -inf, Upper: inf, Limit: math.MaxFloat32, Scale: 200000, Unit: 200000},
		{Name: "empty", Start: 270, Lower: -inf, Upper: inf, Limit: math.MaxFloat32, Scale: 270, Unit: 270, Held: true},
		{Name: "merges", Start: 0, Lower: -inf, Upper: inf, Limit: math.MaxFloat32, Scale: 1, Unit: 1},
		{Name: "monotonicity", Start: 47, Lower: 0, Upper: 100, Limit: math.MaxFloat32, Scale: 47, Unit: 47},
		{Name: "sum", Start: -11, Lower: -inf, Upper: inf, Limit: math.MaxFloat32, Scale: 11, Unit: 11},
		{Name: "monotonicity_power", Start: 1.5, Lower: 1, Upper: 6, Limit: inf, Scale: 1.5, Unit: 1},
		{Name: "sum_power", Start: 2.5, Lower: 2, Upper: 3, Limit: inf, Scale: 2.5, Unit: 0.2},
	}
	if len(cs) != len(want) {
		t.Fatalf("%d coordinates, want %d", len(cs), len(want))
	}
	for i := range want {
		if cs[i] != want[i] {
			t.Errorf("coordinate %d: %+v, want %+v", i, cs[i], want[i])
		}
	}
	// A search that adds move scores: the scale matters, nothing is held.
	scores := engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 1}.WithPlayDefaults()
	if !scores.ScoresMoves() {
		t.Fatal("the play defaults add no move scores")
	}
	cs, err = Coordinates(cfg, scores)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Held {
			t.Errorf("%s held under a search that adds move scores", c.Name)
		}
	}
}

// TestCoordinatesPlayer: a player's parameters take their declared or
// configured bounds and the bounds' width as scale; those in player.fixed
// and those declared with min = max are held, so no scale is 0.
func TestCoordinatesPlayer(t *testing.T) {
	cfg, err := ReadConfig([]byte(`
player:
  command: [myplayer]
  bounds: {b: [0, 4]}
  fixed: [c]
  declared:
    id: p
    version: "1"
    params:
      - {name: a, type: float, default: 1, min: 0, max: 2}
      - {name: b, type: int, default: 3, min: 0, max: 10}
      - {name: c, type: float, default: 5, min: 0, max: 9}
      - {name: d, type: int, default: 7, min: 7, max: 7}
`), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	cs, err := Coordinates(cfg, engine.SearchConfig{})
	if err != nil {
		t.Fatal(err)
	}
	inf := math.Inf(1)
	want := []Coordinate{
		{Name: "a", Start: 1, Lower: 0, Upper: 2, Limit: inf, Scale: 2, Unit: 2},
		{Name: "b", Start: 3, Lower: 0, Upper: 4, Limit: inf, Scale: 4, Unit: 4, Int: true},
		{Name: "c", Start: 5, Lower: 0, Upper: 9, Limit: inf, Scale: 9, Unit: 9, Held: true},
		{Name: "d", Start: 7, Lower: 7, Upper: 7, Limit: inf, Scale: 0, Unit: 0, Int: true, Held: true},
	}
	for i := range want {
		if cs[i] != want[i] {
			t.Errorf("coordinate %d: %+v, want %+v", i, cs[i], want[i])
		}
	}
	// The tuner tunes a and b only.
	tu, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tu.free) != 2 || tu.free[0] != 0 || tu.free[1] != 1 {
		t.Errorf("the tuner tunes coordinates %v, want [0 1]", tu.free)
	}
}

// TestHeldReferenceSign: a config that would hold the reference weight at
// a value that is not positive is refused, naming init's key.
func TestHeldReferenceSign(t *testing.T) {
	_, err := ReadConfig([]byte(`
features: nneonneo
init: {empty: -270}
search: {algorithm: nneonneo, depth: 3}
`), "neg.yaml")
	if err == nil {
		t.Fatal("no error")
	}
	var fe *yamlx.FileError
	if !errors.As(err, &fe) || fe.Field != "init.empty" || !strings.Contains(err.Error(), "want it positive") {
		t.Errorf("error %v", err)
	}
	// Where the search adds move scores nothing is held: any sign goes.
	if _, err := ReadConfig([]byte("features: standard\ninit: {empty: -270}\n"), "neg.yaml"); err != nil {
		t.Errorf("standard set with move scores: %v", err)
	}
}

// TestNextGames: NextGames is what the next generation plays, with noise
// handling at a stage's start (games off the blocks) and after.
func TestNextGames(t *testing.T) {
	for _, games := range []int{6, 8, 13} {
		cfg, err := ReadConfig([]byte(fmt.Sprintf("seed: 3\ngenerations: 3\noptimizer: {population: 4}\nsearch: {depth: 1}\nfitness: {games: %d, max_moves: 40}\nvalidation: {games: 4}\n", games)), "g.yaml")
		if err != nil {
			t.Fatal(err)
		}
		tu, err := New(cfg, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for g := range 3 {
			next := tu.NextGames()
			rec, err := tu.Step(context.Background(), func() time.Duration { return 0 })
			if err != nil {
				t.Fatal(err)
			}
			if rec.Noise == nil || rec.Noise.Games != next {
				t.Errorf("games %d, generation %d: NextGames %d, played %+v", games, g+1, next, rec.Noise)
			}
		}
	}
}
