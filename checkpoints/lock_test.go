package checkpoints

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestLockTwiceInOneProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	release, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Lock(dir)
	wantErr(t, err, ErrLocked, fmt.Sprintf("%s is in use by process %d (lock file %s)", dir, os.Getpid(), filepath.Join(dir, LockName)))
	// The failed attempt closed its own file; with flock (unlike fcntl
	// locks) that leaves the first lock in place.
	if _, err := Lock(dir); !errors.Is(err, ErrLocked) {
		t.Fatalf("third Lock: %v", err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if err := release(); err != nil {
		t.Errorf("second release: %v", err)
	}
	release, err = Lock(dir)
	if err != nil {
		t.Fatalf("Lock after release: %v", err)
	}
	release()
}

func TestLockMissingDirectory(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "typo")
	if _, err := Lock(dir); !errors.Is(err, os.ErrNotExist) || errors.Is(err, ErrLocked) {
		t.Fatalf("Lock: %v", err)
	}
}

const helperEnv = "EVOTUNE_CHECKPOINTS_LOCK_HELPER"

// TestHelperProcess is the child of TestLockReleasedOnKill: it takes the
// lock of the directory in its environment, says so, and waits to be killed.
func TestHelperProcess(t *testing.T) {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		t.Skip("the child process of TestLockReleasedOnKill")
	}
	if _, err := Lock(dir); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println("locked")
	// Not select {}: with nothing else to run, the runtime would call that
	// a deadlock and exit, dropping the lock before the parent tests it.
	for {
		time.Sleep(time.Hour)
	}
}

// TestLockReleasedOnKill is not parallel: between fork and exec the child
// shares every open file of this process, so a lock released meanwhile by
// a parallel test would stay held for that moment.
func TestLockReleasedOnKill(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), helperEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("child: %q, %v", line, err)
	}

	_, err = Lock(dir)
	wantErr(t, err, ErrLocked, fmt.Sprintf("in use by process %d", cmd.Process.Pid))

	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no chance to clean up
		t.Fatal(err)
	}
	// Unix reports the signal ("signal: killed"); Windows has none, and
	// TerminateProcess leaves exit status 1.
	if err := cmd.Wait(); err == nil || runtime.GOOS != "windows" && !strings.Contains(err.Error(), "killed") {
		t.Fatalf("child: %v", err)
	}
	release, err := Lock(dir)
	if err != nil {
		t.Fatalf("Lock after the holder was killed: %v", err)
	}
	release()
}
