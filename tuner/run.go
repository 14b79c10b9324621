package tuner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/evotune/evotune/checkpoints"
	"github.com/evotune/evotune/engine"
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
	Replayed    int64       // games taken from the journal instead of played
	Stop        string      // why the run ended; empty if interrupted
	Start       *Validation // the starting weights, validated
	Final       *Validation // the recommended weights, validated
	WeightsPath string      // where the recommended weights were written ("" if not yet)
}

// Run is a tuning run tied to its directory. It holds the directory's lock,
// appends history.jsonl and saves a checkpoint after every generation,
// journals every finished game, and writes weights.yaml at the end. The
// order after a generation — history line, checkpoint, journal reset — makes
// every crash recoverable: the checkpoint records how much of the history
// it covers, and journal entries carry their generation.
type Run struct {
	dir     string
	t       *Tuner
	onGen   func(Record)   // Events.Generation: told once a generation is saved
	fsys    checkpoints.FS // what the run's files are written through
	history checkpoints.RWFile
	store   *checkpoints.Store
	journal *checkpoints.Journal
	cache   *journalCache
	release func() error
	start   time.Time
	// elapsed0 and cpu0 are the wall-clock and CPU time spent before this
	// process took over; cpuStart is the process's CPU time when it did
	// (a process may have done other work before, as a test binary that
	// holds several runs has).
	elapsed0, cpu0, cpuStart time.Duration
	cpuOK                    bool
	// clockStop ends the clock's journal lines (tickClock), clockDone
	// says they have ended.
	clockStop, clockDone chan struct{}
	// progress is the phase in progress and the pace (runprogress.go);
	// lambdas the candidates of each later stage, for its plan; resumed
	// says Resume opened the run.
	progress progress
	lambdas  map[int]int
	resumed  bool
	// historyLines counts the lines of history.jsonl.
	historyLines int
	// Notices are things a resumed run should tell the user (checkpoints
	// skipped as corrupt, journal lines skipped).
	Notices []string
	// startErr is why the start's validation was not kept (keeping).
	startErr error
}

// Create starts a new run of cfg (resolved and valid) in dir, which must not
// exist or be empty. The run plays on opts.Pool behind its journal.
func Create(cfg *Config, dir string, opts Options) (_ *Run, err error) {
	if err := emptyDir(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRunDir, err)
	}
	r := &Run{dir: dir, cache: newJournalCache(nil, 0), onGen: opts.Events.Generation, fsys: fsOf(opts)}
	r.startClocks()
	if opts, err = opts.forPlayer(cfg); err != nil {
		return nil, err
	}
	if r.t, err = New(cfg, r.keeping(r.journalled(cfg, opts))); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			r.Close()
		}
	}()
	if r.release, err = checkpoints.Lock(dir); err != nil {
		return nil, err
	}
	data, err := MarshalConfig(cfg)
	if err != nil {
		return nil, err
	}
	if err := checkpoints.WriteFileFS(r.fsys, filepath.Join(dir, ConfigFile), data); err != nil {
		return nil, err
	}
	if r.history, err = r.fsys.OpenFile(filepath.Join(dir, HistoryFile), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644); err != nil {
		return nil, fmt.Errorf("tuner: %w", err)
	}
	if err := r.openStores(); err != nil {
		return nil, err
	}
	// Generation 0, so that even a run killed in its first generation
	// resumes.
	if err := r.save(); err != nil {
		return nil, err
	}
	return r, nil
}

// Resume continues the run in dir from its newest good checkpoint. The
// overrides, applied to the run's config, may change the stopping condition
// (generations, duration) and the worker count; nothing else.
func Resume(dir string, o ResumeOverrides, opts Options) (_ *Run, err error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRunDir, err)
	}
	// Checked before locking, so that a mistyped directory gets no lock
	// file or checkpoint folder.
	if st, err := os.Stat(filepath.Join(dir, CheckpointsDir)); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%w: %s is not a run directory: it has no %s folder", checkpoints.ErrNoCheckpoint, dir, CheckpointsDir)
	}
	release, err := checkpoints.Lock(dir)
	if err != nil {
		return nil, err
	}
	r := &Run{dir: dir, release: release, onGen: opts.Events.Generation, fsys: fsOf(opts), resumed: true}
	r.startClocks()
	defer func() {
		if err != nil {
			r.Close()
		}
	}()
	c, path, notices, err := latestCheckpoint(filepath.Join(dir, CheckpointsDir))
	if err != nil {
		return nil, err
	}
	r.Notices = notices
	cfg, state, historyLines, err := decodeCheckpoint(c, path)
	if err != nil {
		return nil, err
	}
	o.apply(cfg)
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	journal, err := checkpoints.ReadJournalContents(filepath.Join(dir, checkpoints.JournalName))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if bad := journal.Skipped; len(bad) > 0 {
		r.Notices = append(r.Notices, fmt.Sprintf("%d journal lines skipped as torn or corrupt (first: %v); any game among them is played again", len(bad), bad[0]))
	}
	r.cache = newJournalCache(journal.Entries, state.Generation)
	if opts, err = opts.forPlayer(cfg); err != nil {
		return nil, err
	}
	if r.t, err = New(cfg, r.keeping(r.journalled(cfg, opts))); err != nil {
		return nil, err
	}
	if err := r.t.Restore(state); err != nil {
		return nil, err
	}
	// A finished run continues if the new limits allow more generations.
	if o.changesLimits() {
		r.t.Reopen()
	}
	end, err := r.readHistory(historyLines, state.Stage+1)
	if err != nil {
		return nil, err
	}
	r.recoverClock(journal.Clocks, state.Generation)
	if err := r.checkBudget(o); err != nil {
		return nil, err
	}
	if err := r.openHistory(end); err != nil {
		return nil, err
	}
	if err := r.openStores(); err != nil {
		return nil, err
	}
	return r, nil
}

// journalled returns opts with its pool (a local one by default) behind
// the run's pace counter and journal cache, and its events told to the
// run's progress.
func (r *Run) journalled(cfg *Config, opts Options) Options {
	if opts.Pool == nil {
		opts.Pool = NewLocalPool(cfg.Workers)
	}
	opts = r.instrument(opts)
	opts.Pool = Cached(opts.Pool, r.cache)
	return opts
}

// fsOf returns the file system opts asks the run to write through.
func fsOf(opts Options) checkpoints.FS {
	if opts.fsys == nil {
		return checkpoints.OS{}
	}
	return opts.fsys
}

// ResumeOverrides are the settings a resumed run may change. Zero fields
// leave the run's own values.
type ResumeOverrides struct {
	Generations *int
	Duration    *time.Duration
	Workers     *int
}

func (o ResumeOverrides) apply(cfg *Config) {
	if o.Generations != nil {
		cfg.Generations = *o.Generations
	}
	if o.Duration != nil {
		cfg.Duration = Duration(*o.Duration)
	}
	if o.Workers != nil {
		cfg.Workers = *o.Workers
	}
}

func (o ResumeOverrides) changesLimits() bool { return o.Generations != nil || o.Duration != nil }

// CheckpointsDir is the checkpoint directory inside a run directory.
const CheckpointsDir = "checkpoints"

// openStores opens the checkpoint store and the journal, which from then
// on records every game played.
func (r *Run) openStores() (err error) {
	if r.store, err = checkpoints.OpenStoreFS(r.fsys, filepath.Join(r.dir, CheckpointsDir), r.t.Config().Checkpoints.Keep); err != nil {
		return err
	}
	if r.journal, err = checkpoints.OpenJournalFS(r.fsys, filepath.Join(r.dir, checkpoints.JournalName), checkpoints.DefaultFlushEvery); err != nil {
		return err
	}
	r.cache.j = r.journal
	return nil
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

// Close flushes the journal and releases the run's files and lock; the
// directory is then consistent for a resume.
func (r *Run) Close() error {
	var errs []error
	r.stopClock()
	if r.journal != nil {
		errs = append(errs, r.journal.Close())
	}
	if r.history != nil {
		errs = append(errs, r.history.Close())
	}
	if r.release != nil {
		errs = append(errs, r.release())
	}
	return errors.Join(errs...)
}

// Run plays generations until a stop condition holds or ctx is cancelled,
// then validates and writes the recommended weights. After cancellation the
// directory holds every completed generation and the error wraps ctx's.
func (r *Run) Run(ctx context.Context) (*Outcome, error) {
	t := r.t
	r.tickClock()
	if t.Finished() == "" {
		if err := t.ValidateStart(ctx); err != nil {
			return r.outcome(), err
		}
		if r.startErr != nil {
			return r.outcome(), r.startErr
		}
	}
	for t.Finished() == "" {
		if reason := t.StopReason(r.Elapsed()); reason != "" {
			// A limit already reached before a generation ran (a resume
			// with a lower limit): the latest mean still gets validated.
			if err := t.Finish(ctx, reason); err != nil {
				return r.outcome(), err
			}
			if err := r.save(); err != nil {
				return r.outcome(), err
			}
			break
		}
		t.announce(t.GenerationPhase())
		rec, err := t.Step(ctx, r.Elapsed)
		if err != nil {
			return r.outcome(), err
		}
		if cpu, ok := r.CPU(); ok {
			rec.CPU = max(cpu.Seconds(), 1e-9) // never 0, which would leave the field out
		}
		if err := r.appendHistory(rec); err != nil {
			return r.outcome(), err
		}
		if err := r.save(); err != nil {
			return r.outcome(), err
		}
		if r.onGen != nil {
			r.onGen(rec)
		}
	}
	out := r.outcome()
	if t.set == nil {
		return out, nil // a player's parameters: the run's checkpoint and history hold them
	}
	path := filepath.Join(r.dir, WeightsFile)
	wf, err := t.WeightsFile()
	if err != nil {
		return out, err
	}
	data, err := wf.Marshal()
	if err != nil {
		return out, err
	}
	if err := checkpoints.WriteFileFS(r.fsys, path, data); err != nil {
		return out, err
	}
	out.WeightsPath = path
	return out, nil
}

func (r *Run) outcome() *Outcome {
	s := r.t.State()
	return &Outcome{Dir: r.dir, Generations: s.Generation, Games: s.Games, Replayed: r.cache.hits.Load(),
		Stop: s.Finished, Start: s.Start, Final: r.t.Recommended()}
}

// save writes the checkpoint of the current state and, once it is safe,
// empties the journal of the generation it covers.
func (r *Run) save() error {
	s := r.t.State()
	payload, err := encodePayload(r.t.Config(), s, r.historyLines)
	if err != nil {
		return err
	}
	c := &checkpoints.Checkpoint{RulesVersion: engine.RulesVersion, Generation: s.Generation, Payload: payload}
	if path, err := r.store.Save(c); err != nil {
		if path == "" {
			return fmt.Errorf("tuner: checkpoint not saved, the previous one stands: %w", err)
		}
		return fmt.Errorf("tuner: checkpoint %s saved but not made durable: %w", path, err)
	}
	if err := r.cache.advance(s.Generation); err != nil {
		return fmt.Errorf("tuner: %w", err)
	}
	return nil
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
