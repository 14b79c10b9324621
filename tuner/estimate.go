package tuner

import (
	"cmp"
	"time"
)

// Outlook is what an estimate of a run's end is made from: the run's
// limits, where it stands, and what its parts cost at the pace of the games
// it has played. EstimateEnd is a pure function of it, so the estimate is
// tested on made-up paces, without a clock; Run.Progress makes one from
// the run.
type Outlook struct {
	// Elapsed is the run's clock now, every process counted.
	Elapsed time.Duration
	// Generations and Duration are the run's own limits; 0: none.
	Generations int
	Duration    time.Duration
	// Generation is the generations completed.
	Generation int
	// Phase is the part of the run in progress (its Stage the current
	// stage), and Left what it still costs: for a race, with the
	// validation of its winner. Negative: not known yet.
	Phase Phase
	Left  time.Duration
	// StageBegan is the run's clock when the current stage began, and
	// StageGeneration the generations completed then.
	StageBegan      time.Duration
	StageGeneration int
	// Stages are the run's stages from the first (one for a run without
	// stages).
	Stages []StageOutlook
}

// StageOutlook is a stage's budget and what its parts cost. A negative
// cost is not known yet: the stage's search has played no game.
type StageOutlook struct {
	// Generations and Duration are the stage's budget; 0: none.
	Generations int
	Duration    time.Duration
	// Start is what measuring the starting weights again costs as the
	// stage begins, where it validates with another search than the stage
	// before; 0 where it does not.
	Start time.Duration
	// Generation is what one of its generations costs; Finish, its final
	// race and the validation of the winner.
	Generation, Finish time.Duration
}

// Estimate is when a run is expected to end by its limits.
type Estimate struct {
	// End is the run's clock at its end.
	End time.Duration
	// By is the limit that ends it: "generations" or "duration" (the
	// run's), or "stage generations" or "stage duration" (its last
	// stage's budget); "convergence" in the race after the optimizer of
	// the last stage converged.
	By string
	// AtLeast says a part's cost is not known yet (a later stage's search
	// has played no game): the run ends at End at the earliest.
	AtLeast bool
	// Open says that no limit ends the run (none is set, or none the
	// estimate can reach): only an interruption or the optimizer's
	// convergence ends it, and End means nothing.
	Open bool
}

// maxEstimatedGenerations bounds the generations EstimateEnd plays forward:
// a run that far from its end has no estimate worth the name.
const maxEstimatedGenerations = 1_000_000

// EstimateEnd plays the rest of a run forward on the clock, as the tuner
// would: the phase in progress, then generation after generation, each
// followed by the checks the tuner makes at a generation's end (the run's
// generations and duration, then the stage's budget; a stage that ends
// races and validates its winner, the next begins), until the run ends.
// A generation, race or validation costs what the outlook says; a stage
// whose cost is not known yet is taken to its limits at no cost (AtLeast).
// An optimizer that converges ends a run sooner than this says.
func EstimateEnd(o Outlook) Estimate {
	if len(o.Stages) == 0 || o.Phase.Stage < 0 || o.Phase.Stage >= len(o.Stages) {
		return Estimate{Open: true}
	}
	var e Estimate
	clock := o.Elapsed
	add := func(d time.Duration) {
		if d < 0 {
			e.AtLeast = true
			return
		}
		clock += d
	}
	st, done := o.Phase.Stage, o.Generation
	began, from := o.StageBegan, o.StageGeneration
	runEnd := func() string {
		switch {
		case o.Generations > 0 && done >= o.Generations:
			return "generations"
		case o.Duration > 0 && clock >= o.Duration:
			return "duration"
		}
		return ""
	}
	stageEnd := func() string {
		s := o.Stages[st]
		switch {
		case s.Generations > 0 && done-from >= s.Generations:
			return "stage generations"
		case s.Duration > 0 && clock-began >= s.Duration:
			return "stage duration"
		}
		return ""
	}
	end := func(by string) Estimate {
		e.End, e.By = clock, by
		return e
	}
	// A stage that played no generation has no race, and its winner, its
	// start, was measured: its end costs nothing.
	finish := func() {
		if done > from {
			add(o.Stages[st].Finish)
		}
	}

	switch o.Phase.Kind {
	case PhaseGeneration:
		add(o.Left)
		done = o.Phase.Generation
	case PhaseRace, PhaseWinner:
		// The stage or the run ended after the phase's generation; which
		// one, its limits said then. A last stage that ended by none of
		// them converged.
		done = o.Phase.Generation
		by := runEnd()
		if by == "" && st == len(o.Stages)-1 {
			by = cmp.Or(stageEnd(), "convergence")
		}
		add(o.Left)
		if by != "" {
			return end(by)
		}
		st, began, from = st+1, clock, done
		add(o.Stages[st].Start)
	default:
		add(o.Left)
	}

	for range maxEstimatedGenerations {
		if by := runEnd(); by != "" {
			finish()
			return end(by)
		}
		if by := stageEnd(); by != "" {
			finish()
			if st == len(o.Stages)-1 {
				return end(by)
			}
			st, began, from = st+1, clock, done
			add(o.Stages[st].Start)
			continue
		}
		s := o.Stages[st]
		if s.Generation > 0 {
			clock += s.Generation
			done++
			continue
		}
		// A stage whose generations cost is not known: to its nearest
		// limit in generations at no cost (its time would only add), or
		// else to its nearest in time.
		e.AtLeast = true
		gens := -1
		if o.Generations > 0 {
			gens = o.Generations
		}
		if s.Generations > 0 && (gens < 0 || from+s.Generations < gens) {
			gens = from + s.Generations
		}
		if gens >= 0 {
			done = max(done, gens)
			continue
		}
		at := time.Duration(-1)
		if o.Duration > 0 {
			at = o.Duration
		}
		if s.Duration > 0 && (at < 0 || began+s.Duration < at) {
			at = began + s.Duration
		}
		if at < 0 {
			return Estimate{Open: true}
		}
		clock = max(clock, at)
	}
	return Estimate{Open: true}
}
