package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evotune/evotune/tuner"
)

// ErrNotRun is wrapped by the error for a directory that is not a run
// directory.
var ErrNotRun = errors.New("report: not a run directory")

// Run is a run directory as the report reads it.
type Run struct {
	// Dir is the run directory as the commands on the page should name it.
	Dir string
	// Config is the run's resolved config, as its checkpoint holds it.
	Config *tuner.Config
	// Features names the weights in the feature set's order.
	Features []string
	// Metric is the fitness metric.
	Metric tuner.Metric
	// State is the newest good checkpoint's state: the start and latest
	// validations and why the run finished.
	State tuner.State
	// Story is what evotune export writes now and why (tuner.Story), which
	// the page tells in the same words as the exported file. Nil where the
	// report is made up without a tuner.
	Story *tuner.Story
	// Config0 is the run directory's config.yaml, the config as the run
	// began it (a resume may change its limits); nil where it is unread.
	Config0 *tuner.Config
	// Checkpoint is the file State comes from, and StartKept the record
	// of the start's validation where the state took it from there
	// (tuner.StartFile).
	Checkpoint, StartKept string
	// History holds the complete lines of history.jsonl, in order.
	History []Generation
	// Notices say what the report skipped or could not show, one line each.
	Notices []string
	// journalElapsed and journalCPU are the run's clock in seconds as its
	// journal last recorded it (see clock).
	journalElapsed, journalCPU float64
}

// clock returns the run's wall-clock and CPU seconds: its history's last
// line's, or the journal's latest clock where that is later, as in a run
// stopped in the middle of a generation.
func (r *Run) clock() (elapsed, cpu float64) {
	if n := len(r.History); n > 0 {
		elapsed, cpu = r.History[n-1].Elapsed, r.History[n-1].CPU
	}
	return max(elapsed, r.journalElapsed), max(cpu, r.journalCPU)
}

// Generation is one line of history.jsonl. It mirrors tuner.Record but
// tolerates missing and unknown fields, so that the report reads histories
// written by older and newer builds.
type Generation struct {
	Generation  int                     `json:"generation"`
	Evaluations int                     `json:"evaluations"`
	Games       int64                   `json:"games"`
	Lambda      int                     `json:"lambda"`
	Best        float64                 `json:"best"`
	Median      float64                 `json:"median"`
	Mean        float64                 `json:"mean"`
	Sigma       float64                 `json:"sigma"`
	Restarts    int                     `json:"restarts"`
	Weights     map[string]float64      `json:"weights"`
	Validation  *tuner.RecordValidation `json:"validation"`
	Stop        string                  `json:"stop"`
	Elapsed     float64                 `json:"elapsed_s"`
	// CPU is the run's CPU seconds so far; 0 in a history from before
	// cpu_s or from a system without a CPU clock.
	CPU float64 `json:"cpu_s"`
	// AxisRatio is the square root of the condition number of CMA-ES's
	// covariance; nil when the optimizer has none.
	AxisRatio *float64 `json:"axis_ratio"`
	// Stage is the generation's stage in a ladder, from 1; 0 without
	// stages.
	Stage int `json:"stage"`
	// Noise is the generation's noise handling, nil without it.
	Noise *tuner.RecordNoise `json:"noise"`
	// Finalist marks a mean kept to race at its stage's end.
	Finalist bool `json:"finalist"`
	// Extra holds the numeric fields this build does not know, by name
	// (a nested object's numbers as "object.field").
	Extra map[string]float64 `json:"-"`
}

// known are the fields Generation decodes; every other numeric field goes
// to Extra.
var known = map[string]bool{
	"generation": true, "evaluations": true, "games": true, "lambda": true,
	"best": true, "median": true, "mean": true, "sigma": true, "restarts": true,
	"weights": true, "validation": true, "stop": true, "elapsed_s": true, "cpu_s": true, "axis_ratio": true,
	"stage": true, "stage_end": true, "noise": true, "finalist": true,
}

// Load reads the run in dir: its newest good checkpoint and its history. It
// takes no lock and writes nothing, so it is safe while a run is going on.
func Load(dir string) (*Run, error) {
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s does not exist", ErrNotRun, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotRun, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%w: %s is a file; want the directory of a run (one with a %s folder)", ErrNotRun, dir, tuner.CheckpointsDir)
	}
	// Checked first: tuner.LoadCheckpoint would take any directory for a
	// checkpoint folder and report that it has no checkpoint files.
	if st, err := os.Stat(filepath.Join(dir, tuner.CheckpointsDir)); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%w: %s has no %s folder", ErrNotRun, dir, tuner.CheckpointsDir)
	}
	t, ckpt, notices, err := tuner.LoadCheckpoint(dir)
	if err != nil {
		return nil, err
	}
	r := &Run{
		Dir:        dir,
		Config:     t.Config(),
		Features:   t.Names(),
		Metric:     t.Metric(),
		State:      t.State(),
		Checkpoint: ckpt,
		StartKept:  t.StartKept(),
		Notices:    notices,
	}
	story := t.Story()
	r.Story = &story
	if cfg, err := tuner.LoadConfig(filepath.Join(dir, tuner.ConfigFile)); err == nil {
		r.Config0 = cfg
	}
	if e, c, ok := tuner.JournalClock(dir, r.State.Generation); ok {
		r.journalElapsed, r.journalCPU = e.Seconds(), c.Seconds()
	}
	path := filepath.Join(dir, tuner.HistoryFile)
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r.Notices = append(r.Notices, fmt.Sprintf("%s does not exist; the charts are empty", path))
	case err != nil:
		return nil, fmt.Errorf("report: %w", err)
	}
	var skipped []error
	r.History, skipped = decodeHistory(data, path)
	if len(skipped) > 0 {
		r.Notices = append(r.Notices, fmt.Sprintf("%d damaged history lines skipped (first: %v)", len(skipped), skipped[0]))
	}
	if n := len(r.History); n > 0 && r.History[n-1].Generation > r.State.Generation {
		r.Notices = append(r.Notices, fmt.Sprintf("the history goes to generation %d, the checkpoint used to generation %d: the validated figures and the stop reason are those of generation %d",
			r.History[n-1].Generation, r.State.Generation, r.State.Generation))
	}
	return r, nil
}

// decodeHistory decodes the complete lines of a history (a last line without
// its newline is being written and is left out) and returns the errors of
// the lines it skipped, each naming path:line.
func decodeHistory(data []byte, path string) ([]Generation, []error) {
	var gens []Generation
	var skipped []error
	for n := 1; len(data) > 0; n++ {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		line := data[:i]
		data = data[i+1:]
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		g, err := decodeLine(line)
		if err == nil && len(gens) > 0 && g.Generation <= gens[len(gens)-1].Generation {
			err = fmt.Errorf("generation %d after generation %d", g.Generation, gens[len(gens)-1].Generation)
		}
		if err != nil {
			skipped = append(skipped, fmt.Errorf("%s:%d: %w", path, n, err))
			continue
		}
		gens = append(gens, g)
	}
	return gens, skipped
}

func decodeLine(line []byte) (Generation, error) {
	var g Generation
	if err := json.Unmarshal(line, &g); err != nil {
		return Generation{}, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		return Generation{}, err
	}
	for k, v := range fields {
		if known[k] {
			continue
		}
		var x float64
		if json.Unmarshal(v, &x) == nil {
			g.setExtra(k, x)
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(v, &obj) != nil {
			continue // a string or a list: nothing to draw
		}
		for sub, sv := range obj {
			if json.Unmarshal(sv, &x) == nil {
				g.setExtra(k+"."+sub, x)
			}
		}
	}
	return g, nil
}

func (g *Generation) setExtra(name string, x float64) {
	if g.Extra == nil {
		g.Extra = map[string]float64{}
	}
	g.Extra[name] = x
}

// extraNames returns the names of the unknown numeric fields of any line,
// sorted.
func extraNames(h []Generation) []string {
	seen := map[string]bool{}
	var names []string
	for _, g := range h {
		for k := range g.Extra {
			if !seen[k] {
				seen[k] = true
				names = append(names, k)
			}
		}
	}
	slices.Sort(names)
	return names
}

// weightNames returns the feature names in set order, then any other name a
// history line holds (sorted), so that nothing recorded goes undrawn.
func (r *Run) weightNames() []string {
	names := slices.Clone(r.Features)
	var more []string
	for _, g := range r.History {
		for k := range g.Weights {
			if !slices.Contains(names, k) && !slices.Contains(more, k) {
				more = append(more, k)
			}
		}
	}
	slices.Sort(more)
	return append(names, more...)
}

// startWeight returns the value a weight started from: the config's
// starting mean (which the tuner's start validation measured).
func (r *Run) startWeight(name string) (float64, bool) {
	if pc := r.player(); pc != nil {
		x, ok := pc.Init[name]
		return x, ok
	}
	x, ok := r.Config.Init[name]
	return x, ok
}

// quote returns s as one shell word.
func quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(c rune) bool {
		return !(c == '/' || c == '.' || c == '_' || c == '-' || c == '+' || c == ':' || c == ',' || c == '=' ||
			('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
