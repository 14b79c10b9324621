package tuner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/evotune/evotune/checkpoints"
	"github.com/evotune/evotune/engine"
)

// payload is what a checkpoint holds for the tuner: the resolved config,
// the state between generations, and how many lines of history.jsonl the
// state covers (lines, not bytes: the lines' wall-clock field varies in
// length between equal runs). The config's worker count is left out: it changes no result,
// so runs on different machines write equal checkpoints.
type payload struct {
	Format       int    `json:"format"`
	Config       string `json:"config"`
	State        State  `json:"state"`
	HistoryLines int    `json:"history_lines"`
}

// payloadFormat versions the payload inside the checkpoint envelope.
const payloadFormat = 1

func encodePayload(cfg *Config, s State, historyLines int) ([]byte, error) {
	c := *cfg
	c.Workers = 0
	yml, err := MarshalConfig(&c)
	if err != nil {
		return nil, err
	}
	return json.Marshal(payload{Format: payloadFormat, Config: string(yml), State: s, HistoryLines: historyLines})
}

// decodeCheckpoint reads a checkpoint's payload: the config (resolved and
// validated) and the state.
func decodeCheckpoint(c *checkpoints.Checkpoint, path string) (*Config, State, int, error) {
	if err := c.CheckRules(); err != nil {
		return nil, State{}, 0, fmt.Errorf("%s: %w", path, err)
	}
	var p payload
	dec := json.NewDecoder(bytes.NewReader(c.Payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, State{}, 0, fmt.Errorf("%w: %s: payload: %w", checkpoints.ErrCorrupt, path, err)
	}
	if p.Format != payloadFormat {
		return nil, State{}, 0, fmt.Errorf("%w: %s: payload format %d, this build reads %d", checkpoints.ErrVersion, path, p.Format, payloadFormat)
	}
	cfg, pos, err := ParseConfig([]byte(p.Config), path+" (config)")
	if err != nil {
		return nil, State{}, 0, err
	}
	cfg.Resolve()
	if err := cfg.Validate(pos); err != nil {
		return nil, State{}, 0, err
	}
	if p.State.Generation != c.Generation || p.HistoryLines < 0 {
		return nil, State{}, 0, fmt.Errorf("%w: %s: payload of generation %d in a checkpoint of generation %d", checkpoints.ErrCorrupt, path, p.State.Generation, c.Generation)
	}
	return cfg, p.State, p.HistoryLines, nil
}

// LoadCheckpoint reads a run's newest good checkpoint (dir is a run
// directory) or a checkpoint file, for export: a tuner at that state, the
// checkpoint's path, and notices about files skipped as corrupt.
func LoadCheckpoint(path string) (*Tuner, string, []string, error) {
	var c *checkpoints.Checkpoint
	var notices []string
	var err error
	if st, serr := os.Stat(path); serr == nil && st.IsDir() {
		dir := path
		if st2, err := os.Stat(filepath.Join(path, CheckpointsDir)); err == nil && st2.IsDir() {
			dir = filepath.Join(path, CheckpointsDir)
		}
		c, path, notices, err = latestCheckpoint(dir)
	} else {
		c, err = checkpoints.ReadFile(path)
	}
	if err != nil {
		return nil, "", nil, err
	}
	cfg, state, _, err := decodeCheckpoint(c, path)
	if err != nil {
		return nil, "", nil, err
	}
	t, err := New(cfg, Events{})
	if err != nil {
		return nil, "", nil, err
	}
	if err := t.Restore(state); err != nil {
		return nil, "", nil, err
	}
	return t, path, notices, nil
}

// latestCheckpoint returns the newest good checkpoint in the checkpoint
// directory dir, its path, and a notice for each newer file skipped as torn,
// corrupt or of an unknown version.
func latestCheckpoint(dir string) (*checkpoints.Checkpoint, string, []string, error) {
	store, err := checkpoints.OpenStore(dir, DefaultKeep)
	if err != nil {
		return nil, "", nil, err
	}
	c, path, skipped, err := store.Latest()
	if err != nil {
		return nil, "", nil, err
	}
	var notices []string
	for _, s := range skipped {
		notices = append(notices, fmt.Sprintf("%v; using %s", s, path))
	}
	return c, path, notices, nil
}

// journalCache serves the games a journal holds for the current generation
// and journals the games played. Its map changes only between generations
// (advance), never while workers look games up, so lookups need no lock.
type journalCache struct {
	j     *checkpoints.Journal
	gen   int
	known map[cacheKey]engine.Result
	hits  atomic.Int64
}

var _ GameCache = (*journalCache)(nil)

type cacheKey struct {
	fingerprint, seed uint64
}

func newJournalCache(j *checkpoints.Journal, entries []checkpoints.Entry, gen int) *journalCache {
	c := &journalCache{j: j, gen: gen, known: map[cacheKey]engine.Result{}}
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
	// An error here (a full disk) surfaces at the next flush, reset or
	// checkpoint; the game itself is not lost, only its journal entry.
	_ = c.j.Append(checkpoints.Entry{Generation: gen, Fingerprint: fp, Seed: seed,
		Score: r.Score, MaxTile: r.MaxTile, Moves: r.Moves, Final: uint64(r.Final)})
}
