package playerpool

import (
	"fmt"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// A procGroup ends a player with the processes it started: on Windows, a
// Job object that kills them all when it is closed, by Kill or by the
// system when evotune dies, however it dies. A process the player starts
// before it is assigned to the job (the moment after it starts) escapes
// it.
type procGroup struct{ job windows.Handle }

// prepare starts the player in a console process group of its own, so that
// Ctrl-C at the console reaches evotune only: evotune ends its players
// itself, in order.
func (*procGroup) prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// started puts the player in a Job object that kills its processes when
// closed.
func (g *procGroup) started(cmd *exec.Cmd) error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return fmt.Errorf("job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("job object: %w", err)
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(cmd.Process.Pid))
	if err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("job object: %w", err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("job object: %w", err)
	}
	g.job = job
	return nil
}

// kill ends every process of the player's job.
func (g *procGroup) kill(cmd *exec.Cmd) {
	if g.job != 0 {
		windows.TerminateJobObject(g.job, 1)
	}
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}

// release closes the job, which kills what is left in it.
func (g *procGroup) release() {
	if g.job != 0 {
		windows.CloseHandle(g.job)
		g.job = 0
	}
}
