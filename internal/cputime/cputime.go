package cputime

import "time"

// Process returns the CPU time the process has used since it started, user
// and system, over all its threads. The error wraps errors.ErrUnsupported
// on a system without a CPU clock (see the package doc); it is otherwise
// the system call's, which in practice does not fail.
func Process() (time.Duration, error) { return process() }

// filetimeDuration converts a Windows FILETIME that holds a duration, not a
// date (GetProcessTimes' kernel and user times), from its two halves in
// 100 ns units. It lives here, not behind the windows tag, so its test runs
// everywhere.
func filetimeDuration(high, low uint32) time.Duration {
	return time.Duration(int64(high)<<32|int64(low)) * 100
}
