//go:build unix

package proctree

import (
	"os/exec"
	"syscall"
	"time"
)

// A tree, on Unix, is the process group the process leads, which one
// signal reaches all at once.
type tree struct{}

// prepare starts the process in a process group of its own, so that the
// terminal's Ctrl-C reaches evotune, which then ends the group itself, and
// a kill reaches what the process started too (a script's commands, an
// interpreter behind a launcher, a worker pool). Where the system has it,
// the process is also killed when evotune dies (setDeathSignal).
func (tree) prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(cmd.SysProcAttr)
}

func (tree) started(*exec.Cmd) error { return nil }

// kill kills the process group, and the process itself in case it left
// the group.
func (tree) kill(cmd *exec.Cmd) {
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Process.Kill()
}

func (tree) release() {}

// liveCPU reads the group's CPU while it runs (see groupCPU).
func (tree) liveCPU(cmd *exec.Cmd) (time.Duration, bool) {
	return groupCPU(cmd.Process.Pid)
}

// exitCPU is the process's CPU once it has been reaped: its own and that
// of the children it waited for (the rusage of wait4).
func (tree) exitCPU(cmd *exec.Cmd) time.Duration {
	if cmd.ProcessState == nil {
		return 0
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

const cpuReadable = true
