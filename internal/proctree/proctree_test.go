//go:build unix

package proctree

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evotune/evotune/internal/proctest"
)

// waitPids waits, at most 10 s (a loaded machine), until path lists n
// pids.
func waitPids(t *testing.T, path string, n int) []int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		pids, _ := proctest.ReadPids(path)
		if len(pids) >= n {
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s lists %v, want %d pids", path, pids, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitExited fails unless p exits within 10 s.
func waitExited(t *testing.T, p *Proc) {
	t.Helper()
	select {
	case <-p.Exited():
	case <-time.After(10 * time.Second):
		t.Fatal("the process did not exit within 10 s")
	}
}

func start(t *testing.T, cfg Config, mode ...string) *Proc {
	t.Helper()
	p, err := Start(childCommand(t, mode...), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Release)
	return p
}

// TestKillEndsTree: Kill ends the process and the child it started, which
// holds its pipes, and a read of its output under way.
func TestKillEndsTree(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	p := start(t, Config{}, "tree", pidFile)
	pids := waitPids(t, pidFile, 2)
	read := make(chan error, 1)
	go func() {
		_, err := p.Stdout().Read(make([]byte, 10))
		read <- err
	}()
	time.Sleep(20 * time.Millisecond)
	p.Kill()
	proctest.WaitGone(t, pids...)
	select {
	case err := <-read:
		// EOF when the tree died first, os.ErrClosed when our end was
		// closed first: either way the read is over.
		if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
			t.Errorf("a read under way ended with %v, want EOF or os.ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("a read of the output still waits 10 s after Kill")
	}
	waitExited(t, p)
	if p.SelfExited() || !p.Killed() {
		t.Errorf("a killed process: exited by itself %v, killed %v", p.SelfExited(), p.Killed())
	}
	if _, err := p.Stdin().Write([]byte("x\n")); err == nil {
		t.Error("a write to a killed process's input succeeded")
	}
}

// TestKillEndsOrphans: a child left behind when the process exited, now
// init's, is still killed with the tree.
func TestKillEndsOrphans(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	p := start(t, Config{}, "orphan", pidFile)
	pids := waitPids(t, pidFile, 2)
	waitExited(t, p)
	if !p.SelfExited() || p.Err() != nil {
		t.Fatalf("the process exited by itself %v, with %v; want true, nil", p.SelfExited(), p.Err())
	}
	if !proctest.Alive(pids[1]) {
		t.Fatal("the orphan is gone before Kill: this test shows nothing")
	}
	p.Kill()
	proctest.WaitGone(t, pids[1])
}

// TestKillAll: KillAll ends every tree of the program, children and all,
// while their owners know nothing of it.
func TestKillAll(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	var ps []*Proc
	for range 2 {
		ps = append(ps, start(t, Config{}, "tree", pidFile))
	}
	pids := waitPids(t, pidFile, 4)
	KillAll()
	proctest.WaitGone(t, pids...)
	for _, p := range ps {
		waitExited(t, p)
	}
}

// TestKill9Parent: on Linux, a tree's process outlives no kill -9 of the
// program that started it (the parent-death signal). Its own child is
// another matter: the kernel signals the direct child only.
func TestKill9Parent(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal is Linux's")
	}
	pidFile := filepath.Join(t.TempDir(), "pids")
	holder := exec.Command(childCommand(t, "hold", pidFile)[0])
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer holder.Wait()
	pids := waitPids(t, pidFile, 2)
	holder.Process.Kill() // SIGKILL: no code of the holder runs
	proctest.WaitGone(t, pids[0])
	syscall.Kill(-pids[0], syscall.SIGKILL) // the grandchild, in the tree's group
	proctest.WaitGone(t, pids[1])
}

// TestCPU: the tree's CPU counts the process's own and that of the child
// it reaped, live where it can be read and at the exit everywhere.
func TestCPU(t *testing.T) {
	const each = 300 * time.Millisecond // the child's, then the process's
	began := time.Now()
	p := start(t, Config{}, "spintree", each.String())
	line, err := bufio.NewReader(p.Stdout()).ReadString('\n')
	if line != "spun\n" {
		t.Fatalf("the process said %q, %v", line, err)
	}
	// /proc counts in ticks of 10 ms, and the spin stops on a reading of
	// its own: a few ticks of slack.
	const want = 2*each - 30*time.Millisecond
	if LiveCPU() {
		if c, ok := p.CPU(); !ok || c < want {
			t.Errorf("live CPU %v (%v), want at least %v", c, ok, want)
		}
	}
	p.CloseStdin() // it exits when its input closes
	waitExited(t, p)
	c := p.ExitCPU()
	if limit := time.Since(began)*time.Duration(runtime.NumCPU()) + 50*time.Millisecond; c < want || c > limit {
		t.Errorf("CPU at the exit %v, want at least %v and at most %v", c, want, limit)
	}
}

// TestLogCapped: a process flooding its standard error is not blocked by
// it, its log passes the budget and the marker on, and the tail quotes
// what the log holds; Started marks the log before the process's first
// byte.
func TestLogCapped(t *testing.T) {
	const limit = 64 << 10
	marker := "\n[the rest is dropped]\n"
	for _, tc := range []struct {
		kb           int
		head, ending string // the tail's
	}{
		{8192, "[the rest", "dropped]"},
		{20, "...", "flood flood"},
	} {
		var dst proctest.LockedBuffer
		log := NewLog(&dst, limit, marker)
		p := start(t, Config{Log: log, Started: func(pid int) { dst.Write([]byte("start\n")) }}, "flood", strconv.Itoa(tc.kb))
		waitExited(t, p)
		p.Drained(10 * time.Second)
		var ee *exec.ExitError
		if !errors.As(p.Err(), &ee) || ee.ExitCode() != 3 {
			t.Errorf("%d KiB: exit %v, want status 3", tc.kb, p.Err())
		}
		// The child writes in chunks of 1020 bytes.
		const chunk = 1 << 10 / 6 * len("flood ")
		wrote := (tc.kb<<10 + chunk - 1) / chunk * chunk
		wantLen := len("start\n") + min(wrote, limit)
		if wrote > limit {
			wantLen += len(marker)
		}
		got := dst.String()
		if !strings.HasPrefix(got, "start\nflood ") || len(got) != wantLen {
			t.Errorf("%d KiB: the log got %d bytes starting %.12q, want %d starting with the mark", tc.kb, len(got), got, wantLen)
		}
		if tail := log.Tail(); !strings.HasPrefix(tail, tc.head) || !strings.HasSuffix(tail, tc.ending) || len(tail) > len("...")+tailLine {
			t.Errorf("%d KiB: tail %q, want one line from %q to %q", tc.kb, tail, tc.head, tc.ending)
		}
	}
}

// TestPipes: a line written to the input comes back on the output, and
// the process exits once its input is closed.
func TestPipes(t *testing.T) {
	p := start(t, Config{}, "echo")
	if _, err := p.Stdin().Write([]byte("a line\n")); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(p.Stdout()).ReadString('\n')
	if line != "a line\n" || err != nil {
		t.Fatalf("read %q, %v", line, err)
	}
	p.CloseStdin()
	waitExited(t, p)
	if !p.SelfExited() || p.Err() != nil || !p.State().Success() {
		t.Errorf("exited by itself %v, %v, want status 0", p.SelfExited(), p.Err())
	}
}

// TestStartFails: a command that cannot start is exec's error, naming
// it, and leaves no file open.
func TestStartFails(t *testing.T) {
	fds := func() int {
		es, err := os.ReadDir("/dev/fd")
		if err != nil {
			t.Skip("no /dev/fd here")
		}
		return len(es)
	}
	before := fds()
	missing := filepath.Join(t.TempDir(), "none")
	for range 3 {
		_, err := Start([]string{missing}, Config{})
		if err == nil || !strings.Contains(err.Error(), missing) {
			t.Fatalf("error %v, want one naming %s", err, missing)
		}
	}
	if _, err := Start(nil, Config{}); err == nil {
		t.Error("an empty command started")
	}
	if after := fds(); after > before {
		t.Errorf("%d files open after failed starts, %d before", after, before)
	}
}
