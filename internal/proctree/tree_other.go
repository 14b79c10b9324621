//go:build !unix && !windows

package proctree

import (
	"os/exec"
	"time"
)

// A tree, where the system has neither process groups nor Job objects, is
// the process alone: what it starts is left to it.
type tree struct{}

func (tree) prepare(*exec.Cmd)       {}
func (tree) started(*exec.Cmd) error { return nil }
func (tree) release()                {}

func (tree) kill(cmd *exec.Cmd) { cmd.Process.Kill() }

func (tree) liveCPU(*exec.Cmd) (time.Duration, bool) { return 0, false }
func (tree) exitCPU(*exec.Cmd) time.Duration         { return 0 }

func liveCPU() bool { return false }

const cpuReadable = false
