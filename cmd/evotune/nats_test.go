package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evotune/evotune/tuner/natspool"
)

func startNATS(t *testing.T, auth natspool.Credentials) *natspool.Server {
	t.Helper()
	s, err := natspool.StartServer("127.0.0.1:0", auth)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	return s
}

// natsConfig is a run of eight generations of short games: the workers
// are busy all the time, so a kill lands in a job.
const natsConfig = `name: nats
seed: 12
generations: 8
features: standard
optimizer: {method: cmaes, population: 6}
search: {algorithm: expectimax, depth: 2}
fitness: {games: 8}
validation: {games: 12}
checkpoints: {keep: 2}
`

// TestNATSWorkerKill9 runs a tuning on two worker processes and kills one
// with SIGKILL while the run is under way: its job goes to the other
// worker and the run writes exactly what a local run writes.
func TestNATSWorkerKill9(t *testing.T) {
	cfg := writeConfig(t, natsConfig)
	tmp := t.TempDir()
	ref := filepath.Join(tmp, "ref")
	start := time.Now()
	if code, _, errs := runCLI(t, "tune", "--config", cfg, "--out", ref); code != 0 {
		t.Fatalf("local run: exit %d\n%s", code, errs)
	}
	t.Logf("local run: %v", time.Since(start))
	start = time.Now()
	want := readFinished(t, ref)

	s := startNATS(t, natspool.Credentials{})
	var workers []*child
	for _, name := range []string{"victim", "survivor"} {
		c := startChild(t, "", "worker", "--nats", s.URL(), "--slots", "1", "--name", name)
		workers = append(workers, c)
		t.Cleanup(func() {
			c.cmd.Process.Kill()
			c.wait()
		})
	}
	dir := filepath.Join(tmp, "dist")
	type outcome struct {
		code         int
		stdout, errs string
	}
	finished := make(chan outcome, 1)
	go func() {
		code, out, errs := runCLI(t, "tune", "--config", cfg, "--out", dir, "--nats", s.URL(), "--nats-ack-wait", "2s")
		finished <- outcome{code, out, errs}
	}()
	// Kill the victim once the run has finished two generations, well
	// before it ends (it has eight).
	deadline := time.Now().Add(2 * time.Minute)
	for {
		data, _ := os.ReadFile(filepath.Join(dir, "history.jsonl"))
		if n := bytes.Count(data, []byte("\n")); n >= 2 {
			if n >= 7 {
				t.Fatalf("the run reached generation %d before the kill", n)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the run made no progress in 2 minutes")
		}
		time.Sleep(20 * time.Millisecond)
	}
	workers[0].cmd.Process.Kill()
	if code := workers[0].exitCode(); code != -1 {
		t.Fatalf("victim: exit %d, want killed\n%s", code, workers[0].stderr.String())
	}
	r := <-finished
	if r.code != 0 {
		t.Fatalf("distributed run: exit %d\n%s", r.code, r.errs)
	}
	t.Logf("distributed run: %v", time.Since(start))
	got := readFinished(t, dir)
	if got.weights != want.weights {
		t.Errorf("weights.yaml differs from the local run's")
	}
	if got.history != want.history {
		t.Errorf("history differs from the local run's:\n%s\n%s", got.history, want.history)
	}
	if got.checkpoint != want.checkpoint {
		t.Errorf("final checkpoint differs from the local run's")
	}
	if !strings.Contains(workers[0].stderr.String(), "victim ready: slots 1") {
		t.Errorf("victim never started:\n%s", workers[0].stderr.String())
	}
}

// TestNATSBadInput checks the NATS flags' bad input: one line naming the
// flag, exit status 2.
func TestNATSBadInput(t *testing.T) {
	s := startNATS(t, natspool.Credentials{User: "tuner", Password: "right"})
	tmp := t.TempDir()
	wrong := filepath.Join(tmp, "wrong")
	os.WriteFile(wrong, []byte("tuner:wrong\n"), 0o600)
	empty := filepath.Join(tmp, "empty")
	os.WriteFile(empty, []byte("# no credentials\n"), 0o600)
	out := filepath.Join(tmp, "run")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"tune", "--out", out, "--nats", s.URL(), "--nats-listen", "127.0.0.1:0"}, "--nats and --nats-listen"},
		{[]string{"tune", "--out", out, "--local-slots", "2"}, "--local-slots"},
		{[]string{"tune", "--out", out, "--nats-creds", wrong}, "--nats-creds"},
		{[]string{"tune", "--out", out, "--nats", s.URL(), "--local-slots", "-1"}, "--local-slots"},
		{[]string{"tune", "--out", out, "--nats", s.URL(), "--nats-ack-wait", "10ms"}, "--nats-ack-wait"},
		{[]string{"tune", "--out", out, "--nats-listen", "0.0.0.0:0"}, "reachable from other machines"},
		{[]string{"tune", "--out", out, "--nats-listen", "localhost"}, "--nats-listen"},
		{[]string{"tune", "--out", out, "--nats", s.URL()}, "refused the credentials"},
		{[]string{"tune", "--out", out, "--nats", s.URL(), "--nats-creds", wrong}, "refused the credentials"},
		{[]string{"tune", "--out", out, "--nats", s.URL(), "--nats-creds", empty}, "--nats-creds"},
		{[]string{"resume", out, "--nats", s.URL()}, "--nats"},
		{[]string{"worker"}, "--nats is required"},
		{[]string{"worker", "--nats", s.URL(), "--slots", "-1"}, "--slots"},
		{[]string{"worker", "--nats", s.URL(), "--nats-creds", wrong}, "refused the credentials"},
		{[]string{"worker", "--nats", strings.Replace(s.URL(), "nats://", "nats://tuner:wrong@", 1)}, "refused the credentials"},
		{[]string{"worker", "--nats", s.URL(), "--player-logs", out}, "--player-logs needs --player"},
		{[]string{"worker", "--nats", s.URL(), "--player", "evotune player | tee x"}, "shell syntax"},
		{[]string{"worker", "--nats", s.URL(), "--player", "x", "--player-timeouts", "0"}, "--player-timeouts"},
	}
	os.MkdirAll(out, 0o755)
	for _, tc := range tests {
		code, _, errs := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want one line with %q, exit 2", tc.args, code, errs, tc.want)
		}
		if strings.Contains(errs, "wrong") && !strings.Contains(errs, "--nats-creds") {
			t.Errorf("%v: the message shows the password: %q", tc.args, errs)
		}
	}
}

// TestNATSCoordinatorKill9 kills the coordinator of a distributed run with
// SIGKILL and resumes it with the same workers: the resumed coordinator
// discards the jobs its predecessor left and the run ends as a local one.
func TestNATSCoordinatorKill9(t *testing.T) {
	cfg := writeConfig(t, natsConfig)
	tmp := t.TempDir()
	ref := filepath.Join(tmp, "ref")
	if code, _, errs := runCLI(t, "tune", "--config", cfg, "--out", ref); code != 0 {
		t.Fatalf("local run: exit %d\n%s", code, errs)
	}
	want := readFinished(t, ref)

	s := startNATS(t, natspool.Credentials{})
	w := startChild(t, "", "worker", "--nats", s.URL(), "--slots", "2", "--name", "w")
	t.Cleanup(func() {
		w.cmd.Process.Kill()
		w.wait()
	})
	dir := filepath.Join(tmp, "dist")
	c := startChild(t, "", "tune", "--config", cfg, "--out", dir, "--nats", s.URL())
	deadline := time.Now().Add(2 * time.Minute)
	for {
		data, _ := os.ReadFile(filepath.Join(dir, "history.jsonl"))
		if n := bytes.Count(data, []byte("\n")); n >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the run made no progress in 2 minutes")
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.cmd.Process.Kill()
	if code := c.exitCode(); code != -1 {
		t.Fatalf("coordinator: exit %d before the kill\n%s", code, c.stderr.String())
	}
	if code, _, errs := runCLI(t, "resume", dir, "--nats", s.URL()); code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, errs)
	}
	got := readFinished(t, dir)
	if got.weights != want.weights || got.history != want.history || got.checkpoint != want.checkpoint {
		t.Errorf("the resumed distributed run differs from the local run:\n%s\n%s", got.history, want.history)
	}
}
