package tuner

import (
	"bytes"
	"fmt"
	"path/filepath"
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

// A SpentError is Resume's refusal of a duration the run has already spent:
// the budget counts the time of every process that ran the run, so the run
// would stop at once instead of running that much longer.
type SpentError struct {
	Duration, Spent time.Duration
	// Generation is the completed generations: a limit of as many ends
	// the run now, unless Finished (the duration ended it).
	Generation int
	Finished   bool
}

func (e *SpentError) Error() string {
	return fmt.Sprintf("tuner: a duration of %v is not more than the %v the run has already spent (the budget counts that time)", e.Duration, RoundSpent(e.Spent))
}

// RoundSpent rounds a time spent for people: to the second, below a
// minute to the millisecond.
func RoundSpent(d time.Duration) time.Duration {
	if d < time.Minute {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Second)
}

// checkBudget refuses a duration override of no more than the time the run
// has spent, where nothing else stops it (Resume has reopened a finished
// run the new limits let go on): the run would stop at once. The history's
// first lines lines, which the checkpoint covers, give the time; nothing is
// written.
func (r *Run) checkBudget(o ResumeOverrides, lines int) error {
	d := o.Duration
	if d == nil || *d <= 0 || r.t.state.Finished != "" {
		return nil
	}
	data, err := r.fsys.ReadFile(filepath.Join(r.dir, HistoryFile))
	if err != nil {
		return nil // openHistory reports it
	}
	end, _ := covered(data, lines)
	spent, _, _ := lastClocks(bytes.NewReader(data[:end]), 0)
	if *d > spent {
		return nil
	}
	return &SpentError{Duration: *d, Spent: spent, Generation: r.t.state.Generation, Finished: r.t.reopened}
}
