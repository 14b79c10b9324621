package proctree

import (
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// A tree, on Windows, is a Job object that kills its processes when it is
// closed, by Kill or by the system when evotune dies, and that adds up
// their CPU, exited ones' included.
type tree struct {
	mu  sync.Mutex // the job is read by CPU while Release may close it
	job windows.Handle
}

// prepare starts the process in a console process group of its own, so
// that Ctrl-C at the console reaches evotune only.
func (*tree) prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// started puts the process in a Job object that kills its processes when
// closed.
func (t *tree) started(cmd *exec.Cmd) error {
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
	t.mu.Lock()
	t.job = job
	t.mu.Unlock()
	return nil
}

// kill ends every process of the job, and the process itself in case it
// is not in it.
func (t *tree) kill(cmd *exec.Cmd) {
	t.mu.Lock()
	if t.job != 0 {
		windows.TerminateJobObject(t.job, 1)
	}
	t.mu.Unlock()
	cmd.Process.Kill()
}

// release closes the job, which kills what is left in it.
func (t *tree) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.job != 0 {
		windows.CloseHandle(t.job)
		t.job = 0
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

// liveCPU reads the job's CPU: every process's that was ever in it.
func (t *tree) liveCPU(*exec.Cmd) (time.Duration, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.job == 0 {
		return 0, false
	}
	var info jobAccounting
	if err := windows.QueryInformationJobObject(t.job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil); err != nil {
		return 0, false
	}
	return time.Duration(info.TotalUserTime+info.TotalKernelTime) * 100, true
}

// exitCPU is the job's CPU once the process has exited, read before the
// job is released; the process's own times where the job could not be
// read.
func (t *tree) exitCPU(cmd *exec.Cmd) time.Duration {
	if d, ok := t.liveCPU(cmd); ok {
		return d
	}
	if cmd.ProcessState == nil {
		return 0
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

func liveCPU() bool { return true }

const cpuReadable = true
