//go:build unix

package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/internal/proctest"
	"github.com/evotune/evotune/tuner"
	"github.com/evotune/evotune/tuner/playerpool"
)

// badPlayerFlag, first on the test binary's command line, makes it a
// misbehaving player (see badPlayer) before any test or TestMain runs.
const badPlayerFlag = "-evotune-bad-player"

func init() {
	if len(os.Args) > 2 && os.Args[1] == badPlayerFlag {
		os.Exit(badPlayer(os.Args[2], os.Args[3:]))
	}
}

// badPlayerCommand runs the test binary as the bad player of mode.
func badPlayerCommand(mode string, args ...string) []string {
	return append([]string{os.Args[0], badPlayerFlag, mode}, args...)
}

// A faultPlayer is the standard set at 2 plies with a fault at its n-th
// move request.
type faultPlayer struct {
	*playerpool.SearchPlayer
	n     int
	at    int
	fault func()
}

func (f *faultPlayer) Moves(boards []engine.Board, dst []engine.Dir) error {
	if f.n++; f.n == f.at {
		f.fault()
	}
	return f.SearchPlayer.Moves(boards, dst)
}

func (f *faultPlayer) MovesIn(boards []engine.Board, sets []uint8, dst []engine.Dir) error {
	if f.n++; f.n == f.at {
		f.fault()
	}
	return f.SearchPlayer.MovesIn(boards, sets, dst)
}

// badPlayer runs a player of mode and returns its exit status. Modes:
// trickle [FILE] (creates FILE, then a param line every 0.5 s, never
// ready); segv N (dies of SIGSEGV
// at its N-th move request); spawn FILE WHEN (starts a child that sleeps,
// appends "PID CHILDPID" to FILE, then WHEN is hang: hangs at its 3rd move
// request, or stay: if it is the first start (the probe before a run),
// creates FILE.quit when told to quit and stays); author FAULT (see
// authorPlayer).
func badPlayer(mode string, args []string) int {
	cfg := engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 2, Width: 8}.WithPlayDefaults()
	cfg.LossValue = engine.DefaultLossValue
	sp, err := playerpool.NewSearchPlayer(must(eval.Set("standard")), cfg, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	p := &faultPlayer{SearchPlayer: sp}
	switch mode {
	case "trickle":
		if len(args) > 0 {
			os.WriteFile(args[0], nil, 0o644)
		}
		var b [64]byte
		os.Stdin.Read(b[:])
		fmt.Println("id trickle 1")
		for i := range playerpool.MaxParams {
			time.Sleep(500 * time.Millisecond)
			fmt.Printf("param p%d float 1 0 2\n", i)
		}
		time.Sleep(time.Hour)
		return 0
	case "segv":
		p.at, _ = strconv.Atoi(args[0])
		p.fault = func() {
			fmt.Fprintln(os.Stderr, "segfaulting, on purpose")
			// Go's runtime would catch a SIGSEGV sent to itself: a shell,
			// same pid, same pipes, sends the real thing.
			syscall.Exec("/bin/sh", []string{"sh", "-c", "kill -SEGV $$"}, nil)
		}
	case "spawn":
		child := exec.Command(os.Args[0], badPlayerFlag, "sleeper")
		child.Stderr = os.Stderr // as a shell script's commands hold its pipes
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		f, err := os.OpenFile(args[0], os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return 1
		}
		fmt.Fprintf(f, "%d %d\n", os.Getpid(), child.Process.Pid)
		f.Close()
		b, _ := os.ReadFile(args[0])
		probe := strings.Count(string(b), "\n") == 1
		if args[1] == "hang" {
			p.at = 3
			p.fault = func() {
				fmt.Fprintln(os.Stderr, "thinking very hard")
				time.Sleep(time.Hour)
			}
		}
		err = playerpool.Serve(context.Background(), os.Stdin, os.Stdout, p)
		if args[1] == "stay" && probe {
			os.WriteFile(args[0]+".quit", nil, 0o644)
			time.Sleep(time.Hour)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	case "sleeper":
		time.Sleep(time.Hour)
		return 0
	case "author":
		return authorPlayer(args[0])
	default:
		fmt.Fprintf(os.Stderr, "unknown bad player mode %q\n", mode)
		return 2
	}
	if err := playerpool.Serve(context.Background(), os.Stdin, os.Stdout, p); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// waitProcessesGone polls, for at most 10 s, until none of the pids in
// the spawn players' file runs; it fails naming survivors, and kills them.
func waitProcessesGone(t *testing.T, pidFile string) {
	t.Helper()
	pids, err := proctest.ReadPids(pidFile)
	if err != nil {
		t.Fatalf("no player started: %v", err)
	}
	proctest.WaitGone(t, pids...)
}

// badPlayerConfig is a run of one game a candidate and two validation
// games, so that a player that hangs costs at most two boards' limit a
// request.
func badPlayerConfig(command []string) string {
	c := strings.Replace(playerConfig(command), "fitness: {games: 4}", "fitness: {games: 1}", 1)
	c = strings.Replace(c, "validation: {games: 6}", "validation: {games: 2}", 1)
	return strings.Replace(c, "noise: {games: [2, 4], block: 2}\n", "", 1)
}

// TestTuneBadPlayer: evotune tune --player on a misbehaving player ends
// with exit status 1 and one line saying what it did, its checkpoint
// intact if it made one, and no process left.
func TestTuneBadPlayer(t *testing.T) {
	cases := []struct {
		name string
		cmd  func(pidFile string) []string
		run  bool // the handshake passes: a run directory and a checkpoint are made
		says []string
	}{
		{"trickle", func(string) []string { return badPlayerCommand("trickle") }, false,
			[]string{"did not finish its handshake within 2s"}},
		{"segv", func(string) []string { return badPlayerCommand("segv", "3") }, true,
			[]string{"exited (signal: segmentation fault) while answering move for 0x", "failed 3 times", "segfaulting, on purpose"}},
		{"spawn and hang", func(f string) []string { return badPlayerCommand("spawn", f, "hang") }, true,
			[]string{"did not answer move for 0x", "within", "thinking very hard"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pids")
			dir := filepath.Join(t.TempDir(), "run")
			args := []string{"tune", "--config", writeConfig(t, badPlayerConfig(c.cmd(pidFile))), "--out", dir, "--workers", "1", "--player-timeouts", "0.2"}
			code, _, errs := runCLI(t, args...)
			lines := strings.Split(strings.TrimSpace(errs), "\n")
			last := lines[len(lines)-1]
			if code != exitFailure {
				t.Errorf("exit %d, want 1; stderr:\n%s", code, errs)
			}
			for _, s := range c.says {
				if !strings.Contains(last, s) {
					t.Errorf("last line of stderr does not say %q:\n%s", s, last)
				}
			}
			if strings.ContainsRune(last, '\x1b') {
				t.Errorf("an escape byte reached the terminal: %q", last)
			}
			if c.run {
				if _, _, _, err := tuner.LoadCheckpoint(dir); err != nil {
					t.Errorf("the checkpoint does not load: %v", err)
				}
			} else if _, err := os.Stat(dir); err == nil {
				t.Errorf("a run directory was made")
			}
			if _, err := os.Stat(pidFile); err == nil {
				waitProcessesGone(t, pidFile)
			}
		})
	}
}

// TestSecondInterrupt: a second Ctrl-C, while the first waits for a
// player that ignores quit (the probe before a run, waited for 5 s), ends
// every player and the process the player started before evotune exits
// with status 1.
func TestSecondInterrupt(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	dir := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(os.Args[0], "tune", "--config", writeConfig(t, playerConfig(badPlayerCommand("spawn", pidFile, "stay"))), "--out", dir, "--workers", "1")
	cmd.Env = append(os.Environ(), "EVOTUNE_CHILD=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	// Wait for the probe to be told to quit: evotune waits for it then.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(pidFile + ".quit"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the probe was not told to quit")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(os.Interrupt)
	var said []string
	for l := range lines {
		said = append(said, l)
		if strings.Contains(l, "Ctrl-C again") {
			cmd.Process.Signal(os.Interrupt)
		}
	}
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != exitFailure || !strings.Contains(strings.Join(said, "\n"), "interrupted again") {
		t.Errorf("exit %d, want 1 after a second Ctrl-C; stderr:\n%s", code, strings.Join(said, "\n"))
	}
	waitProcessesGone(t, pidFile)
}

// TestTermDuringHandshake: SIGTERM ends evotune at once while a player
// trickles its handshake under a limit of 1,000 s.
func TestTermDuringHandshake(t *testing.T) {
	started := filepath.Join(t.TempDir(), "started")
	dir := filepath.Join(t.TempDir(), "run")
	c := startChild(t, "", "tune", "--config", writeConfig(t, playerConfig(badPlayerCommand("trickle", started))), "--out", dir, "--player-timeouts", "100")
	c.waitReady()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			c.cmd.Process.Kill()
			t.Fatalf("the player did not start; stderr:\n%s", c.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.cmd.Process.Signal(syscall.SIGTERM)
	if code := c.exitCode(); code == 0 || code == -1 {
		t.Errorf("exit %d after SIGTERM, want a failure status of its own; stderr:\n%s", code, c.stderr.String())
	}
}
