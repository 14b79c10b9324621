//go:build unix

package playerpool

import (
	"os/exec"
	"syscall"
)

// setGroup starts the player in a process group of its own, so that a
// player run through a shell script dies with the script: a grandchild
// left holding the pipes would keep evotune waiting.
func setGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills the player's process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Process.Kill()
}
