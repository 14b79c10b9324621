//go:build unix

package proctest

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Alive reports whether pid is a running process: a zombie, dead but not
// yet reaped by its parent (init, once the player that started it died),
// is not.
func Alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if i := bytes.LastIndexByte(b, ')'); err == nil && i > 0 && i+2 < len(b) && b[i+2] == 'Z' {
		return false
	}
	return true
}

// WaitGone polls, for at most 10 s (a loaded machine), until none of pids
// runs; it fails naming the survivors, and kills them.
func WaitGone(t testing.TB, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var left []int
		for _, pid := range pids {
			if Alive(pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes %v still run", left)
			for _, pid := range left {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ReadPids reads a file of pids separated by spaces or lines, as the spawn
// players write "PID CHILDPID" lines: every pid.
func ReadPids(path string) ([]int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %q", path, b)
		}
		pids = append(pids, pid)
	}
	return pids, nil
}
