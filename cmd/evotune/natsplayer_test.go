package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evotune/evotune/tuner/natspool"
	"github.com/evotune/evotune/tuner/playerpool"
)

// TestNATSPlayerWorker: a tuning run of an external player whose games
// are played by a worker started with the same player (evotune worker
// --player), or by the coordinator's local slots alone, writes what the
// run on this machine writes: history, params file and checkpoint.
func TestNATSPlayerWorker(t *testing.T) {
	// The race detector's second of sleep at each player's exit, spared.
	t.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	cmd := evotunePlayer(t, "--eval", "standard", "--depth", "2")
	// Two generations: the second ends with a validation.
	config := strings.Replace(playerConfig(cmd), "generations: 3", "generations: 2", 1)
	want := readFinished(t, tuneRun(t, config, "--workers", "1"))
	same := func(how, dir string) {
		t.Helper()
		got := readFinished(t, dir)
		if got.weights != want.weights {
			t.Errorf("%s: weights.yaml differs from the local run's:\n%s\n%s", how, got.weights, want.weights)
		}
		if got.history != want.history {
			t.Errorf("%s: history differs from the local run's:\n%s\n%s", how, got.history, want.history)
		}
		if got.checkpoint != want.checkpoint {
			t.Errorf("%s: final checkpoint differs from the local run's", how)
		}
	}

	s := startNATS(t, natspool.Credentials{})
	logs := t.TempDir()
	w := startChild(t, "", "worker", "--nats", s.URL(), "--slots", "2", "--name", "pw",
		"--player", strings.Join(quoteAll(cmd), " "), "--player-logs", logs)
	t.Cleanup(func() {
		w.cmd.Process.Kill()
		w.wait()
	})
	same("a worker", tuneRun(t, config, "--nats", s.URL()))
	if found, _ := filepath.Glob(filepath.Join(logs, "slot-*.log")); len(found) == 0 {
		t.Errorf("the worker left no player log in %s", logs)
	}

	dir := filepath.Join(t.TempDir(), "run")
	code, out, errs := runCLI(t, "tune", "--config", writeConfig(t, config), "--out", dir, "--nats-listen", "127.0.0.1:0", "--local-slots", "1")
	if code != 0 {
		t.Fatalf("tune --nats-listen: exit %d\n%s\n%s", code, out, errs)
	}
	same("local slots", dir)
	// The hint names the player a worker must run, quoted for a shell.
	if hint := "--player '" + playerpool.CommandString(cmd) + "'"; !strings.Contains(errs, "start workers with: evotune worker --nats nats://") || !strings.Contains(errs, hint) {
		t.Errorf("no hint with %s in tune's stderr:\n%s", hint, errs)
	}

	w.cmd.Process.Kill()
	w.wait() // before reading its output
	if !strings.Contains(w.stderr.String(), "pw ready: slots 2") || !strings.Contains(w.stderr.String(), "player evotune-standard") {
		t.Errorf("worker's stderr:\n%s", w.stderr.String())
	}
}

// TestNATSWorkerPlayerCannotStart: a worker whose player cannot start
// stops at once with the player's one-line error, exit status 1.
func TestNATSWorkerPlayerCannotStart(t *testing.T) {
	s := startNATS(t, natspool.Credentials{})
	missing := filepath.Join(t.TempDir(), "no-such-player")
	code, _, errs := runCLI(t, "worker", "--nats", s.URL(), "--player", missing)
	if code != exitFailure || !strings.Contains(errs, missing) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("exit %d, stderr %q; want exit 1 and one line naming the player", code, errs)
	}
}
