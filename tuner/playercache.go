package tuner

import (
	"slices"
	"sync"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

// A PlayerCache keeps what playing FeaturePlayers costs to prepare: the
// candidates' evaluators, compiled once per feature set and vector (building
// a set's row tables costs more than a short game), and searchers, built
// once per search with their transposition tables and lent out one
// goroutine at a time. The local pool and the NATS worker each hold one and
// share it between their goroutines; it is safe for concurrent use. Nothing
// of it is on the hot path: a searcher calls its evaluator directly.
type PlayerCache struct {
	mu    sync.Mutex
	evals map[evalKey]cachedEval
	idle  map[engine.SearchConfig][]engine.Searcher
}

// evalCacheSize bounds the evaluators kept: a generation's candidates and
// its validation, many times over. A full cache is emptied rather than
// trimmed: a run moves on from one generation's vectors to the next's.
const evalCacheSize = 256

type evalKey struct {
	set *eval.FeatureSet
	fp  uint64 // Fingerprint of the vector
}

type cachedEval struct {
	v []float64 // the vector, to tell a fingerprint collision from a hit
	e engine.Evaluator
}

// NewPlayerCache returns an empty cache.
func NewPlayerCache() *PlayerCache {
	return &PlayerCache{evals: map[evalKey]cachedEval{}, idle: map[engine.SearchConfig][]engine.Searcher{}}
}

// Evaluator returns set's evaluator of the vector v (weights, then shape
// parameters), compiled on first use.
func (c *PlayerCache) Evaluator(set *eval.FeatureSet, v []float64) (engine.Evaluator, error) {
	key := evalKey{set, Fingerprint(v)}
	c.mu.Lock()
	ce, ok := c.evals[key]
	c.mu.Unlock()
	if ok && slices.Equal(ce.v, v) {
		return ce.e, nil
	}
	// Compiled outside the lock: two goroutines may compile the same vector
	// at once, which costs time but no correctness (equal evaluators).
	e, err := set.CompileVector(v)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.evals) >= evalCacheSize {
		clear(c.evals)
	}
	c.evals[key] = cachedEval{slices.Clone(v), e}
	c.mu.Unlock()
	return e, nil
}

// Searcher lends a searcher of the search s, evaluating with e: an idle one
// if there is one, else a new one. Give it back with Return when its games
// are over.
func (c *PlayerCache) Searcher(s engine.SearchConfig, e engine.Evaluator) (engine.Searcher, error) {
	c.mu.Lock()
	idle := c.idle[s]
	if n := len(idle); n > 0 {
		sr := idle[n-1]
		c.idle[s] = idle[:n-1]
		c.mu.Unlock()
		sr.SetEvaluator(e)
		return sr, nil
	}
	c.mu.Unlock()
	return engine.NewSearcher(e, s)
}

// Return gives back a searcher lent by Searcher for the search s.
func (c *PlayerCache) Return(s engine.SearchConfig, sr engine.Searcher) {
	c.mu.Lock()
	c.idle[s] = append(c.idle[s], sr)
	c.mu.Unlock()
}
