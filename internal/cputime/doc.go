// Package cputime implements one portable reading of the CPU time the
// process has used, user and system together.
//
// The benchmarks report CPU time beside wall time because on a loaded
// machine it varies far less, and evotune play reports CPU per move because
// nneonneo/2048-ai measures its own that way. Both want the process's total
// over all threads, so Process sums user and system time of the whole
// process; callers take differences of two readings.
//
// Process is in cputime.go; the system call is in one file per system,
// chosen by build tags:
//
//	cputime_unix.go     getrusage(RUSAGE_SELF), every Unix
//	cputime_windows.go  GetProcessTimes on the current process
//	cputime_other.go    everywhere else (plan9, js, wasip1): no reading;
//	                    Process fails with errors.ErrUnsupported
//
// The fallback fails rather than return wall time: a figure labelled CPU
// that is not CPU time would mislead exactly where it is compared.
package cputime
