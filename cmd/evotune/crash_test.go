package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/tuner"
)

// TestMain lets the test binary stand in for the evotune binary: the crash
// tests start it as a child process with EVOTUNE_CHILD=1 and kill it. The
// child plays on a pool that appends a line to the file EVOTUNE_TRACE names
// for every game it plays, so that the tests can count the games an
// interruption costs.
func TestMain(m *testing.M) {
	if os.Getenv("EVOTUNE_CHILD") == "1" {
		var o options
		if path := os.Getenv("EVOTUNE_READY"); path != "" {
			o.signalsReady = func() { os.WriteFile(path, nil, 0o644) }
		}
		if path := os.Getenv("EVOTUNE_TRACE"); path != "" {
			o.newPool = func(workers int) tuner.Pool {
				return &tracingPool{p: tuner.NewLocalPool(workers), path: path}
			}
		}
		os.Exit(runWithSignals(context.Background(), o, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// evotuneCommand runs the test binary as the evotune binary with args
// (TestMain's EVOTUNE_CHILD=1); env is added to the child's environment.
func evotuneCommand(env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "EVOTUNE_CHILD=1"), env...)
	return cmd
}

// tracingPool appends "game" to a file for every game its pool plays. A
// line is written after the game was handed on (to the run's journal), and
// each is one append-mode write, so the count survives kill -9 and a kill
// between the two makes it one lower, never higher.
type tracingPool struct {
	p    tuner.Pool
	path string
}

// Shared says the local pool's batches share its slots, as the run's own
// pool would: a validation and the next generation's games play at once.
func (tp *tracingPool) Shared() bool { return true }

func (tp *tracingPool) Play(ctx context.Context, b *tuner.Batch, results [][]engine.Result, done tuner.GameDone) error {
	f, err := os.OpenFile(tp.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	return tp.p.Play(ctx, b, results, func(j tuner.Job, r engine.Result, replayed bool) {
		if done != nil {
			done(j, r, replayed)
		}
		if !replayed {
			f.Write([]byte("game\n"))
		}
	})
}

// crashConfig takes a few seconds on two cores: long enough to be killed
// at many different points, in games, validations and checkpoint writes.
// Noise handling is on (racing rounds, re-evaluations), its games per
// candidate bounded by the fixed figure so that the run stays that short.
const crashConfig = `name: crash
seed: 11
generations: 8
features: standard
optimizer: {method: cmaes, population: 6}
search: {algorithm: expectimax, depth: 3}
fitness: {games: 12}
validation: {games: 20}
checkpoints: {keep: 2}
noise: {games: [4, 12]}
`

// crashLadderConfig is a ladder whose first stage (1 ply) takes a few
// milliseconds; TestCrashKill9Stages aims its first kill after that stage's
// end, so that the kills land in the second stage (3 plies), or in the
// validations and start measurement between the two.
const crashLadderConfig = `name: crash-ladder
seed: 11
generations: 8
features: standard
optimizer: {method: cmaes, population: 6}
search: {algorithm: expectimax, depth: 1}
fitness: {games: 6}
validation: {games: 20}
checkpoints: {keep: 2}
stages:
  - {name: shallow, generations: 2}
  - {name: deep, search: {depth: 3}, games: 12, population: 5, sigma: 0.2}
noise: {games: [4, 12]}
`

type child struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr bytes.Buffer
	done   chan struct{} // closed once the child has exited and been waited for
	ready  string        // the file the child creates once signals cancel it
}

func startChild(t *testing.T, trace string, args ...string) *child {
	t.Helper()
	// Its own directory: children without a trace file (NATS workers) run
	// side by side, and a test must not write into the package's source.
	c := &child{ready: filepath.Join(t.TempDir(), "ready")}
	c.cmd = evotuneCommand([]string{"EVOTUNE_TRACE=" + trace, "EVOTUNE_READY=" + c.ready}, args...)
	c.cmd.Stdout, c.cmd.Stderr = &c.stdout, &c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c.done = make(chan struct{})
	go func() {
		c.cmd.Wait()
		close(c.done)
	}()
	return c
}

// wait waits for the child to exit.
func (c *child) wait() { <-c.done }

// exitCode waits for the child and returns its exit status (-1 if killed).
func (c *child) exitCode() int {
	c.wait()
	return c.cmd.ProcessState.ExitCode()
}

// waitReady waits until the child handles Ctrl-C (before, the signal's
// default action would kill it, as SIGKILL does) or exits.
func (c *child) waitReady() {
	for {
		if _, err := os.Stat(c.ready); err == nil {
			return
		}
		select {
		case <-c.done:
			return
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// waitHistory waits until the run's history contains marker or the child
// exits, so that an interruption can be aimed at a part of the run by
// progress rather than by a time that a slow machine (-race) overshoots.
func (c *child) waitHistory(dir, marker string) {
	for {
		if h, _ := os.ReadFile(filepath.Join(dir, "history.jsonl")); bytes.Contains(h, []byte(marker)) {
			return
		}
		select {
		case <-c.done:
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// finishedRun reads what a finished run is compared by.
type finishedRun struct {
	weights, history, checkpoint string
	games                        int
}

func readFinished(t *testing.T, dir string) finishedRun {
	t.Helper()
	w, err := os.ReadFile(filepath.Join(dir, "weights.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	lines := historyLines(t, dir)
	var games int
	if len(lines) > 0 {
		var rec struct{ Games int }
		jsonUnmarshal(t, lines[len(lines)-1], &rec)
		games = rec.Games
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "checkpoints"))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	ck, err := os.ReadFile(filepath.Join(dir, "checkpoints", names[len(names)-1]))
	if err != nil {
		t.Fatal(err)
	}
	return finishedRun{weights: string(w), history: stripElapsed(t, lines), checkpoint: string(ck), games: games}
}

func countLines(t *testing.T, path string) int {
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return bytes.Count(data, []byte("\n"))
}

// crashAndResume starts a run, interrupts it kills times with sig at
// pseudo-random moments, resumes it to the end, and compares the result
// with an uninterrupted run byte for byte. It returns the number of
// finished games that were played again: the journal should make it 0, so
// that an interruption costs only the games in flight. (The trace counts a
// game after its journal line is written; a kill between the two makes the
// count one lower, never higher.)
func crashAndResume(t *testing.T, sig syscall.Signal, kills int, seed uint64) int {
	lost, _ := crashAndResumeConfig(t, crashConfig, sig, kills, seed, "")
	return lost
}

// crashAndResumeConfig is crashAndResume of the run config describes; it
// also returns how many interruptions landed after the run's first stage
// ended and before it finished. With a non-empty after, the first
// interruption's random delay starts only once the run's history contains
// after.
func crashAndResumeConfig(t *testing.T, config string, sig syscall.Signal, kills int, seed uint64, after string) (lost, laterStage int) {
	cfg := writeConfig(t, config)
	tmp := t.TempDir()

	refTrace := filepath.Join(tmp, "ref.trace")
	ref := filepath.Join(tmp, "ref")
	if c := startChild(t, refTrace, "tune", "--config", cfg, "--out", ref); c.exitCode() != 0 {
		t.Fatalf("uninterrupted run failed: %s", c.stderr.String())
	}
	want := readFinished(t, ref)
	if played := countLines(t, refTrace); played != want.games {
		t.Fatalf("uninterrupted run played %d games, its history says %d", played, want.games)
	}

	rng := rand.New(rand.NewPCG(seed, 99))
	dir := filepath.Join(tmp, "run")
	trace := filepath.Join(tmp, "run.trace")
	interrupted := 0
	for i := range kills {
		args := []string{"resume", dir}
		if i == 0 {
			args = []string{"tune", "--config", cfg, "--out", dir}
		}
		c := startChild(t, trace, args...)
		c.waitReady()
		if i == 0 && after != "" {
			c.waitHistory(dir, after)
		}
		time.Sleep(time.Duration(100+rng.IntN(350)) * time.Millisecond)
		sent := time.Now()
		c.cmd.Process.Signal(sig)
		code := c.exitCode()
		switch {
		case code == 0: // finished before the signal arrived
			continue
		case sig == syscall.SIGKILL && code == -1:
		case sig == syscall.SIGINT && code == 130:
			if d := time.Since(sent); d > 5*time.Second {
				t.Errorf("interrupt %d: exit took %v, want under 5 s", i, d)
			}
			if !strings.Contains(c.stdout.String(), "evotune resume "+dir) {
				t.Errorf("interrupt %d: output lacks the resume command:\n%s", i, c.stdout.String())
			}
		default:
			t.Fatalf("interrupt %d: exit %d after %v\n%s", i, code, sig, c.stderr.String())
		}
		interrupted++
		// (A child killed early may not have written its history yet.)
		if h, _ := os.ReadFile(filepath.Join(dir, "history.jsonl")); bytes.Contains(h, []byte(`"stage_end"`)) && !bytes.Contains(h, []byte(`"stop"`)) {
			laterStage++
		}
	}
	c := startChild(t, trace, "resume", dir)
	if code := c.exitCode(); code != 0 {
		t.Fatalf("final resume: exit %d\n%s", code, c.stderr.String())
	}
	got := readFinished(t, dir)
	if got.weights != want.weights {
		t.Errorf("weights.yaml differs from the uninterrupted run's")
	}
	if got.history != want.history {
		t.Errorf("history differs from the uninterrupted run's:\n%s\n%s", got.history, want.history)
	}
	if got.checkpoint != want.checkpoint {
		t.Errorf("final checkpoint differs from the uninterrupted run's")
	}
	if interrupted == 0 {
		t.Fatalf("no interruption landed before the run finished")
	}
	lost = countLines(t, trace) - want.games
	t.Logf("%v: %d interruptions (%d after the first stage), %d finished games played again (the games in flight, at most one per worker, are not counted)", sig, interrupted, laterStage, max(lost, 0))
	return lost, laterStage
}

func TestCrashKill9(t *testing.T) {
	kills := 8
	if testing.Short() {
		kills = 3
	}
	if lost := crashAndResume(t, syscall.SIGKILL, kills, 1); lost > 0 {
		t.Errorf("%d finished games were played again after kill -9; the journal should have kept them", lost)
	}
}

// TestCrashKill9Stages kills a ladder with SIGKILL in its second stage:
// the resumed run continues in the stage it was in and ends with the bytes
// of an uninterrupted run.
func TestCrashKill9Stages(t *testing.T) {
	kills := 6
	if testing.Short() {
		kills = 3
	}
	lost, later := crashAndResumeConfig(t, crashLadderConfig, syscall.SIGKILL, kills, 3, `"stage_end"`)
	if lost > 0 {
		t.Errorf("%d finished games were played again after kill -9; the journal should have kept them", lost)
	}
	if later == 0 {
		t.Errorf("no kill landed in the second stage")
	}
}

func TestCrashSIGINT(t *testing.T) {
	kills := 6
	if testing.Short() {
		kills = 2
	}
	if lost := crashAndResume(t, syscall.SIGINT, kills, 2); lost > 0 {
		t.Errorf("%d finished games were played again after Ctrl-C; the journal should have kept them", lost)
	}
}

func jsonUnmarshal(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatal(err)
	}
}
