package tuner

import (
	"slices"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/engine/stats"
)

// State is everything a run needs to continue exactly where it stopped
// between two generations. It holds no wall-clock time, so equal runs have
// equal states.
type State struct {
	// Generation counts the completed generations.
	Generation int `json:"generation"`
	// Games counts every game played so far, tuning and validation.
	Games int64 `json:"games"`
	// Optimizer is the optimizer's serialized state, RNG included.
	Optimizer []byte `json:"optimizer"`
	// Start is the starting weights' validation (the current stage's
	// starting weights under the validation search of the stage where
	// that search changed); Validated the latest validated mean: the
	// winner of the final race of a stage or of the run, the
	// recommended weights (see Recommended).
	Start     *Validation `json:"start,omitempty"`
	Validated *Validation `json:"validated,omitempty"`
	// Means are the current stage's latest distribution means, the last
	// validation.average of them, in the order of their generations: the
	// recommendation is their average (see race.go).
	Means []Finalist `json:"means,omitempty"`
	// Finalists are, under validation.finalists, the current stage's
	// earlier means that race at its end: the mean every validation.every
	// generations of the stage, the latest validation.finalists + 1 of them
	// kept (a race has those before its own generation), in the order of
	// their generations.
	Finalists []Finalist `json:"finalists,omitempty"`
	// Samples are, under validation.model, the current stage's latest
	// generations' candidates that the model fits (model.go), in the
	// order of their generations; nil otherwise, and in the checkpoints
	// of an evotune before the model, whose model then fits the
	// generations played since.
	Samples []Sample `json:"samples,omitempty"`
	// Concluded is the generation after which the latest final race ran
	// (with Validated, its winner's validation): a run that finishes or
	// begins its next stage there does not race again.
	Concluded int `json:"concluded,omitempty"`
	// Finished is why the run finished; empty while it goes on. Its JSON
	// name stays "done", so that older checkpoints load.
	Finished string `json:"done,omitempty"`
	// SeedCounter is the next tuning-seed counter to take (see seeds.go):
	// every game on tuning seeds takes the next one, in order, across
	// stages, so no two of a run's tuning games share a seed.
	SeedCounter uint64 `json:"seed_counter,omitempty"`
	// Noise is noise handling's state, nil before its first generation.
	Noise *NoiseState `json:"noise,omitempty"`
	// Stage is the current stage (0-based; always 0 without stages).
	// StageGeneration is the generations completed when it began and
	// StageStart the full weight vector it started from (nil in the first
	// stage, which starts from init): the optimizer of a later stage is
	// rebuilt from them before its state is restored. All are zero (and
	// left out) in the first stage, so a run without stages has the state
	// it had before stages existed.
	Stage           int `json:"stage,omitempty"`
	StageGeneration int `json:"stage_generation,omitempty"`
	// StageEvaluations counts the candidate evaluations of the
	// optimizers before the current one (earlier stages', and those a
	// fallback replaced), which are gone.
	StageEvaluations int       `json:"stage_evaluations,omitempty"`
	StageStart       []float64 `json:"stage_start,omitempty"`
}

// Validation is a weight vector measured on the validation seeds.
type Validation struct {
	Generation int       `json:"generation"` // completed generations when measured (0 = start)
	Weights    []float64 `json:"weights"`    // the full vector, in feature order
	Fitness    float64   `json:"fitness"`    // the fitness metric over the validation games
	Mean       float64   `json:"mean"`       // mean score
	CI95       float64   `json:"ci95"`       // half-width of the mean score's 95% t interval
	Median     float64   `json:"median"`     // median score
	Games      int       `json:"games"`
	// Stage is the stage (0-based) whose mean was measured, and so whose
	// search the weights were tuned with.
	Stage int `json:"stage,omitempty"`
	// Scores and MaxTiles are the games one by one, in seed order, so that
	// two validations on the same seeds compare game by game (TunedVsStart).
	Scores   []int `json:"scores,omitempty"`
	MaxTiles []int `json:"max_tiles,omitempty"`
	// Average is, for the winner of a final race that was the average of
	// its stage's last means, how many means it averaged (those of
	// generations Generation-Average+1 to Generation); 0 for one mean.
	Average int `json:"average,omitempty"`
	// Model is, for a winner that was the model's point, the generations
	// its fit spans (ending at Generation); 0 otherwise.
	Model int `json:"model,omitempty"`
	// Race is the final race that chose these weights.
	Race *RecordRace `json:"race,omitempty"`
}

// A Finalist is a distribution mean kept to race at its stage's end.
type Finalist struct {
	Generation int       `json:"generation"` // completed generations when it was the mean
	Weights    []float64 `json:"weights"`    // the full vector, in feature order
}

// Results returns the validation's games as results on the validation
// seeds of the run seed runSeed (nil if the games were not recorded).
func (v *Validation) Results(runSeed uint64) []engine.Result {
	if v == nil || len(v.Scores) != v.Games || len(v.MaxTiles) != v.Games {
		return nil
	}
	rs := make([]engine.Result, v.Games)
	for j := range rs {
		rs[j] = engine.Result{Seed: ValidationSeed(runSeed, j), Score: v.Scores[j], MaxTile: v.MaxTiles[j]}
	}
	return rs
}

// TunedVsStart compares the tuned weights (A) with the starting ones (B)
// game by game on their common validation seeds, the statistics of
// evotune compare. It reports false when either validation did not record
// its games (a checkpoint of an older evotune) or the tuned weights are
// the starting ones; the run summary and the report both print from it.
func TunedVsStart(runSeed uint64, start, tuned *Validation) (stats.Comparison, bool) {
	a, b := tuned.Results(runSeed), start.Results(runSeed)
	if a == nil || b == nil || tuned.Generation == 0 {
		return stats.Comparison{}, false
	}
	c, err := stats.Compare(a, b)
	if err != nil {
		return stats.Comparison{}, false
	}
	return c, true
}

// clone returns a copy of s that shares no memory with it.
func (s State) clone() State {
	s.Optimizer = slices.Clone(s.Optimizer)
	if s.Noise != nil {
		n := *s.Noise
		s.Noise = &n
	}
	s.StageStart = slices.Clone(s.StageStart)
	s.Finalists = slices.Clone(s.Finalists)
	s.Means = slices.Clone(s.Means)
	// A sample's slices are never written once kept.
	s.Samples = slices.Clone(s.Samples)
	return s
}
