package tuner

import (
	"time"

	"github.com/evotune/evotune/internal/cputime"
)

// A run's clocks: the wall-clock and CPU time it has used, earlier
// processes included, which its history records (elapsed_s, cpu_s) and a
// resumed run reads back from the history's last line.

// Elapsed returns the run's wall-clock time, earlier processes included.
func (r *Run) Elapsed() time.Duration { return r.elapsed0 + time.Since(r.start) }

// CPU returns the run's CPU time, earlier processes included, and false
// where the system has no CPU clock.
func (r *Run) CPU() (time.Duration, bool) {
	if !r.cpuOK {
		return 0, false
	}
	now, err := cputime.Process()
	if err != nil {
		return 0, false
	}
	return r.cpu0 + now - r.cpuStart, true
}

// startClocks notes the time and CPU time at which this process took the
// run over.
func (r *Run) startClocks() {
	r.start = time.Now()
	c, err := cputime.Process()
	r.cpuStart, r.cpuOK = c, err == nil
}
