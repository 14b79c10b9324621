package tuner

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/evotune/evotune/checkpoints"
)

// payload is what a checkpoint holds for the tuner: the resolved config,
// the state between generations, and how many lines of history.jsonl the
// state covers (lines, not bytes: the lines' wall-clock field varies in
// length between equal runs). The config's worker count is left out: it changes no result,
// so runs on different machines write equal checkpoints.
type payload struct {
	Format       int        `json:"format"`
	Config       string     `json:"config"`
	State        savedState `json:"state"`
	HistoryLines int        `json:"history_lines"`
}

// savedState is State as a checkpoint holds it. It is written as State
// is, and also reads the checkpoints of runs from before State.SeedCounter
// counted the tuning seeds of every run: a run without noise handling
// then recorded only stage_seeds, the first counter of its stage, and
// played generation i of the stage (0-based) on the counters from
// stage_seeds + i·games.
type savedState struct {
	State
	StageSeeds uint64 `json:"stage_seeds,omitempty"`
	legacyState
}

// legacyState is the state of the recommendation rules the final race
// replaced (payload format 1): what they recommended is the run's
// validated mean, and a finalist of its stage when a generation of the
// stage was recommended; the rest is dropped.
type legacyState struct {
	Best       *Validation     `json:"best,omitempty"`
	Stale      int             `json:"stale,omitempty"`
	Anchor     *Validation     `json:"anchor,omitempty"`
	Incumbent  *Validation     `json:"incumbent,omitempty"`
	Fallen     *Validation     `json:"fallen,omitempty"`
	FellBackTo json.RawMessage `json:"fell_back_to,omitempty"`
	Fallbacks  int             `json:"fallbacks,omitempty"`
}

// recommended is what the rules of legacyState recommended, nil where
// they said nothing beyond the latest validated mean.
func (l legacyState) recommended() *Validation {
	switch {
	case l.Incumbent != nil:
		return l.Incumbent
	case l.Best != nil:
		return l.Best
	}
	return l.Fallen
}

// state returns the saved state with its seed counter, for the stages of
// cfg, and, from a checkpoint of payload format 1, the recommendation of
// the rules the final race replaced (legacyState). A SeedCounter of 0 is
// either a run's very start or a checkpoint without it; the rule for the
// latter gives 0 at the start too.
func (s savedState) state(cfg *Config, format int) State {
	st := s.State
	if format < 2 {
		// The latest validation was of the mean of its own generation, and
		// ran after it, as a race of today would have.
		if s.Validated != nil {
			st.Concluded = s.Validated.Generation
		}
		if r := s.recommended(); r != nil {
			st.Validated = r
			if r.Generation > 0 && r.Stage == st.Stage && r.Generation > st.StageGeneration {
				st.Finalists = []Finalist{{Generation: r.Generation, Weights: r.Weights}}
			}
		}
	}
	if stages := cfg.StageList(); st.SeedCounter == 0 && st.Stage >= 0 && st.Stage < len(stages) && st.Generation >= st.StageGeneration {
		st.SeedCounter = s.StageSeeds + uint64(st.Generation-st.StageGeneration)*uint64(stages[st.Stage].Games)
	}
	return st
}

// payloadFormat versions the payload inside the checkpoint envelope: 3
// since the model (validation.model: the stage's candidates in the
// state), 2 since the final race (a stage's finalists in the state;
// racing apart from noise handling), 1 before; this build reads all
// three. A payload is written in the oldest format that holds it (3 only
// where the state keeps samples), so that every checkpoint that could be
// written before keeps its bytes.
const (
	payloadFormat      = 3
	payloadFormatRaces = 2
)

func encodePayload(cfg *Config, s State, historyLines int) ([]byte, error) {
	c := *cfg
	c.Workers = 0
	yml, err := MarshalConfig(&c)
	if err != nil {
		return nil, err
	}
	format := payloadFormatRaces
	if len(s.Samples) > 0 {
		format = payloadFormat
	}
	return json.Marshal(payload{Format: format, Config: string(yml), State: savedState{State: s}, HistoryLines: historyLines})
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
	if p.Format < 1 || p.Format > payloadFormat {
		return nil, State{}, 0, fmt.Errorf("%w: %s: payload format %d, this build reads %d", checkpoints.ErrVersion, path, p.Format, payloadFormat)
	}
	cfg, err := ParseConfig([]byte(p.Config), path+" (config)")
	if err != nil {
		return nil, State{}, 0, err
	}
	cfg.asCheckpointed(p.Format)
	cfg.Resolve()
	if err := cfg.Validate(); err != nil {
		return nil, State{}, 0, err
	}
	if p.State.Generation != c.Generation || p.HistoryLines < 0 {
		return nil, State{}, 0, fmt.Errorf("%w: %s: payload of generation %d in a checkpoint of generation %d", checkpoints.ErrCorrupt, path, p.State.Generation, c.Generation)
	}
	return cfg, p.State.state(cfg, p.Format), p.HistoryLines, nil
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
