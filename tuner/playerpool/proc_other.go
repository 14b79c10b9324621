//go:build !unix && !windows

package playerpool

import "os/exec"

// A procGroup, where the system has neither process groups nor Job
// objects, ends the player only; processes it started are left to it.
type procGroup struct{}

func (procGroup) prepare(*exec.Cmd)       {}
func (procGroup) started(*exec.Cmd) error { return nil }
func (procGroup) release()                {}

func (procGroup) kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}
