//go:build unix

package tunebench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evotune/evotune/internal/proctest"
	"github.com/evotune/evotune/internal/proctree"
)

// misbehave runs one run of a peer in mode with tight limits and returns
// the wall time it took, the pids of every peer process,
// which it checks are gone, and its error.
func misbehave(t *testing.T, mode string, o Options) (time.Duration, []int, error) {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "pids")
	t.Setenv("TUNEBENCH_PEER", mode)
	t.Setenv("TUNEBENCH_PIDS", pidFile)
	o.Short, o.Seeds, o.Workers, o.Full, o.Peer = true, []uint64{1}, 1, true, []string{os.Args[0]}
	if o.PeerStderr == nil {
		o.PeerStderr = &proctest.LockedBuffer{}
	}
	p, _ := Lookup("standard-3")
	began := time.Now()
	_, err := RunPeer(context.Background(), p, o)
	took := time.Since(began)
	pids, rerr := proctest.ReadPids(pidFile)
	if rerr != nil || len(pids) == 0 {
		t.Fatalf("%s: no pid recorded: %v", mode, rerr)
	}
	// RunPeer returns once the group is killed and the peer reaped: a
	// child still running now was left behind.
	proctest.WaitGone(t, pids...)
	return took, pids, err
}

// TestPeerLimits drives each kind of broken peer with a real process and
// checks that the run ends within its limit, with an error that names
// the limit, and that no process of the peer is left.
func TestPeerLimits(t *testing.T) {
	quick := PeerLimits{Idle: 500 * time.Millisecond, Grace: 500 * time.Millisecond, Poll: 50 * time.Millisecond}
	for _, tc := range []struct {
		mode  string
		lim   PeerLimits
		want  error
		text  string
		procs int
	}{
		{"hang", quick, ErrPeerIdle, "no line for 500ms", 1},
		// The child, in the peer's process group, goes with it. It gets 5 s
		// to start and record its pid: a loaded machine may take longer
		// than half a second to start a process.
		{"fork", PeerLimits{Idle: 5 * time.Second, Grace: 500 * time.Millisecond, Poll: 50 * time.Millisecond}, ErrPeerIdle, "no line for 5s", 2},
		{"flood", quick, ErrPeerFlood, "answers in a row without a game", 1},
		// 32 MB must arrive before the idle limit ends the run first: on a
		// loaded machine, or under the race detector, half a second is
		// too short for that.
		{"longline", PeerLimits{Idle: 20 * time.Second, Grace: 500 * time.Millisecond, Poll: 50 * time.Millisecond}, ErrPeerFlood, "MB without a request for games", 1},
		{"stderr", quick, ErrPeerIdle, "its stderr ends:", 1},
		{"nofinal", quick, ErrPeerNoFinal, "lines after stop", 1},
		{"silent", PeerLimits{Idle: 5 * time.Second, Grace: 300 * time.Millisecond}, ErrPeerNoFinal, "nothing more within 300ms", 1},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			stderr := &proctest.LockedBuffer{}
			took, pids, err := misbehave(t, tc.mode, Options{PeerLimits: tc.lim, PeerStderr: stderr})
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("error %v; want %v with %q", err, tc.want, tc.text)
			}
			if len(pids) != tc.procs {
				t.Errorf("%d peer processes, want %d", len(pids), tc.procs)
			}
			// The limits are half a second (fork's idle limit 5 s; longline's
			// 20 s, which it does not reach); the rest is a loaded machine.
			if took > 20*time.Second {
				t.Errorf("the run took %v", took)
			}
			if n := stderr.Len(); n > maxStderr+200 {
				t.Errorf("%d bytes of the peer's stderr passed on, more than the cap of %d", n, maxStderr)
			}
		})
	}
}

// TestPeerCPUWatchdog checks that a peer burning its own CPU without a
// line is killed at its budget and margin, well before the idle limit.
func TestPeerCPUWatchdog(t *testing.T) {
	if !proctree.LiveCPU() {
		t.Skip("no live CPU of a process group here: a looping peer meets the idle limit instead")
	}
	lim := PeerLimits{Idle: time.Minute, CPUMargin: 200 * time.Millisecond, Poll: 20 * time.Millisecond}
	took, _, err := misbehave(t, "loop", Options{PeerLimits: lim, Budget: 200 * time.Millisecond, BudgetGames: 1 << 40})
	if !errors.Is(err, ErrPeerCPU) {
		t.Fatalf("error %v, want the CPU limit", err)
	}
	if took > 30*time.Second {
		t.Errorf("the run took %v", took)
	}
}

// TestPeerCancel checks that the context's end (Ctrl-C) ends a peer that
// waits at once, its child too.
func TestPeerCancel(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	t.Setenv("TUNEBENCH_PEER", "fork")
	t.Setenv("TUNEBENCH_PIDS", pidFile)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Once both processes run: the peer and its child.
		for {
			if pids, _ := proctest.ReadPids(pidFile); len(pids) == 2 {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	p, _ := Lookup("standard-3")
	began := time.Now()
	_, err := RunPeer(ctx, p, Options{Short: true, Seeds: []uint64{1}, Workers: 1, Peer: []string{os.Args[0]}, PeerStderr: &proctest.LockedBuffer{}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if took := time.Since(began); took > 20*time.Second {
		t.Errorf("the run took %v after the cancel", took)
	}
	pids, _ := proctest.ReadPids(pidFile)
	proctest.WaitGone(t, pids...)
}

// TestPeerLingers checks that a peer that sends its final line and stays
// is killed after the grace, its result kept.
func TestPeerLingers(t *testing.T) {
	took, _, err := misbehave(t, "linger", Options{PeerLimits: PeerLimits{Grace: 300 * time.Millisecond}})
	if err != nil {
		t.Errorf("a peer that stays after its final line: %v", err)
	}
	if took > 20*time.Second {
		t.Errorf("the run took %v", took)
	}
}
