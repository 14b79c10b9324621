//go:build unix

package tunebench

import (
	"os/exec"
	"syscall"
	"time"
)

// A procGroup holds a peer with the processes it starts: on Unix, the
// process group the peer leads, which a signal reaches all at once.
type procGroup struct{}

// prepare starts the peer in a process group of its own, so that the
// terminal's Ctrl-C reaches evotune, which then ends the whole group at
// once, and a kill reaches a peer's children too (an interpreter behind a
// launcher, a worker pool). Where the system has it, the peer is also
// killed when evotune dies, kill -9 included (setDeathSignal).
func (procGroup) prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(cmd.SysProcAttr)
}

func (procGroup) started(*exec.Cmd) error { return nil }

// kill kills the peer's process group.
func (procGroup) kill(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Process.Kill()
}

func (procGroup) release() {}

// exitCPU is the peer's CPU time once it has been reaped: its own and
// that of the children it waited for (the rusage of wait4).
func (procGroup) exitCPU(cmd *exec.Cmd) time.Duration {
	if cmd.ProcessState == nil {
		return 0
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// live reads the peer group's CPU time while it runs (see groupCPU).
func (procGroup) live(cmd *exec.Cmd) (time.Duration, bool) {
	if cmd.Process == nil {
		return 0, false
	}
	return groupCPU(cmd.Process.Pid)
}

func cpuReadable() error { return nil }
