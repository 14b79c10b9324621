package tuner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/evotune/evotune/eval"
)

// Files of a run directory.
const (
	ConfigFile  = "config.yaml"   // the resolved config
	HistoryFile = "history.jsonl" // one Record per generation
	WeightsFile = "weights.yaml"  // the recommended weights, written at the end
)

// ErrRunDir is wrapped by errors about a run directory that cannot be used.
var ErrRunDir = errors.New("tuner: bad run directory")

// Outcome is what a finished (or stopped) run reports.
type Outcome struct {
	Dir         string
	Generations int         // completed generations
	Games       int64       // games played
	Stop        string      // why the run ended; empty if interrupted
	Start       *Validation // the starting weights, validated
	Final       *Validation // the recommended weights, validated
	WeightsPath string      // where the recommended weights were written ("" if not yet)
}

// Run is a tuning run tied to its directory: it appends history.jsonl after
// every generation and writes weights.yaml at the end.
type Run struct {
	dir     string
	t       *Tuner
	history *os.File
	start   time.Time
	// elapsed0 is the wall-clock time spent before this process took over.
	elapsed0 time.Duration
}

// Create starts a new run of cfg (resolved and valid) in dir, which must not
// exist or be empty.
func Create(cfg *Config, dir string, events Events) (*Run, error) {
	if err := emptyDir(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRunDir, err)
	}
	t, err := New(cfg, events, nil)
	if err != nil {
		return nil, err
	}
	data, err := MarshalConfig(cfg)
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(filepath.Join(dir, ConfigFile), data); err != nil {
		return nil, err
	}
	h, err := os.OpenFile(filepath.Join(dir, HistoryFile), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRunDir, err)
	}
	return &Run{dir: dir, t: t, history: h, start: time.Now()}, nil
}

func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrRunDir, err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("%w: %s already holds a run (continue it with: evotune resume %s, or choose another --out)", ErrRunDir, dir, dir)
	}
	return nil
}

// Tuner returns the run's tuner.
func (r *Run) Tuner() *Tuner { return r.t }

// Dir returns the run directory.
func (r *Run) Dir() string { return r.dir }

// Elapsed returns the run's wall-clock time, earlier processes included.
func (r *Run) Elapsed() time.Duration { return r.elapsed0 + time.Since(r.start) }

// Close releases the run's files.
func (r *Run) Close() error { return r.history.Close() }

// Run plays generations until a stop condition holds or ctx is cancelled,
// then validates and writes the recommended weights. After cancellation the
// directory holds every completed generation and the error wraps ctx's.
func (r *Run) Run(ctx context.Context) (*Outcome, error) {
	t := r.t
	if err := t.ValidateStart(ctx); err != nil {
		return r.outcome(), err
	}
	for t.state.Done == "" {
		if reason := t.StopReason(r.Elapsed()); reason != "" {
			// Stopped before a generation ran (a limit already reached):
			// the latest mean still gets its validation.
			if err := r.finish(ctx, reason); err != nil {
				return r.outcome(), err
			}
			break
		}
		rec, err := t.Step(ctx, r.Elapsed)
		if err != nil {
			return r.outcome(), err
		}
		if err := r.appendHistory(rec); err != nil {
			return r.outcome(), err
		}
		if t.events.Generation != nil {
			t.events.Generation(rec)
		}
	}
	out := r.outcome()
	path := filepath.Join(r.dir, WeightsFile)
	if err := eval.WriteWeightsFile(path, t.WeightsFile()); err != nil {
		return out, err
	}
	out.WeightsPath = path
	return out, nil
}

// finish marks the run done without a generation, validating the current
// mean if it has not been.
func (r *Run) finish(ctx context.Context, reason string) error {
	t := r.t
	if v := t.state.Validated; v == nil || v.Generation != t.state.Generation {
		v, err := t.Validate(ctx, t.full(t.opt.Mean()))
		if err != nil {
			return err
		}
		t.state.Validated = v
		if t.events.Validation != nil {
			t.events.Validation(v, false)
		}
	}
	t.state.Done = reason
	return nil
}

func (r *Run) outcome() *Outcome {
	s := r.t.state
	return &Outcome{Dir: r.dir, Generations: s.Generation, Games: s.Games, Stop: s.Done, Start: s.Start, Final: r.t.Recommended()}
}

func (r *Run) appendHistory(rec Record) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	if _, err := r.history.Write(line); err != nil {
		return fmt.Errorf("tuner: %s: %w", filepath.Join(r.dir, HistoryFile), err)
	}
	return r.history.Sync()
}

// WeightsFile returns the recommended weights as a weights file with
// provenance: the run, the generation, the seeds, the validated figure and
// the starting weights' figure on the same games.
func (t *Tuner) WeightsFile() *eval.WeightsFile {
	v := t.Recommended()
	wf := eval.NewWeightsFile(t.set, v.Weights)
	moveScores := !t.cfg.Search.HeuristicOnly
	wf.Search = &eval.SearchInfo{Algorithm: t.cfg.Search.Algorithm, Depth: t.cfg.Search.Depth, MoveScores: &moveScores}
	if t.cfg.Search.Algorithm == "beam" {
		wf.Search.Width = t.cfg.Search.Width
	}
	fitness := func(v *Validation) *eval.Fitness {
		if v == nil {
			return nil
		}
		return &eval.Fitness{Metric: t.metric.String(), Mean: v.Fitness, CI95: v.CI95, Games: v.Games,
			Seeds: &eval.SeedRange{First: validationOffset, Count: v.Games}}
	}
	wf.Provenance = &eval.Provenance{
		Run:         t.cfg.Name,
		Generation:  v.Generation,
		Optimizer:   t.cfg.Optimizer.Method,
		Seed:        t.cfg.Seed,
		Evaluations: t.opt.Evaluations(),
		Fitness:     fitness(v),
		Baseline:    fitness(t.state.Start),
	}
	return wf
}

// MarshalConfig writes a config as YAML, keys in struct order and maps
// sorted, so equal configs give equal bytes.
func MarshalConfig(cfg *Config) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(cfg); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeFileAtomic replaces path with data: temp file in the same directory,
// sync, rename, sync of the directory; the temp file is removed on failure.
func writeFileAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("tuner: write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			err = fmt.Errorf("tuner: write %s: %w", path, err)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// lastElapsed reads the elapsed time of the last complete line of a history.
func lastElapsed(history io.Reader) time.Duration {
	var last Record
	sc := bufio.NewScanner(history)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var rec Record
		if json.Unmarshal(sc.Bytes(), &recordElapsed{&rec}) == nil {
			last = rec
		}
	}
	return time.Duration(last.Elapsed * float64(time.Second))
}

// recordElapsed decodes only elapsed_s (Record's weights are write-only).
type recordElapsed struct{ r *Record }

func (e *recordElapsed) UnmarshalJSON(data []byte) error {
	var v struct {
		Elapsed float64 `json:"elapsed_s"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	e.r.Elapsed = v.Elapsed
	return nil
}
