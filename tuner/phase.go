package tuner

import "fmt"

// A PhaseKind is what a run is doing: the parts a progress display names
// and an estimate of the end adds up.
type PhaseKind int

const (
	// PhaseStart measures the starting weights on the validation games:
	// before the first generation, and again when a stage validates with
	// another search.
	PhaseStart PhaseKind = iota
	// PhaseGeneration plays a generation's candidates.
	PhaseGeneration
	// PhaseRace is a stage's final race (race.go).
	PhaseRace
	// PhaseWinner measures the race's winner on the validation games.
	PhaseWinner
)

// A Phase is the part of a run in progress, as Events.Phase tells it when
// it begins.
type Phase struct {
	Kind PhaseKind
	// Generation is, for PhaseGeneration, the generation played (1 for
	// the first); for the others, the generations completed before it.
	Generation int
	// Stage is the stage (0-based) the phase belongs to.
	Stage int
	// Games is the most games the phase plays: what a progress bar counts
	// to. Racing stops candidates and entrants early, so a phase may end
	// below it; games played ahead of a generation (beside the start's
	// validation) are counted in the phase they are played in.
	Games int
}

// String names the phase for people.
func (p Phase) String() string {
	switch p.Kind {
	case PhaseStart:
		return "validating the start"
	case PhaseGeneration:
		return fmt.Sprintf("generation %d", p.Generation)
	case PhaseRace:
		return "the final race"
	case PhaseWinner:
		return "validating the winner"
	}
	return fmt.Sprintf("phase %d", int(p.Kind))
}

// announce tells Events.Phase that p begins, in the current stage.
func (t *Tuner) announce(p Phase) {
	if t.events.Phase == nil {
		return
	}
	p.Stage = t.state.Stage
	t.events.Phase(p)
}

// GenerationPhase is the phase of the next generation: its number and the
// most games it plays (StepGames).
func (t *Tuner) GenerationPhase() Phase {
	games := t.generationGames(t.opt.Lambda(), t.NextGames())
	return Phase{Kind: PhaseGeneration, Generation: t.state.Generation + 1, Stage: t.state.Stage, Games: int(games)}
}
