package tuner

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// Record is one generation's line in history.jsonl.
type Record struct {
	Generation int `json:"generation"` // completed generations, from 1
	// Stage is the stage this generation was played in, from 1; 0
	// (omitted) in a run without stages.
	Stage       int     `json:"stage,omitempty"`
	Evaluations int     `json:"evaluations"` // candidate evaluations so far
	Games       int64   `json:"games"`       // games played so far, tuning, races and validations
	Lambda      int     `json:"lambda"`      // candidates in this generation
	Best        float64 `json:"best"`        // best candidate fitness of this generation
	Median      float64 `json:"median"`      // median candidate fitness
	Mean        float64 `json:"mean"`        // mean candidate fitness
	Sigma       float64 `json:"sigma"`       // step size after the update, normalised coordinates
	// AxisRatio is the ratio of the longest to the shortest axis of the
	// search distribution after the update (the square root of the
	// covariance's condition number); 0 (omitted) when not finite.
	AxisRatio float64 `json:"axis_ratio,omitempty"`
	Restarts  int     `json:"restarts"` // IPOP restarts so far
	// LearningRates are CMA-ES's learning rates after the update under
	// optimizer.lr_adapt; absent without it.
	LearningRates *LearningRates `json:"learning_rates,omitempty"`
	// Weights is the distribution mean after the update, by feature.
	Weights WeightMap `json:"weights"`
	// Noise is the generation's noise handling, when the run has it.
	Noise *RecordNoise `json:"noise,omitempty"`
	// Finalist marks a generation whose mean is kept to race at the
	// stage's end (every validation.every generations of a stage).
	Finalist bool `json:"finalist,omitempty"`
	// Validation is the final race and the validation of its winner, when
	// the stage or the run ended after this generation.
	Validation *RecordValidation `json:"validation,omitempty"`
	// StageEnd is why the stage ended after this generation, when it did
	// and the run goes on in the next stage.
	StageEnd string `json:"stage_end,omitempty"`
	// Stop is why the run stopped after this generation, if it did.
	Stop string `json:"stop,omitempty"`
	// Elapsed is the wall-clock time of the run so far. It and CPU are the
	// fields that differ between two runs with equal configs.
	Elapsed float64 `json:"elapsed_s"`
	// CPU is the CPU time of the run so far, in seconds, user and system:
	// the evotune processes that ran it (every in-process worker, earlier
	// processes of a resumed run included), not player processes or NATS
	// workers. Absent where the system has no CPU clock. What a result
	// costs, as wall time on a shared machine is not.
	CPU float64 `json:"cpu_s,omitempty"`
}

// LearningRates are the learning rates of learning rate adaptation, each
// in (0, 1]: 1 is plain CMA-ES's update; the lower, the more of the
// updates the optimizer judged noise.
type LearningRates struct {
	Mean       float64 `json:"mean"`
	Covariance float64 `json:"covariance"`
}

// RecordValidation is a validation as history.jsonl shows it: the
// winner of a stage's final race, measured on the validation games.
type RecordValidation struct {
	// Generation is the generation whose mean was measured (the race's
	// winner; for an average, its last generation); 0 (omitted) for the
	// start and in lines of an older evotune, which measured the line's
	// own generation's mean.
	Generation int `json:"of_generation,omitempty"`
	// Average is, where the winner was the average of the stage's last
	// means, how many it averaged.
	Average int `json:"average,omitempty"`
	// Model is, where the winner was the model's point, the generations
	// its fit spans (ending at Generation).
	Model   int     `json:"model,omitempty"`
	Fitness float64 `json:"fitness"`
	Mean    float64 `json:"mean"`
	CI95    float64 `json:"ci95"`
	Median  float64 `json:"median"`
	Games   int     `json:"games"`
	// Race is the final race that chose the measured mean; absent where
	// none ran (validation.select: 0).
	Race *RecordRace `json:"race,omitempty"`
	// Start is the run's starting weights on the same validation games,
	// with the same search, so that a stage's winner read back from the
	// history (Tuner.SelectStage) has the figure it gained on; absent in
	// the lines of an older evotune.
	Start *RecordFigure `json:"start,omitempty"`
	// Recommended and Fallback are read from the lines of an older
	// evotune: the generation recommended after the line's validation
	// when it was not the line's own (recommend: best, or a fallback),
	// and the generation a fallback went back to. Never written.
	Recommended int `json:"recommended,omitempty"`
	Fallback    int `json:"fallback,omitempty"`
}

// RecordFigure is a validation's figures without its weights.
type RecordFigure struct {
	Fitness float64 `json:"fitness"`
	Mean    float64 `json:"mean"`
	CI95    float64 `json:"ci95"`
	Median  float64 `json:"median"`
	Games   int     `json:"games"`
}

// RecordRace is a final race (see race.go), or, in the lines of an older
// evotune, the race of a validated mean against the recommended one.
type RecordRace struct {
	// Games is the race's games played by the entrants that played to
	// the end, each on the same seeds.
	Games int `json:"games"`
	// Entrants are the race's entrants: the stage's start, its finalists
	// in the order of their generations, and the average of its last
	// means.
	Entrants []RaceEntrant `json:"entrants,omitempty"`
	// Recommends is the generation of the winner, the mean recommended
	// after the race, and Winner its index in Entrants (the latest mean
	// and the average of the last means end at the same generation).
	Recommends int `json:"recommends"`
	Winner     int `json:"winner,omitempty"`
	// Model is, under validation.model, what the model's fit was: its
	// entrant's, or why it has none.
	Model *RecordModel `json:"model,omitempty"`
	// Incumbent, Against, Fitness and Fallback are read from the lines of
	// an older evotune: the generation recommended before its race, its
	// fitness on the race's games and the new mean's, and whether the
	// optimizer fell back to the incumbent. Never written.
	Incumbent int     `json:"incumbent,omitempty"`
	Against   float64 `json:"against,omitempty"`
	Fitness   float64 `json:"fitness,omitempty"`
	Fallback  bool    `json:"fallback,omitempty"`
}

// RaceEntrant is one point of a final race.
type RaceEntrant struct {
	// Generation is the generation whose mean the entrant is (the
	// stage's start: the generation whose mean the stage started from, 0
	// in the first stage).
	Generation int  `json:"generation"`
	Start      bool `json:"start,omitempty"`
	// Average is, for the average of the stage's last means, how many it
	// averaged (ending at Generation); 0 (omitted) for one mean.
	Average int `json:"average,omitempty"`
	// Model is, for the model's point (validation.model), the generations
	// its fit spans (ending at Generation), and Weights the point, which
	// no other line holds; 0 (omitted) and nil for every other entrant.
	Model   int        `json:"model,omitempty"`
	Weights *WeightMap `json:"weights,omitempty"`
	// Games is the games it played: the race's, or fewer where it was
	// shown worse than the leader and stopped; Stopped says it was (also
	// at the race's last look, where it played as many as the winner).
	Games   int     `json:"games"`
	Stopped bool    `json:"stopped,omitempty"`
	Fitness float64 `json:"fitness"` // its fitness on the games it played
}

// RecordModel is the fit behind a final race's model entrant (see
// model.go), or why there is none.
type RecordModel struct {
	// First is the first generation of the window whose candidates it
	// kept (0 where it kept none).
	First int `json:"first"`
	// Generations and Points are the generations and candidates fitted
	// (a generation with fewer than two candidates that played to the
	// end says nothing and is left out).
	Generations int `json:"generations"`
	Points      int `json:"points"`
	// Basis is "coordinates" (the tuned coordinates, scaled) or
	// "principal axes" (of the candidates' covariance, above 8 tuned
	// coordinates).
	Basis string `json:"basis,omitempty"`
	// Curved counts the fitted coordinates where the point is a
	// significant maximum's vertex, Sloped those where it is a step along
	// a significant slope; the rest stay at the centre.
	Curved int `json:"curved"`
	Sloped int `json:"sloped"`
	// None is why the model has no point (too few points, an
	// ill-conditioned fit); empty where it raced.
	None string `json:"none,omitempty"`
}

// WeightMap is a weight vector written as a JSON object in feature order.
type WeightMap struct {
	Names  []string
	Values []float64
}

// MarshalJSON writes {"name": value, ...} in feature order.
func (m WeightMap) MarshalJSON() ([]byte, error) {
	var sb strings.Builder
	sb.WriteByte('{')
	for i, n := range m.Names {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, "%q:%s", n, formatFloat(m.Values[i]))
	}
	sb.WriteByte('}')
	return []byte(sb.String()), nil
}

// asMap returns the weights by name.
func (m WeightMap) asMap() map[string]float64 {
	w := make(map[string]float64, len(m.Names))
	for i, n := range m.Names {
		w[n] = m.Values[i]
	}
	return w
}

// UnmarshalJSON reads a JSON object of numbers, in its order (null:
// nothing).
func (m *WeightMap) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fmt.Errorf("tuner: weights: want an object of numbers")
	}
	m.Names, m.Values = nil, nil
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("tuner: weights: %w", err)
		}
		var x float64
		if err := dec.Decode(&x); err != nil {
			return fmt.Errorf("tuner: weights: %s: %w", tok, err)
		}
		m.Names, m.Values = append(m.Names, tok.(string)), append(m.Values, x)
	}
	return nil
}

// lastClocks reads the elapsed time and the CPU time of the last complete
// line of a history, and the elapsed time of the last line of a stage before
// stage (1-based; the time that stage began, 0 for the first).
func lastClocks(history io.Reader, stage int) (last, cpu, stageBegan time.Duration) {
	var l, c, began float64
	sc := bufio.NewScanner(history)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var rec struct {
			Stage   int     `json:"stage"`
			Elapsed float64 `json:"elapsed_s"`
			CPU     float64 `json:"cpu_s"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) == nil {
			l, c = rec.Elapsed, rec.CPU
			if rec.Stage < stage {
				began = rec.Elapsed
			}
		}
	}
	return elapsedOf(l), elapsedOf(c), elapsedOf(began)
}

// elapsedOf converts a record's elapsed seconds back to a duration.
func elapsedOf(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
