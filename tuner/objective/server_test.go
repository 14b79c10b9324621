package objective

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/tuner"
)

func testProblem(t *testing.T) *Problem {
	t.Helper()
	cfg := &tuner.Config{SetName: "standard", Seed: 3, Workers: 1, Fitness: tuner.FitnessConfig{Games: 2, MaxMoves: 20}}
	cfg.Resolve()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	p, err := New("test", cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// serve runs the server on the lines of in and returns its output lines,
// the first line left out.
func serve(t *testing.T, s *Server, in string) []map[string]any {
	t.Helper()
	var out strings.Builder
	if err := s.Serve(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("output line %q: %v", sc.Text(), err)
		}
		lines = append(lines, m)
	}
	return lines[1:]
}

func params(p *Problem) string {
	v := map[string]float64{}
	for _, q := range p.Params {
		v[q.Name] = q.Start
	}
	data, _ := json.Marshal(v)
	return string(data)
}

func TestLongLineIsAnError(t *testing.T) {
	p := testProblem(t)
	long := `{"id":1,"params":` + params(p) + `,"games":1,"first":0,"x":"` + strings.Repeat("a", maxLine) + `"}`
	got := serve(t, &Server{P: p}, long+"\n"+`{"id":2,"params":`+params(p)+`,"games":1,"first":0}`+"\n")
	if len(got) != 2 || !strings.Contains(got[0]["error"].(string), "longer than") || got[1]["games"] != 1.0 {
		t.Errorf("answers %v", got)
	}
}

func TestHooks(t *testing.T) {
	p := testProblem(t)
	var answered int
	var recommended [][]float64
	s := &Server{
		P: p,
		Admit: func(seeds []uint64) (string, error) {
			if answered >= 2 {
				return "enough", nil
			}
			return "", nil
		},
		Answered:  func(games int, _ time.Duration) bool { answered++; return answered == 1 },
		Recommend: func(v []float64, final bool) error { recommended = append(recommended, v); return nil },
	}
	req := `{"id":%d,"params":` + params(p) + `,"games":1,"first":0}`
	in := strings.Join([]string{
		strings.Replace(req, "%d", "1", 1),
		`{"recommend":` + params(p) + `}`,
		strings.Replace(req, "%d", "2", 1),
		strings.Replace(req, "%d", "3", 1),
		strings.Replace(req, "%d", "4", 1),
		`{"recommend":` + params(p) + `,"final":true}`,
	}, "\n") + "\n"
	got := serve(t, s, in)
	if len(got) != 6 || got[0]["recommend"] != true || got[1]["ok"] != true || got[2]["recommend"] != nil ||
		got[3]["stop"] != "enough" || got[4]["stop"] != "enough" || got[5]["ok"] != true {
		t.Errorf("answers %v", got)
	}
	if len(recommended) != 2 || len(recommended[0]) != len(p.Names) {
		t.Errorf("recommended %v", recommended)
	}
}

// TestUnbuiltProblem: a Problem not made by New is refused before the
// first line, not a panic at the first request.
func TestUnbuiltProblem(t *testing.T) {
	var out strings.Builder
	for _, s := range []*Server{{}, {P: &Problem{Name: "half"}}} {
		if err := s.Serve(context.Background(), strings.NewReader("{}\n"), &out); !errors.Is(err, errUnbuilt) {
			t.Errorf("Serve: %v, want %v", err, errUnbuilt)
		}
	}
	if out.Len() != 0 {
		t.Errorf("wrote %q", out.String())
	}
}

// seedPool records the seeds it is asked to play and scores each game
// with its seed's low bits.
type seedPool struct{ seeds [][]uint64 }

func (p *seedPool) Play(_ context.Context, b *tuner.Batch, results [][]engine.Result, _ tuner.GameDone) error {
	p.seeds = append(p.seeds, b.Seeds)
	for j, s := range b.Seeds {
		results[0][j] = engine.Result{Score: int(s % 1000)}
	}
	return nil
}

type names []string

func (n names) VectorNames() []string { return n }

// TestPlayerProblem: a player's parameters as the tuner tunes them: one
// declared with min = max is held (no scale of 0), as one in player.fixed.
func TestPlayerProblem(t *testing.T) {
	cfg, err := tuner.ReadConfig([]byte(`
seed: 4
player:
  command: [myplayer]
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
	pool := &seedPool{}
	p, err := New("player", cfg, names{"a", "b", "c", "d"}, pool)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Params) != 2 || p.Params[0].Name != "a" || p.Params[1].Name != "b" || p.Params[1].Type != "int" {
		t.Fatalf("params %+v", p.Params)
	}
	if len(p.Fixed) != 2 || p.Fixed["c"] != 5 || p.Fixed["d"] != 7 {
		t.Errorf("fixed %v", p.Fixed)
	}
	for _, q := range p.Params {
		if !(q.Scale > 0) || q.Min == nil || q.Max == nil || q.Box != [2]float64{*q.Min, *q.Max} {
			t.Errorf("%+v: want a positive scale and the bounds as box", q)
		}
	}
	got := serve(t, &Server{P: p}, strings.Join([]string{
		`{"id":1,"params":{"a":0.5,"b":4},"games":2,"first":3}`,
		`{"id":2,"params":{"a":0.5,"b":4,"d":7},"games":2,"first":3,"held_out":true}`,
		`{"id":3,"params":{"a":0.5,"b":4.5},"games":2,"first":3}`,
		`{"id":4,"params":{"a":0.5,"b":4,"d":8},"games":2,"first":3}`,
	}, "\n")+"\n")
	if len(got) != 4 || got[0]["games"] != 2.0 || got[1]["games"] != 2.0 ||
		got[2]["error"] != "line 3: params.b: 4.5: want an integer (type int) (write 4 or 5)" ||
		got[3]["error"] != "line 4: params.d: 8: held at 7 (leave it out)" {
		t.Errorf("answers %v", got)
	}
	// The stream's games are the tuner's tuning games, the held-out
	// block's its validation games: no game of one is a game of the other.
	want := [][]uint64{
		{tuner.TuningSeedAt(4, 3), tuner.TuningSeedAt(4, 4)},
		{tuner.ValidationSeed(4, 3), tuner.ValidationSeed(4, 4)},
	}
	if !equal(pool.seeds, want) {
		t.Errorf("seeds played %v, want %v", pool.seeds, want)
	}
}

func equal(a, b [][]uint64) bool {
	return slices.EqualFunc(a, b, func(x, y []uint64) bool { return slices.Equal(x, y) })
}

// TestHeldFollowsTheGames: the weight held is the one the search of the
// games played holds, the last stage's validation search: with a
// validation search that adds move scores, nothing is held.
func TestHeldFollowsTheGames(t *testing.T) {
	for _, c := range []struct {
		validation string
		held       int
	}{{"", 1}, {"validation: {search: {algorithm: expectimax, depth: 1}}\n", 0}} {
		cfg, err := tuner.ReadConfig([]byte("features: nneonneo\nsearch: {algorithm: nneonneo, depth: 3}\n"+c.validation), "v.yaml")
		if err != nil {
			t.Fatal(err)
		}
		p, err := New("v", cfg, nil, &seedPool{})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Fixed) != c.held || len(p.Params)+len(p.Fixed) != 7 {
			t.Errorf("%q: fixed %v, %d params", c.validation, p.Fixed, len(p.Params))
		}
	}
}

// pickyModel is a set of one's own whose evaluator refuses a weight above
// 100 that its bounds do not exclude.
type pickyModel struct{}

func (pickyModel) Features(b engine.Board, _, dst []float64) { dst[0] = float64(b.CountEmpty()) }

func (pickyModel) Compile(w, _ []float64) (engine.Evaluator, error) {
	if w[0] > 100 {
		return nil, fmt.Errorf("%w: picky: weight %v above 100", eval.ErrWeights, w[0])
	}
	return pickyEval(w[0]), nil
}

type pickyEval float64

func (e pickyEval) Evaluate(b engine.Board) float64 { return float64(e) * float64(b.CountEmpty()) }

// TestValuesTheGamesRefuse: values a set's evaluator refuses get an error
// line, and the exchange goes on.
func TestValuesTheGamesRefuse(t *testing.T) {
	set := &eval.FeatureSet{Name: "picky", Features: []eval.Feature{{Name: "empty", Definition: "empty cells"}}, Defaults: []float64{10}, Model: pickyModel{}}
	cfg := &tuner.Config{Set: set, Seed: 1, Workers: 1, Search: engine.SearchConfig{Depth: 1}, Fitness: tuner.FitnessConfig{Games: 2, MaxMoves: 10}}
	cfg.Resolve()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	p, err := New("picky", cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := serve(t, &Server{P: p}, `{"id":1,"params":{"empty":200},"games":1,"first":0}`+"\n"+`{"id":2,"params":{"empty":20},"games":1,"first":0}`+"\n")
	if len(got) != 2 || !strings.HasPrefix(got[0]["error"].(string), "line 1: params: the games cannot take these values: ") ||
		!strings.Contains(got[0]["error"].(string), "weight 200 above 100") || got[1]["games"] != 1.0 {
		t.Errorf("answers %v", got)
	}
}
