package tuner

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/evotune/evotune/checkpoints"
	"github.com/evotune/evotune/engine"
)

// journalCache is the run's GameCache: it serves the games the journal
// holds for the current generation and later ones, and journals the games
// played. It wraps the run's pool through Cached.
//
// A game belongs to the generation of the checkpoint it would be replayed
// from. Most are the current generation's; a game played ahead (the next
// generation's first games, played while a validation plays) belongs to a
// later one, whose checkpoint may not exist yet when the game ends. The
// cache keeps such games in memory, so that the journal, emptied when a
// checkpoint is saved (advance), holds them again at once: a crash after
// the checkpoint still finds them. A resumed run reads every game of the
// checkpoint's generation and later ones.
type journalCache struct {
	j    *checkpoints.Journal // nil until the run opens its journal
	hits atomic.Int64

	mu    sync.RWMutex
	gen   int // the newest checkpoint's generation
	known map[cacheKey]engine.Result
	later []checkpoints.Entry // games of generations after gen, which a reset keeps
}

var _ GameCache = (*journalCache)(nil)

type cacheKey struct {
	gen               int
	fingerprint, seed uint64
}

func newJournalCache(entries []checkpoints.Entry, gen int) *journalCache {
	c := &journalCache{gen: gen, known: map[cacheKey]engine.Result{}}
	for _, e := range entries {
		if e.Generation < gen {
			continue // from a generation the checkpoint already covers
		}
		c.known[cacheKey{e.Generation, e.Fingerprint, e.Seed}] = result(e)
		if e.Generation > gen {
			c.later = append(c.later, e)
		}
	}
	return c
}

func result(e checkpoints.Entry) engine.Result {
	return engine.Result{Seed: e.Seed, Score: e.Score, MaxTile: e.MaxTile, Moves: e.Moves, Final: engine.Board(e.Final)}
}

// advance empties the journal once the checkpoint of generation gen is
// saved, keeping the games of gen and later generations that are known,
// and drops what the checkpoint covers from memory.
func (c *journalCache) advance(gen int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		c.gen = gen
		for k := range c.known {
			if k.gen < gen {
				delete(c.known, k)
			}
		}
	}
	var keep []checkpoints.Entry
	rest := c.later[:0]
	for _, e := range c.later {
		if e.Generation >= gen {
			keep = append(keep, e)
		}
		if e.Generation > gen {
			rest = append(rest, e)
		}
	}
	clear(c.later[len(rest):])
	c.later = rest
	if c.j == nil {
		return nil
	}
	return c.j.Reset(keep...)
}

func (c *journalCache) Lookup(gen int, fp, seed uint64) (engine.Result, bool) {
	c.mu.RLock()
	r, ok := c.known[cacheKey{gen, fp, seed}]
	c.mu.RUnlock()
	if ok {
		c.hits.Add(1)
	}
	return r, ok
}

func (c *journalCache) Record(gen int, fp, seed uint64, r engine.Result) {
	e := checkpoints.Entry{Generation: gen, Fingerprint: fp, Seed: seed,
		Score: r.Score, MaxTile: r.MaxTile, Moves: r.Moves, Final: uint64(r.Final)}
	// Under the lock, so that no game falls between the entries a reset
	// keeps and the journal emptied.
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen > c.gen {
		c.later = append(c.later, e)
	}
	if c.j == nil {
		return
	}
	// An error here (a full disk) surfaces at the next flush, reset or
	// checkpoint; the game itself is not lost, only its journal entry.
	_ = c.j.Append(e)
}

// clock journals the run's clock under the generation in progress. Like a
// game's entry, a failed write surfaces at the next flush, reset or
// checkpoint.
func (c *journalCache) clock(elapsed, cpu time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.j != nil {
		_ = c.j.AppendClock(checkpoints.Clock{Generation: c.gen, Elapsed: elapsed, CPU: cpu})
	}
}

// journalled returns the number of games the cache holds: at resume, those
// the journal gives back instead of their being played again.
func (c *journalCache) journalled() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.known)
}
