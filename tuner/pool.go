package tuner

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

// A Batch is a round of games for a Pool: a family of players, one
// parameter vector per candidate (each picks a player of the family), the
// seeds they all play and a move limit: everything a player needs to replay
// a game exactly, so that a pool on another machine can play it too.
type Batch struct {
	// Generation counts the run's completed generations when the batch was
	// made; a game cache keys its entries by it.
	Generation int
	// Players is the family the candidates' players belong to. A pool plays
	// the kinds of family it knows and refuses the others (ErrPlayers).
	Players Players
	// Vectors holds one parameter vector per candidate, its coordinates
	// named by Players.VectorNames: for FeaturePlayers, the set's weights
	// in order, then its shape parameters.
	Vectors [][]float64
	// Seeds are the game seeds every candidate plays.
	Seeds []uint64
	// MaxMoves stops a game after this many moves; 0 means no limit.
	MaxMoves int
	// Jobs lists the games to play; nil means every candidate on every seed.
	Jobs []Job
	// Ahead marks games played ahead of need: the next generation's first
	// games, played while a validation plays (see SharedPool). A pool
	// gives them the slots no other batch in flight has a game for, so
	// that they never delay a batch the tuner waits for. It changes when
	// games are played, never their results.
	Ahead bool
}

// Players is a family of players, one for each parameter vector: what a
// Batch's candidates are members of. The interface says only what every
// family has, the names of its vectors' coordinates; a Pool type-switches on
// the kinds it can play. FeaturePlayers, a feature set's searchers in this
// process, is the kind this package plays; players of other kinds (programs
// of their own, say) come with a pool that plays them.
type Players interface {
	// VectorNames returns the names of a parameter vector's coordinates,
	// in order.
	VectorNames() []string
}

// FeaturePlayers is the family of engine searchers with a search Search
// that evaluate with a feature set Set: a parameter vector is the set's
// weights, then its shape parameters (eval.FeatureSet.CompileVector).
type FeaturePlayers struct {
	Set    *eval.FeatureSet
	Search engine.SearchConfig
}

var _ Players = FeaturePlayers{}

// VectorNames implements Players.
func (f FeaturePlayers) VectorNames() []string { return f.Set.VectorNames() }

// ErrPlayers is wrapped by the error of a pool asked to play a family of
// players of a kind it cannot play.
var ErrPlayers = errors.New("tuner: players of a kind this pool cannot play")

// featurePlayers returns b's players as FeaturePlayers, or an error naming
// the pool that cannot play any other kind.
func featurePlayers(b *Batch, pool string) (FeaturePlayers, error) {
	fp, ok := b.Players.(FeaturePlayers)
	if !ok || fp.Set == nil {
		return FeaturePlayers{}, fmt.Errorf("%w: %s plays a feature set's searchers, not %T", ErrPlayers, pool, b.Players)
	}
	return fp, nil
}

// A Job is one game of a batch: candidate Candidate on seed Seeds[Game].
type Job struct {
	Candidate, Game int
}

// jobs returns the batch's games, in the order pools hand them out: game by
// game across the candidates, so no candidate waits for another.
func (b *Batch) jobs() []Job {
	if b.Jobs != nil {
		return b.Jobs
	}
	js := make([]Job, 0, len(b.Vectors)*len(b.Seeds))
	for j := range b.Seeds {
		for c := range b.Vectors {
			js = append(js, Job{Candidate: c, Game: j})
		}
	}
	return js
}

// GameDone is told about each finished game of a batch, possibly from
// another goroutine and in any order. replayed is true when the result was
// known (taken from a cache) rather than played.
type GameDone func(j Job, r engine.Result, replayed bool)

// A Pool plays the games of batches. Play stores the result of every job of
// b in results[j.Candidate][j.Game] (results has a row per candidate and a
// column per seed) and calls done, if not nil, as each game ends. Where a
// game is played must not change its result: a game is a pure function of
// its seed and player. On cancellation Play returns an error wrapping
// ctx's once the games in flight have stopped; results are then partial.
//
// LocalPool plays on this machine's cores; Cached wraps any pool with a
// game cache (the run's journal); a pool on many machines lives in
// tuner/natspool. A pool whose slots several batches can share is a
// SharedPool.
type Pool interface {
	Play(ctx context.Context, b *Batch, results [][]engine.Result, done GameDone) error
}

// A SharedPool is a Pool whose slots several batches can share: when Shared
// reports true, Play may be called from several goroutines at once, and
// the batches in flight share the slots, so that a slot with no game left
// of one batch plays another's rather than wait for the first to end.
// Games go to the slots batch by batch in the order Play was called,
// except that a batch marked Ahead gets only the slots no other batch has
// a game for. The tuner plays independent batches this way (a validation
// and the next generation's games) when its pool is shared; a pool that
// is not is given one batch at a time. A wrapper of a pool (Cached) is
// shared when the pool it wraps is.
type SharedPool interface {
	Pool
	Shared() bool
}

// Sequential returns p as a pool that is not shared: the tuner gives it
// one batch at a time and plays nothing ahead, so that each step plays
// only its own games. A benchmark that charges each generation with the
// CPU spent in it (tunebench) wants that; a run does not.
func Sequential(p Pool) Pool { return sequential{p} }

type sequential struct{ p Pool }

func (s sequential) Play(ctx context.Context, b *Batch, results [][]engine.Result, done GameDone) error {
	return s.p.Play(ctx, b, results, done)
}

// shared reports whether Play may be called on p for several batches at
// once.
func shared(p Pool) bool {
	sp, ok := p.(SharedPool)
	return ok && sp.Shared()
}

// A GameCache remembers finished games across interruptions, keyed by the
// generation they belong to (completed generations before them), the
// candidate's vector's fingerprint and the game's seed (see Fingerprint). Its methods
// are called from the goroutines that play.
type GameCache interface {
	Lookup(generation int, fingerprint, seed uint64) (engine.Result, bool)
	Record(generation int, fingerprint, seed uint64, r engine.Result)
}

// Cached returns a pool that takes the games c knows from c and plays the
// others on p, recording each in c as it ends.
func Cached(p Pool, c GameCache) Pool { return &cachedPool{p: p, c: c} }

type cachedPool struct {
	p Pool
	c GameCache
}

var _ SharedPool = (*cachedPool)(nil)

// Shared implements SharedPool: the cache is safe for concurrent use.
func (cp *cachedPool) Shared() bool { return shared(cp.p) }

func (cp *cachedPool) Play(ctx context.Context, b *Batch, results [][]engine.Result, done GameDone) error {
	fps := make([]uint64, len(b.Vectors))
	for c, w := range b.Vectors {
		fps[c] = Fingerprint(w)
	}
	var misses []Job
	for _, j := range b.jobs() {
		r, ok := cp.c.Lookup(b.Generation, fps[j.Candidate], b.Seeds[j.Game])
		if !ok {
			misses = append(misses, j)
			continue
		}
		results[j.Candidate][j.Game] = r
		if done != nil {
			done(j, r, true)
		}
	}
	if len(misses) == 0 {
		return ctx.Err()
	}
	sub := *b
	sub.Jobs = misses
	return cp.p.Play(ctx, &sub, results, func(j Job, r engine.Result, replayed bool) {
		if !replayed {
			cp.c.Record(b.Generation, fps[j.Candidate], b.Seeds[j.Game], r)
		}
		if done != nil {
			done(j, r, replayed)
		}
	})
}

// Fingerprint identifies a parameter vector: FNV-1a over the bits of its
// coordinates, so equal vectors (and only those, up to hash collisions)
// match.
func Fingerprint(w []float64) uint64 {
	h := fnv.New64a()
	var buf [8]byte
	for _, x := range w {
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(x))
		h.Write(buf[:])
	}
	return h.Sum64()
}
