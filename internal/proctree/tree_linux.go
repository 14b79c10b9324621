package proctree

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// setDeathSignal has the kernel kill the process when evotune dies (see
// the package doc for its two limits).
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// groupCPU sums, over every process of process group pgid, its CPU time
// and that of the children it has waited for, from /proc. A child that
// has exited but is not yet reaped is still a process of the group, with
// its times: nothing of the group's is missed until a process outside it
// reaps one (an orphan's, by init). The clock ticks are 100 a second on
// every Linux that matters (USER_HZ).
func groupCPU(pgid int) (time.Duration, bool) {
	dir, err := os.Open("/proc")
	if err != nil {
		return 0, false
	}
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return 0, false
	}
	want := strconv.Itoa(pgid)
	var ticks int64
	found := false
	for _, name := range names {
		if name == "" || name[0] < '0' || name[0] > '9' {
			continue
		}
		data, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue // gone since the listing
		}
		s := string(data)
		// The command name, in parentheses, may hold spaces; the fields
		// counted from 3 (state) follow its closing one: 5 is the process
		// group, 14 to 17 utime, stime, cutime and cstime.
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 15 || f[2] != want {
			continue
		}
		for _, k := range []int{11, 12, 13, 14} {
			n, err := strconv.ParseInt(f[k], 10, 64)
			if err == nil {
				ticks += n
			}
		}
		found = true
	}
	return time.Duration(ticks) * (time.Second / 100), found
}

// liveCPU: /proc may be missing (a container without it).
func liveCPU() bool {
	_, ok := groupCPU(syscall.Getpgrp())
	return ok
}
