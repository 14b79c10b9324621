package tuner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/evotune/evotune/checkpoints"
	"github.com/evotune/evotune/engine"
)

// The start's validation, kept. A deep run measures its start on hundreds
// of validation games before its first generation ends, and a generation
// can take longer than a user waits: stopped there, the run's only
// checkpoint is generation 0's, saved before the start was measured, and
// an export had nothing to hand over. So when the start's validation
// finishes, the Run writes it to StartFile, atomically and in the
// checkpoint envelope (rules version, checksum), and LoadCheckpoint takes
// it where the newest checkpoint has no start: export, report and anything
// else that reads a run find the start validated from the moment the run
// printed so.
//
// The record changes nothing a run computes or writes otherwise, and a
// resumed run does not read it: the journal already holds the start's
// validation games until generation 1's checkpoint, so a resume replays
// them from there (no game played again) and writes the same record again.
// One source of the state keeps a damaged record from changing a run; at
// worst a torn journal costs games, as it does for any generation.

// StartFile is the start's validation in a run directory (see above).
const StartFile = "start.ckpt"

// startRecordFormat versions the record's payload.
const startRecordFormat = 1

// startRecord is StartFile's payload.
type startRecord struct {
	Format int         `json:"format"`
	Start  *Validation `json:"start"`
}

// keeping returns opts with its Validation event keeping the first
// stage's start validation in the run directory before anyone is told of
// it: a user who sees the start validated can export it.
func (r *Run) keeping(opts Options) Options {
	tell := opts.Events.Validation
	opts.Events.Validation = func(v *Validation, start bool) {
		if start && v.Stage == 0 && r.t.state.Generation == 0 {
			r.startErr = r.keepStart(v)
		}
		if tell != nil {
			tell(v, start)
		}
	}
	return opts
}

// keepStart writes the start's validation v to StartFile.
func (r *Run) keepStart(v *Validation) error {
	payload, err := json.Marshal(startRecord{Format: startRecordFormat, Start: v})
	if err != nil {
		return err
	}
	c := &checkpoints.Checkpoint{RulesVersion: engine.RulesVersion, Payload: payload}
	if err := checkpoints.WriteFileFS(r.fsys, filepath.Join(r.dir, StartFile), checkpoints.Encode(c)); err != nil {
		return fmt.Errorf("tuner: the start's validation not kept: %w", err)
	}
	return nil
}

// readStart returns the start's validation StartFile in runDir holds for
// t's run, nil without one; an error for a record that is damaged or not
// t's start (its weights, games or rules differ).
func (t *Tuner) readStart(runDir string) (*Validation, error) {
	path := filepath.Join(runDir, StartFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	c, err := checkpoints.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := c.CheckRules(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var rec startRecord
	dec := json.NewDecoder(bytes.NewReader(c.Payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", checkpoints.ErrCorrupt, path, err)
	}
	v := rec.Start
	switch {
	case rec.Format != startRecordFormat:
		return nil, fmt.Errorf("%w: %s: format %d, this build reads %d", checkpoints.ErrVersion, path, rec.Format, startRecordFormat)
	case v == nil || v.Generation != 0 || v.Stage != 0 || v.Games != t.cfg.Validation.Games || len(v.Scores) != v.Games:
		return nil, fmt.Errorf("%w: %s: not a validation of the run's start on its %d validation games", checkpoints.ErrCorrupt, path, t.cfg.Validation.Games)
	case !slices.Equal(v.Weights, t.init):
		return nil, fmt.Errorf("%w: %s: the validation of other weights than the run's start", checkpoints.ErrCorrupt, path)
	}
	return v, nil
}

// takeStart gives a tuner restored at generation 0 without its start's
// validation the one kept in runDir, and otherwise counts the start's
// validation games the journal holds (startGames), for an export to say
// how far the validation is. It returns a notice for a record it cannot
// use.
func (t *Tuner) takeStart(runDir string) string {
	if t.state.Generation != 0 || t.state.Start != nil {
		return ""
	}
	v, err := t.readStart(runDir)
	if err != nil {
		t.startGames = t.journalledStart(runDir)
		return fmt.Sprintf("the start's validation not taken from %v; ignored", err)
	}
	if v == nil {
		t.startGames = t.journalledStart(runDir)
		return ""
	}
	t.state.Start, t.startKept = v, filepath.Join(runDir, StartFile)
	return ""
}

// journalledStart counts the start's validation games in runDir's
// journal: generation 0's games on validation seeds, which no other game
// of that generation plays; -1 where the journal cannot be read.
func (t *Tuner) journalledStart(runDir string) int {
	entries, _, err := checkpoints.ReadJournal(filepath.Join(runDir, checkpoints.JournalName))
	if err != nil {
		return -1
	}
	seeds := map[uint64]bool{}
	for j := range t.cfg.Validation.Games {
		seeds[ValidationSeed(t.cfg.Seed, j)] = false
	}
	n := 0
	for _, e := range entries {
		if done, ok := seeds[e.Seed]; ok && !done && e.Generation == 0 {
			seeds[e.Seed] = true
			n++
		}
	}
	return n
}

// StartKept returns the path of the record the start's validation was
// taken from (StartFile), "" when the checkpoint held it or it is not
// measured.
func (t *Tuner) StartKept() string { return t.startKept }
