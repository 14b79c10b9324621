package tuner

import (
	"sync"
	"time"

	"github.com/evotune/evotune/engine"
)

// A run's progress: the phase in progress and its games, from the tuner's
// events; what the rest of the run will play, planned when each phase
// begins (on the tuner's goroutine, the one that may read its state); and
// the pace of the games this process played (pace.go). Progress puts them
// together, from any goroutine, into an estimate of the end (estimate.go).

// Progress is a run's progress as a display shows it.
type Progress struct {
	// Phase is the part of the run in progress, and Done its games
	// finished so far, played or taken from the journal.
	Phase Phase
	Done  int
	// Played and PlayTime are the games this process played (not taken
	// from the journal) that the pace counts, and the time they took: the
	// pace is their ratio.
	Played   int64
	PlayTime time.Duration
	// Elapsed is the run's clock, every process counted.
	Elapsed time.Duration
	// Estimate is when the run ends by its limits, at that pace.
	Estimate Estimate
}

// progress is a Run's part of its progress.
type progress struct {
	pool *pacedPool

	mu   sync.Mutex
	plan runPlan
	done int
	// share is, of the games a generation of the current stage plans,
	// the share its candidates played (racing stops some): as measured
	// on its latest generation after the run's first (whose first games
	// are played beside the start's validation, and so counted there).
	share float64
}

// runPlan is what the rest of a run will play, as it stood when its phase
// in progress began.
type runPlan struct {
	phase       Phase
	search      engine.SearchConfig // the phase's games'
	winnerGames int                 // after a race, its winner's validation
	generations int
	duration    time.Duration
	generation  int
	stageBegan  time.Duration
	stageGen    int
	stages      []stagePlan
}

// stagePlan is a stage's budget and what its parts play.
type stagePlan struct {
	generations        int
	duration           time.Duration
	search, valSearch  engine.SearchConfig
	startGames, finish int     // the start measured again; the race and the winner's validation
	generationGames    float64 // a generation's, before racing's share
}

// instrument puts opts's pool under a pace counter and its events under
// the run's progress.
func (r *Run) instrument(opts Options) Options {
	r.progress.share = 1
	r.progress.pool = newPacedPool(opts.Pool)
	opts.Pool = r.progress.pool
	ev := opts.Events
	opts.Events.Game = func(replayed bool) {
		r.progress.mu.Lock()
		r.progress.done++
		r.progress.mu.Unlock()
		if ev.Game != nil {
			ev.Game(replayed)
		}
	}
	opts.Events.Phase = func(p Phase) {
		r.enter(p)
		if ev.Phase != nil {
			ev.Phase(p)
		}
	}
	return opts
}

// enter begins phase p: the plan of the rest of the run is made again from
// the tuner's state, and the generation that ended, if one did, says what
// share of its games racing let the candidates play.
func (r *Run) enter(p Phase) {
	pl := r.planFrom(p)
	pr := &r.progress
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if prev := pr.plan.phase; prev.Kind == PhaseGeneration && prev.Generation >= 2 && prev.Games > 0 && pr.done > 0 {
		pr.share = min(float64(pr.done)/float64(prev.Games), 1)
	}
	if p.Stage != pr.plan.phase.Stage {
		pr.share = 1
	}
	pr.plan, pr.done = pl, 0
}

// planFrom plans the rest of the run as phase p begins.
func (r *Run) planFrom(p Phase) runPlan {
	t := r.t
	cfg := t.cfg
	pl := runPlan{phase: p, search: t.valSearch, generations: cfg.Generations, duration: time.Duration(cfg.Duration),
		generation: t.state.Generation, stageBegan: t.stageBegan, stageGen: t.state.StageGeneration}
	switch p.Kind {
	case PhaseGeneration:
		pl.search = t.search
	case PhaseRace:
		pl.winnerGames = cfg.Validation.Games
	case PhaseStart:
		if p.Stage > 0 {
			// Measured again as the stage begins: its clock starts now
			// (the tuner notes it once the generation is saved).
			pl.stageBegan = r.Elapsed()
		}
	}
	for i, st := range t.stages {
		sp := stagePlan{generations: st.Generations, duration: time.Duration(st.Duration), search: *st.Search,
			valSearch: cfg.StageValidationSearch(i)}
		if i > 0 && sp.valSearch != cfg.StageValidationSearch(i-1) {
			sp.startGames = cfg.Validation.Games
		}
		sp.finish = cfg.Validation.Games + t.raceAtMost()
		if i == t.state.Stage {
			sp.generationGames = float64(t.GenerationPhase().Games)
		} else {
			sp.generationGames = float64(r.stageGames(i))
		}
		pl.stages = append(pl.stages, sp)
	}
	return pl
}

// raceAtMost is the most games a stage's final race plays: its start, its
// latest mean, the average of its last means where that is another point,
// its finalists and the model's point, each validation.select games.
func (t *Tuner) raceAtMost() int {
	v := t.cfg.Validation
	if v.Select == 0 {
		return 0
	}
	k := 2 + v.Finalists
	if v.Model {
		k++
	}
	if t.averageWindow(t.state.Generation-t.state.StageGeneration) > 1 {
		k++
	}
	return k * v.Select
}

// stageGames is the games a generation of stage i plays at its start: its
// candidates on its games per candidate (noise handling's first figure)
// and noise handling's re-evaluations.
func (r *Run) stageGames(i int) int {
	t := r.t
	if r.lambdas == nil {
		r.lambdas = map[int]int{}
	}
	lam, ok := r.lambdas[i]
	if !ok {
		lam = t.opt.Lambda()
		if free, err := freeCoordinates(t.cfg, *t.stages[i].Search); err == nil {
			if opt, err := newOptimizer(t.cfg, t.stages[i], optimizerSeed(t.cfg.Seed, i), t.set, t.names, free, t.init, t.init); err == nil {
				lam = opt.Lambda()
			}
		}
		r.lambdas[i] = lam
	}
	n := t.stages[i].Games
	if t.cfg.Noise.Handling {
		n = t.cfg.Noise.startGames(n)
	}
	return int(t.generationGames(lam, n))
}

// Progress returns the run's progress and the estimate of its end. It is
// safe from any goroutine: the pool's and the tuner's included.
func (r *Run) Progress() Progress {
	pr := &r.progress
	pr.mu.Lock()
	pl, done, share := pr.plan, pr.done, pr.share
	pr.mu.Unlock()
	p := Progress{Phase: pl.phase, Done: done, Elapsed: r.Elapsed()}
	if pr.pool == nil || pl.stages == nil {
		p.Estimate = Estimate{Open: true}
		return p
	}
	p.Played, p.PlayTime = pr.pool.played()
	p.Estimate = EstimateEnd(r.outlook(pl, done, share, p.Elapsed))
	return p
}

// outlook prices the plan at the pace measured.
func (r *Run) outlook(pl runPlan, done int, share float64, now time.Duration) Outlook {
	cost := func(games float64, search engine.SearchConfig) time.Duration {
		if games <= 0 {
			return 0
		}
		per, ok := r.progress.pool.perGame(paceKey(r.t.playersOf(search)))
		if !ok {
			return -1
		}
		return time.Duration(games * float64(per))
	}
	sum := func(a, b time.Duration) time.Duration {
		if a < 0 || b < 0 {
			return -1
		}
		return a + b
	}
	planned := float64(pl.phase.Games)
	if pl.phase.Kind == PhaseGeneration {
		planned *= share
	}
	o := Outlook{Elapsed: now, Generations: pl.generations, Duration: pl.duration, Generation: pl.generation,
		Phase: pl.phase, StageBegan: pl.stageBegan, StageGeneration: pl.stageGen,
		Left: sum(cost(max(planned-float64(done), 0), pl.search), cost(float64(pl.winnerGames), pl.search))}
	for i, sp := range pl.stages {
		games := sp.generationGames
		if i == pl.phase.Stage {
			games *= share
		}
		o.Stages = append(o.Stages, StageOutlook{Generations: sp.generations, Duration: sp.duration,
			Start: cost(float64(sp.startGames), sp.valSearch), Generation: cost(games, sp.search),
			Finish: cost(float64(sp.finish), sp.valSearch)})
	}
	return o
}

// Resumed reports whether the run was resumed, and then the finished games
// its journal gives back instead of their being played again.
func (r *Run) Resumed() (resumed bool, journalled int) {
	return r.resumed, r.cache.journalled()
}
