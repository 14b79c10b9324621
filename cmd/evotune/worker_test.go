package main

import (
	"bufio"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evotune/evotune/tuner/natspool"
)

// freeAddr returns a loopback address nothing listens on (for now).
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestWorkerWaitsForServer: a worker started before its server says once
// that it waits for the server at its URL, connects when the server comes,
// plays a run's games and stops on Ctrl-C; with --wait it gives up with one
// line and exit status 1.
func TestWorkerWaitsForServer(t *testing.T) {
	addr, none := freeAddr(t), freeAddr(t)
	url := "nats://" + addr

	cmd := evotuneCommand(nil, "worker", "--nats", url, "--slots", "1", "--name", "early")
	var stdout strings.Builder
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		for sc := bufio.NewScanner(stderr); sc.Scan(); {
			lines <- sc.Text()
		}
	}()
	var said []string
	await := func(want string) {
		t.Helper()
		for line := range lines {
			said = append(said, line)
			if strings.Contains(line, want) {
				return
			}
		}
		t.Fatalf("the worker exited without saying %q:\n%s", want, strings.Join(said, "\n"))
	}
	await("worker    waiting for the NATS server at " + url)
	// The worker tries again (every second) before the server comes, and
	// says nothing more.
	time.Sleep(1500 * time.Millisecond)
	s, err := natspool.StartServer(addr, natspool.Credentials{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	await("worker    connected to the NATS server at " + url)
	await("early ready: slots 1")
	tuneRun(t, smallConfig, "--nats", url)
	cmd.Process.Signal(syscall.SIGINT)
	for line := range lines {
		said = append(said, line)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("worker: %v\n%s", err, strings.Join(said, "\n"))
	}
	if n := strings.Count(strings.Join(said, "\n"), "waiting for the NATS server"); n != 1 {
		t.Errorf("the worker said %d times that it waits:\n%s", n, strings.Join(said, "\n"))
	}
	if out := stdout.String(); !strings.Contains(out, "early stopped after") || strings.Contains(out, "after 0 jobs") {
		t.Errorf("worker's stdout %q: want it to have played", out)
	}

	code, _, errs := runCLI(t, "worker", "--nats", "nats://"+none, "--wait", "100ms")
	if code != exitFailure || !strings.Contains(errs, "no NATS server at nats://"+none+" after waiting 100ms") || !strings.Contains(errs, "--wait 0 waits for ever") {
		t.Errorf("--wait 100ms without a server: exit %d\n%s", code, errs)
	}
	if code, _, errs := runCLI(t, "worker", "--nats", url, "--wait", "-1s"); code != exitUsage || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("--wait -1s: exit %d\n%s", code, errs)
	}
}
