package tuner

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/evotune/evotune/checkpoints"
	"github.com/evotune/evotune/eval"
)

// LoadCheckpoint reads a run's newest good checkpoint (dir is a run
// directory) or a checkpoint file, for export: a tuner at that state, the
// checkpoint's path, and notices about files skipped as corrupt.
func LoadCheckpoint(path string) (*Tuner, string, []string, error) {
	var c *checkpoints.Checkpoint
	var notices []string
	var err error
	// The run directory: path, or the one whose checkpoint folder or
	// checkpoint file path is.
	runDir := filepath.Dir(filepath.Dir(path))
	if st, serr := os.Stat(path); serr == nil && st.IsDir() {
		dir := path
		runDir = filepath.Dir(path)
		if st2, err := os.Stat(filepath.Join(path, CheckpointsDir)); err == nil && st2.IsDir() {
			dir, runDir = filepath.Join(path, CheckpointsDir), path
		}
		c, path, notices, err = latestCheckpoint(dir)
	} else {
		c, err = checkpoints.ReadFile(path)
	}
	if err != nil {
		return nil, "", nil, err
	}
	cfg, state, _, err := decodeCheckpoint(c, path)
	if err != nil {
		return nil, "", nil, err
	}
	t, err := New(cfg, Options{})
	if err != nil {
		return nil, "", nil, err
	}
	if err := t.Restore(state); err != nil {
		return nil, "", nil, err
	}
	if n := t.takeStart(runDir); n != "" {
		notices = append(notices, n)
	}
	return t, path, notices, nil
}

// ErrNotValidated is returned by WeightsFile and PlayerFile for a run
// whose start is not measured yet: there is nothing measured to export.
var ErrNotValidated = errors.New("tuner: nothing validated yet")

// ErrPlayerRun is returned by WeightsFile for a run that tunes a player
// (PlayerFile writes its result), and by PlayerFile for a run of a
// feature set.
var ErrPlayerRun = errors.New("tuner: a run of an external player")

// Handover returns what an export of the run writes now: the recommended
// weights, validated, once the run (or the current stage) has ended, and
// the start, validated, before the first generation ends; in a stage
// still going on, the weights it would recommend were it stopped
// (Recommendation: the average of its last means), not yet validated
// (Games 0), which a resume that ends the run races and measures. Nil
// before the start is measured. A checkpoint of an older evotune keeps no
// means: its recommended weights. Story says why.
func (t *Tuner) Handover() *Validation {
	if t.selected != nil {
		return t.selected.winner
	}
	v := t.Recommended()
	if t.state.Finished != "" || t.state.Start == nil || t.state.Generation == t.state.StageGeneration || t.concludedAt(t.state.Generation) || len(t.state.Means) == 0 {
		return v
	}
	h := &Validation{Generation: t.state.Generation, Weights: t.Recommendation(), Stage: t.state.Stage}
	if n := len(t.averaged()); n > 1 {
		h.Average = n
	}
	return h
}

// notHandedOver is the error of an export before the start is measured.
func (t *Tuner) notHandedOver() error {
	return fmt.Errorf("%w: run %s: %s; a stopped run measures it first when continued with evotune resume", ErrNotValidated, t.cfg.Name, t.Story().Next)
}

// WeightsFile returns the weights an export writes now (Handover) as a
// weights file with provenance: the run, the generation, the seeds, the
// validated figure (none for weights not yet validated) and the starting
// weights' figure on the same games; and, as notes, the Story: whether
// they are validated or the run is in progress, what it started from, each
// value's start and which are held.
func (t *Tuner) WeightsFile() (*eval.WeightsFile, error) {
	st := t.Story()
	v := st.V
	if v == nil {
		return nil, t.notHandedOver()
	}
	if t.set == nil {
		return nil, fmt.Errorf("%w: the run %s tunes player %s: its result is a params file (PlayerFile)", ErrPlayerRun, t.cfg.Name, t.cfg.Player.Declared.ID)
	}
	w, p, err := t.set.SplitVector(v.Weights)
	if err != nil {
		return nil, err
	}
	wf, err := eval.NewWeightsFile(t.set, w, p)
	if err != nil {
		return nil, err
	}
	// The weights were tuned with the search of the stage whose mean they
	// are; each figure records the search it was measured with when that
	// is another.
	search := *t.stages[v.Stage].Search
	wf.Search = &search
	fitness := func(v *Validation) *eval.Fitness {
		if v == nil || v.Games == 0 {
			return nil
		}
		f := &eval.Fitness{Metric: t.metric.String(), Mean: v.Fitness, CI95: v.CI95, Games: v.Games,
			Seeds: &eval.SeedRange{First: validationOffset, Count: v.Games}}
		if vs := t.cfg.StageValidationSearch(v.Stage); vs != search {
			f.Search = &vs // measured at another depth than tuned at
		}
		return f
	}
	wf.Provenance = t.provenance(v, fitness)
	if len(t.cfg.Stages) > 0 {
		wf.Provenance.Stage = &eval.Stage{Index: v.Stage + 1, Of: len(t.stages), Name: t.stages[v.Stage].Name}
	}
	wf.Notes = st.notes(strconv64)
	return wf, nil
}

// notes are the story as a file's comments: its lines, and each value's
// start written by format.
func (s Story) notes(format func(float64) string) *eval.Notes {
	n := &eval.Notes{Head: s.Lines(), Values: map[string]string{}}
	for i, name := range s.Names {
		n.Values[name] = s.ValueNote(i, format)
	}
	return n
}

// strconv64 writes a value as the weights file does: the shortest form
// that reads back to the same float64.
func strconv64(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// provenance is the provenance of the recommended vector v, whose
// validations fitness describes.
func (t *Tuner) provenance(v *Validation, fitness func(*Validation) *eval.Fitness) *eval.Provenance {
	p := &eval.Provenance{
		Run:         t.cfg.Name,
		Generation:  v.Generation,
		Optimizer:   t.cfg.Optimizer.Method,
		Seed:        t.cfg.Seed,
		Evaluations: t.Evaluations(),
		Init:        t.cfg.InitFrom,
		Fitness:     fitness(v),
		Baseline:    fitness(t.state.Start),
	}
	if s := t.selected; s != nil {
		p.Evaluations, p.Baseline = s.evaluations, fitness(s.start)
	}
	return p
}

// PlayerFile returns the recommended parameters of a run of an external
// player as a params file, with provenance and notes as WeightsFile gives
// them and no checks: only the player can choose the moves that pin it
// (see tuner/playerpool's Pin, and PinSeeds for the games to pick them
// from). int parameters are written rounded, as the player was set.
func (t *Tuner) PlayerFile() (*eval.PlayerFile, error) {
	st := t.Story()
	v := st.V
	if v == nil {
		return nil, t.notHandedOver()
	}
	pc := t.cfg.Player
	if t.set != nil || pc == nil || pc.Declared == nil {
		return nil, fmt.Errorf("%w: the run %s tunes feature set %s: its result is a weights file (WeightsFile)", ErrPlayerRun, t.cfg.Name, t.cfg.SetName)
	}
	d := pc.Declared
	pf := &eval.PlayerFile{Player: eval.PlayerInfo{ID: d.ID, Version: d.Version, Command: slices.Clone(pc.Command)}}
	for i, q := range d.Params {
		x := v.Weights[i]
		if q.Type == "int" {
			x = math.Round(x)
		}
		pf.Params = append(pf.Params, eval.NamedValue{Name: q.Name, Value: x})
	}
	pf.Provenance = t.provenance(v, func(v *Validation) *eval.Fitness {
		if v == nil || v.Games == 0 {
			return nil
		}
		return &eval.Fitness{Metric: t.metric.String(), Mean: v.Fitness, CI95: v.CI95, Games: v.Games,
			Seeds: &eval.SeedRange{First: validationOffset, Count: v.Games}}
	})
	pf.Notes = st.notes(strconv64)
	return pf, nil
}

// PinGames is how many validation games a params file's checks come from.
const PinGames = 2

// PinSeeds returns the seeds of the games a params file's checks are
// picked from: the run's first validation games, which every validation
// plays.
func (t *Tuner) PinSeeds() []uint64 {
	seeds := make([]uint64, PinGames)
	for j := range seeds {
		seeds[j] = ValidationSeed(t.cfg.Seed, j)
	}
	return seeds
}

// MaxMoves is the move limit of the run's games (0: none).
func (t *Tuner) MaxMoves() int { return t.cfg.Fitness.MaxMoves }
