package tuner

import (
	"fmt"
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

// HourMore is the duration that gives a run which has spent spent an hour
// more: the budget counts the time already spent.
func HourMore(spent time.Duration) time.Duration { return RoundSpent(spent + time.Hour) }

// checkBudget refuses a duration override of no more than the time the run
// has spent (readHistory), where nothing else stops it (Resume has
// reopened a finished run the new limits let go on): the run would stop
// at once.
func (r *Run) checkBudget(o ResumeOverrides) error {
	d := o.Duration
	if d == nil || *d <= 0 || *d > r.elapsed0 || r.t.state.Finished != "" {
		return nil
	}
	return &SpentError{Duration: *d, Spent: r.elapsed0, Generation: r.t.state.Generation, Finished: r.t.reopened}
}
