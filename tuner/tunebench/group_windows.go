package tunebench

import (
	"fmt"
	"os/exec"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// A procGroup holds a peer with the processes it starts: on Windows, a Job
// object that kills them all when it is closed, by kill or by the system
// when evotune dies, and that adds up their CPU, exited ones' included. A
// process the peer starts before it is assigned to the job (the moment
// after it starts) escapes it.
type procGroup struct{ job windows.Handle }

// prepare starts the peer in a console process group of its own, so that
// Ctrl-C at the console reaches evotune only: evotune ends the job itself.
func (*procGroup) prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// started puts the peer in a Job object that kills its processes when
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

// kill ends every process of the peer's job.
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

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION; times are in
// 100 ns units.
type jobAccounting struct {
	TotalUserTime, TotalKernelTime                     int64
	ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime int64
	TotalPageFaultCount                                uint32
	TotalProcesses, ActiveProcesses                    uint32
	TotalTerminatedProcesses                           uint32
}

// live reads the job's CPU: every process's that was ever in it.
func (g *procGroup) live(*exec.Cmd) (time.Duration, bool) {
	if g.job == 0 {
		return 0, false
	}
	var info jobAccounting
	if err := windows.QueryInformationJobObject(g.job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil); err != nil {
		return 0, false
	}
	return time.Duration(info.TotalUserTime+info.TotalKernelTime) * 100, true
}

// exitCPU is the job's CPU once the peer has exited, read before the job
// is released; the process's own times where the job could not be made.
func (g *procGroup) exitCPU(cmd *exec.Cmd) time.Duration {
	if d, ok := g.live(cmd); ok {
		return d
	}
	if cmd.ProcessState == nil {
		return 0
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

func cpuReadable() error { return nil }
