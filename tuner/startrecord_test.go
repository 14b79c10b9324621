package tuner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/evotune/evotune/engine"
)

// stopAtStart runs a new run of cfg in dir until its start's validation
// has finished and stops it there, before generation 1 ends, as a user's
// Ctrl-C would.
func stopAtStart(t *testing.T, dir string, cfg *Config) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := Create(cfg, dir, Options{Events: Events{Validation: func(_ *Validation, start bool) {
		if start {
			cancel()
		}
	}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Run(ctx)
	r.Close()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("run stopped at its start: err = %v, want cancellation", err)
	}
}

// seedPool plays on a local pool and counts the games it plays by seed.
type seedPool struct {
	p      Pool
	mu     sync.Mutex
	played map[uint64]int
}

func (sp *seedPool) Play(ctx context.Context, b *Batch, results [][]engine.Result, done GameDone) error {
	sp.mu.Lock()
	for _, j := range b.jobs() {
		sp.played[b.Seeds[j.Game]]++
	}
	sp.mu.Unlock()
	return sp.p.Play(ctx, b, results, done)
}

// TestStartKept stops a run once its start is validated, before generation
// 1 ends: an export then hands over the start with its figure, taken from
// the record the run keeps; a resume plays none of the start's games again
// (the journal has them), leaves the record as it was, and ends with the
// bytes of a run never stopped, which keeps the same record.
func TestStartKept(t *testing.T) {
	cfg := smallConfig(t)
	dir := filepath.Join(t.TempDir(), "run")
	stopAtStart(t, dir, cfg)
	if g := readHistoryLines(t, dir); g != 0 {
		t.Fatalf("the run stopped after %d generations, want before the first ended", g)
	}
	tu, _, notices, err := LoadCheckpoint(dir)
	if err != nil || len(notices) > 0 {
		t.Fatalf("load: %v, notices %v", err, notices)
	}
	st := tu.Story()
	if st.Moment != MomentStart || st.V == nil || st.V.Games != cfg.Validation.Games || tu.StartKept() != filepath.Join(dir, StartFile) {
		t.Fatalf("story %+v (record %q): want the start, validated on %d games, from %s", st, tu.StartKept(), cfg.Validation.Games, StartFile)
	}
	wf, err := tu.WeightsFile()
	if err != nil {
		t.Fatalf("export before generation 1 ends: %v", err)
	}
	if f := wf.Provenance.Fitness; f == nil || f.Mean != st.V.Fitness || f.Games != cfg.Validation.Games {
		t.Errorf("exported fitness %+v, want the start's validation", f)
	}
	kept, err := os.ReadFile(filepath.Join(dir, StartFile))
	if err != nil {
		t.Fatal(err)
	}

	sp := &seedPool{p: NewLocalPool(2), played: map[uint64]int{}}
	r, err := Resume(dir, ResumeOverrides{}, Options{Pool: sp})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, r)
	for j := range cfg.Validation.Games {
		// The final race's winner is measured on the same seeds at the
		// end: one game each then, none for the start.
		if n := sp.played[ValidationSeed(cfg.Seed, j)]; n > 1 {
			t.Errorf("validation seed %d played %d times after the resume: the start's games were played again", j, n)
		}
	}
	again, err := os.ReadFile(filepath.Join(dir, StartFile))
	if err != nil || !bytes.Equal(again, kept) {
		t.Errorf("the resume changed the kept start (%v)", err)
	}

	ref := filepath.Join(t.TempDir(), "ref")
	r, err = Create(smallConfig(t), ref, Options{})
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(t, r)
	if diff := readRun(t, dir).equal(readRun(t, ref)); diff != "" {
		t.Errorf("the run stopped at its start and resumed differs from one never stopped in %s", diff)
	}
	if b, _ := os.ReadFile(filepath.Join(ref, StartFile)); !bytes.Equal(b, kept) {
		t.Errorf("a run never stopped keeps another start record")
	}
}

// readHistoryLines counts the lines of a run's history.
func readHistoryLines(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte("\n"))
}

// TestStartRecordRefused: a record that is damaged, or of other weights
// than the run's start, is not taken: the export says nothing is
// validated, and a notice names the file.
func TestStartRecordRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	stopAtStart(t, dir, smallConfig(t))
	path := filepath.Join(dir, StartFile)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	flipped := bytes.Clone(good)
	flipped[len(flipped)/2] ^= 1
	other := smallConfig(t)
	other.Init["empty"]++
	otherDir := filepath.Join(t.TempDir(), "other")
	stopAtStart(t, otherDir, other)
	foreign, err := os.ReadFile(filepath.Join(otherDir, StartFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		data   []byte
		notice string
	}{{"flipped", flipped, "checksum"}, {"torn", good[:len(good)-3], "truncated"}, {"another run's start", foreign, "other weights"}} {
		if err := os.WriteFile(path, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		tu, _, notices, err := LoadCheckpoint(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(notices) != 1 || !strings.Contains(notices[0], StartFile) || !strings.Contains(notices[0], tc.notice) {
			t.Errorf("%s: notices %q, want one naming %s and %q", tc.name, notices, StartFile, tc.notice)
		}
		if _, err := tu.WeightsFile(); !errors.Is(err, ErrNotValidated) {
			t.Errorf("%s: export: %v, want ErrNotValidated", tc.name, err)
		}
	}
}

// TestExportSaysWhenStartIsMeasured: stopped while its start's validation
// plays, a run has nothing to export, and the error says when it will:
// how many of the validation games are done, and that a resume measures
// the rest first.
func TestExportSaysWhenStartIsMeasured(t *testing.T) {
	cfg := smallConfig(t)
	dir := filepath.Join(t.TempDir(), "run")
	interrupt(t, dir, cfg, 2, Options{Pool: &seedPool{p: NewLocalPool(1), played: map[uint64]int{}}})
	tu, _, _, err := LoadCheckpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tu.WeightsFile()
	if !errors.Is(err, ErrNotValidated) {
		t.Fatalf("export: %v, want ErrNotValidated", err)
	}
	for _, want := range []string{"4 validation games (2 finished, in the journal)", "evotune resume"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("export: %q does not say %q", err, want)
		}
	}
}
