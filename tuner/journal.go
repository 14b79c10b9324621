package tuner

import (
	"sync/atomic"

	"github.com/evotune/evotune/checkpoints"
	"github.com/evotune/evotune/engine"
)

// journalCache is the run's GameCache: it serves the games the journal
// holds for the current generation and journals the games played. Its map
// changes only between generations (advance), never while games are looked
// up, so lookups need no lock. It wraps the run's pool through Cached.
type journalCache struct {
	j     *checkpoints.Journal // nil until the run opens its journal
	gen   int
	known map[cacheKey]engine.Result
	hits  atomic.Int64
}

var _ GameCache = (*journalCache)(nil)

type cacheKey struct {
	fingerprint, seed uint64
}

func newJournalCache(entries []checkpoints.Entry, gen int) *journalCache {
	c := &journalCache{gen: gen, known: map[cacheKey]engine.Result{}}
	for _, e := range entries {
		if e.Generation != gen {
			continue // from a generation the checkpoint already covers, or a stale one
		}
		c.known[cacheKey{e.Fingerprint, e.Seed}] = engine.Result{
			Seed: e.Seed, Score: e.Score, MaxTile: e.MaxTile, Moves: e.Moves, Final: engine.Board(e.Final),
		}
	}
	return c
}

// advance drops the entries of generations before gen: a checkpoint covers
// them now.
func (c *journalCache) advance(gen int) {
	if gen != c.gen {
		c.gen = gen
		clear(c.known)
	}
}

func (c *journalCache) Lookup(gen int, fp, seed uint64) (engine.Result, bool) {
	if gen != c.gen {
		return engine.Result{}, false
	}
	r, ok := c.known[cacheKey{fp, seed}]
	if ok {
		c.hits.Add(1)
	}
	return r, ok
}

func (c *journalCache) Record(gen int, fp, seed uint64, r engine.Result) {
	if c.j == nil {
		return
	}
	// An error here (a full disk) surfaces at the next flush, reset or
	// checkpoint; the game itself is not lost, only its journal entry.
	_ = c.j.Append(checkpoints.Entry{Generation: gen, Fingerprint: fp, Seed: seed,
		Score: r.Score, MaxTile: r.MaxTile, Moves: r.Moves, Final: uint64(r.Final)})
}
