//go:build unix

package playerpool

import (
	"os/exec"
	"syscall"
)

// A procGroup ends a player with the processes it started: on Unix, the
// process group the player leads.
type procGroup struct{}

// prepare starts the player in a process group of its own, so that a
// player run through a shell script dies with the script: a grandchild
// left holding the pipes would keep evotune waiting. Where the system has
// it, the player is also killed when evotune dies, kill -9 included
// (setDeathSignal).
func (procGroup) prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(cmd.SysProcAttr)
}

func (procGroup) started(*exec.Cmd) error { return nil }

// kill kills the player's process group.
func (procGroup) kill(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Process.Kill()
}

func (procGroup) release() {}
