package tuner

import (
	"errors"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

func TestPlayerCacheEvaluators(t *testing.T) {
	set, _ := eval.Set("standard")
	c := NewPlayerCache()
	v := []float64{47, 11, 270, 100, 70}
	e1, err := c.Evaluator(set, v)
	if err != nil {
		t.Fatal(err)
	}
	if e2, _ := c.Evaluator(set, append([]float64(nil), v...)); e2 != e1 {
		t.Error("an equal vector compiles again")
	}
	w := []float64{47, 11, 270, 100, 71}
	if e3, _ := c.Evaluator(set, w); e3 == e1 {
		t.Error("another vector gets the first one's evaluator")
	}
	// A fingerprint collision (faked) is told apart by the vector itself.
	c.evals[evalKey{set, Fingerprint(w)}] = cachedEval{v: v, e: e1}
	if e4, _ := c.Evaluator(set, w); e4 == e1 {
		t.Error("a colliding fingerprint returns another vector's evaluator")
	}
	// The cache stays bounded and right past its size.
	for i := range 2*evalCacheSize + 1 {
		u := []float64{float64(i), 11, 270, 100, 70}
		e, err := c.Evaluator(set, u)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := set.CompileVector(u)
		if b := engine.Board(0x1234_0000_0021_0321); e.Evaluate(b) != want.Evaluate(b) {
			t.Fatalf("vector %d: %v, want %v", i, e.Evaluate(b), want.Evaluate(b))
		}
		if len(c.evals) > evalCacheSize {
			t.Fatalf("%d evaluators kept, want at most %d", len(c.evals), evalCacheSize)
		}
	}
	if _, err := c.Evaluator(set, v[:4]); !errors.Is(err, eval.ErrWeights) {
		t.Errorf("a short vector: %v, want eval.ErrWeights", err)
	}
}

func TestPlayerCacheSearchers(t *testing.T) {
	set, _ := eval.Set("standard")
	c := NewPlayerCache()
	search := engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 2, LossValue: engine.DefaultLossValue}
	e1, _ := c.Evaluator(set, set.Defaults)
	e2, _ := c.Evaluator(set, []float64{1, 2, 3, 4, 5})
	s1, err := c.Searcher(search, e1)
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := c.Searcher(search, e1)
	if s1 == s2 {
		t.Fatal("a searcher lent twice at once")
	}
	c.Return(search, s1)
	s3, _ := c.Searcher(search, e2)
	if s3 != s1 {
		t.Error("a returned searcher is not lent again")
	}
	// The searcher lent again evaluates with the evaluator it was lent for.
	fresh, _ := engine.NewSearcher(e2, search)
	b := engine.Board(0x0000_0000_0021_1321)
	if got, want := s3.Search(b).Value, fresh.Search(b).Value; got != want {
		t.Errorf("value %v, a fresh searcher's %v", got, want)
	}
	other := search
	other.Depth = 3
	if s4, _ := c.Searcher(other, e1); s4 == s2 || s4 == s3 {
		t.Error("a searcher of another search is lent")
	}
	if _, err := c.Searcher(engine.SearchConfig{Algorithm: "dfs", Depth: 2}, e1); !errors.Is(err, engine.ErrSearch) {
		t.Errorf("a bad search: %v, want engine.ErrSearch", err)
	}
}
