//go:build !unix && !windows

package tunebench

import (
	"fmt"
	"os/exec"
	"runtime"
	"time"
)

// A procGroup, where the system has neither process groups nor Job
// objects, ends the peer only. It is never started: cpuReadable refuses
// peers here.
type procGroup struct{}

func (procGroup) prepare(*exec.Cmd)                    {}
func (procGroup) started(*exec.Cmd) error              { return nil }
func (procGroup) release()                             {}
func (procGroup) live(*exec.Cmd) (time.Duration, bool) { return 0, false }
func (procGroup) exitCPU(*exec.Cmd) time.Duration      { return 0 }

func (procGroup) kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}

// cpuReadable refuses peers: neither a live process's CPU nor an exited
// one's can be read here, and a peer's own CPU is part of its cost.
func cpuReadable() error {
	return fmt.Errorf("a peer's CPU time cannot be read on %s, live or at its exit: peers run on Unix and Windows", runtime.GOOS)
}
