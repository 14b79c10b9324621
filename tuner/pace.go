package tuner

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/internal/cputime"
)

// pacedPool measures the pace of the games its pool plays, for each
// search: the wall-clock time its batches were in flight per game they
// played. A Run puts it under the journal's cache, so that games taken
// from the journal, which cost nothing, never count: after a resume the
// pace is the machine's, not the journal's. While batches of two searches
// are in flight at once (a validation and the next generation's games
// played beside it), neither's games nor time count, since the two share
// the slots in a way the pool alone knows.
//
// Two things change a run's pace, and they are measured apart. Games grow
// longer as the weights improve (a run that doubles its score doubles its
// games' length): a game's CPU time is taken over about the last
// paceWindow of games (the latest paceGames at least, where games are
// slow). The share of the cores the process gets changes with the load of
// a shared machine, from one minute to the next and back: the wall-clock
// time per CPU second is taken over every game of the process, so that a
// burst of load elsewhere does not make the rest of the run look as slow.
// The pace is their product; where the system has no CPU clock, the
// latest games' wall-clock time alone.
type pacedPool struct {
	p Pool

	mu      sync.Mutex
	now     func() time.Time
	cpu     func() (time.Duration, error) // the process's CPU time
	last    time.Time                     // when the counts were last brought up to date
	lastCPU time.Duration                 // the CPU time then
	cpuOK   bool
	active  map[engine.SearchConfig]int   // batches in flight by search
	paces   map[engine.SearchConfig]*pace // what was measured
}

// paceWindow and paceGames are the memory of a game's cost: a game's
// weight falls by e with each paceWindow of the games after it, and by no
// less than 1/paceGames with each game after it.
const (
	paceWindow = time.Minute
	paceGames  = 32
)

// pace is what a pacedPool measured of one search: every game with its
// wall-clock and CPU time, and the latest games (weighted) with theirs.
type pace struct {
	games               int64
	busy, busyCPU       time.Duration
	recent, wall, cpu   float64       // the latest games, their seconds and CPU seconds, weighted
	sinceLast, cpuSince time.Duration // since the last game
}

var _ SharedPool = (*pacedPool)(nil)

func newPacedPool(p Pool) *pacedPool {
	return &pacedPool{p: p, now: time.Now, cpu: cputime.Process,
		active: map[engine.SearchConfig]int{}, paces: map[engine.SearchConfig]*pace{}}
}

// Shared implements SharedPool as the pool it wraps does.
func (pp *pacedPool) Shared() bool { return shared(pp.p) }

// paceKey is the key the pace of a family's games is kept under: its
// search, or one key for every family of another kind (a player's
// program, which searches as it does). Tuner.playersOf gives the family
// of a search, so the estimate looks a pace up as the batches keep it.
func paceKey(p Players) engine.SearchConfig {
	if fp, ok := p.(FeaturePlayers); ok {
		return fp.Search
	}
	return engine.SearchConfig{}
}

func (pp *pacedPool) Play(ctx context.Context, b *Batch, results [][]engine.Result, done GameDone) error {
	key := paceKey(b.Players)
	pp.mu.Lock()
	pp.advance()
	pp.active[key]++
	pp.mu.Unlock()
	defer func() {
		pp.mu.Lock()
		pp.advance()
		if pp.active[key]--; pp.active[key] == 0 {
			delete(pp.active, key)
		}
		pp.mu.Unlock()
	}()
	return pp.p.Play(ctx, b, results, func(j Job, r engine.Result, replayed bool) {
		if !replayed {
			pp.mu.Lock()
			pp.advance()
			if len(pp.active) == 1 {
				pp.of(key).game()
			}
			pp.mu.Unlock()
		}
		if done != nil {
			done(j, r, replayed)
		}
	})
}

// game counts a game that has just ended.
func (p *pace) game() {
	p.games++
	keep := max(math.Exp(-p.sinceLast.Seconds()/paceWindow.Seconds()), 1-1.0/paceGames)
	p.recent = p.recent*keep + 1
	p.wall = p.wall*keep + p.sinceLast.Seconds()
	p.cpu = p.cpu*keep + p.cpuSince.Seconds()
	p.sinceLast, p.cpuSince = 0, 0
}

// advance counts the time since the last call to the one search in
// flight, if only one is; the caller holds mu.
func (pp *pacedPool) advance() {
	now := pp.now()
	var cpu time.Duration
	if pp.cpu != nil {
		c, err := pp.cpu()
		if err == nil && (pp.cpuOK || pp.last.IsZero()) {
			cpu, pp.cpuOK = c, true
		} else {
			pp.cpuOK = false
		}
	}
	if len(pp.active) == 1 {
		for key := range pp.active {
			p := pp.of(key)
			p.busy += now.Sub(pp.last)
			p.sinceLast += now.Sub(pp.last)
			if pp.cpuOK {
				p.busyCPU += cpu - pp.lastCPU
				p.cpuSince += cpu - pp.lastCPU
			}
		}
	}
	pp.last, pp.lastCPU = now, cpu
}

func (pp *pacedPool) of(key engine.SearchConfig) *pace {
	p := pp.paces[key]
	if p == nil {
		p = &pace{}
		pp.paces[key] = p
	}
	return p
}

// perGame returns the wall-clock time a game of search takes at the pace
// measured (on many slots, a fraction of one game's duration), and false
// before a game of it was played.
func (pp *pacedPool) perGame(search engine.SearchConfig) (time.Duration, bool) {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	pp.advance()
	p := pp.paces[search]
	if p == nil || p.games == 0 {
		return 0, false
	}
	var busy, busyCPU time.Duration
	for _, q := range pp.paces {
		busy += q.busy
		busyCPU += q.busyCPU
	}
	if !pp.cpuOK || p.cpu <= 0 || busyCPU <= 0 {
		return time.Duration(p.wall / p.recent * float64(time.Second)), true
	}
	wallPerCPU := busy.Seconds() / busyCPU.Seconds()
	return time.Duration(p.cpu / p.recent * wallPerCPU * float64(time.Second)), true
}

// played returns the games counted so far, of every search, and the time
// they took.
func (pp *pacedPool) played() (games int64, busy time.Duration) {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	pp.advance()
	for _, p := range pp.paces {
		games += p.games
		busy += p.busy
	}
	return games, busy
}
