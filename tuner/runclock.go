package tuner

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/evotune/evotune/checkpoints"
	"github.com/evotune/evotune/internal/cputime"
)

// A run's clocks: the wall-clock and CPU time it has used, earlier
// processes included, which its history records (elapsed_s, cpu_s) at the
// end of each generation. Between two, a running Run journals them every
// clockEvery (checkpoints.Clock), so that a process stopped before its
// generation ended, by Ctrl-C, kill -9 or a power cut, leaves its time
// behind: a resumed run takes the later of the history's last line and
// the journal's latest clock. So duration, elapsed_s and cpu_s count every
// process, the one stopped in the middle of a generation too, to within
// clockEvery per kill (and the little a process spends before it takes
// the run over). The clock lines change no other byte the run writes.

// clockEvery is how often a running Run journals its clock: the most
// wall-clock time a kill -9 takes from the run's count. A line costs one
// write of about 60 bytes; the journal's own flush syncs it.
const clockEvery = 500 * time.Millisecond

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

// journalClock journals the run's clock now.
func (r *Run) journalClock() {
	cpu, _ := r.CPU()
	r.cache.clock(r.Elapsed(), cpu)
}

// tickClock journals the run's clock every clockEvery until Close, which
// journals it a last time.
func (r *Run) tickClock() {
	if r.clockStop != nil {
		return
	}
	r.clockStop, r.clockDone = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(r.clockDone)
		t := time.NewTicker(clockEvery)
		defer t.Stop()
		for {
			select {
			case <-r.clockStop:
				return
			case <-t.C:
				r.journalClock()
			}
		}
	}()
}

// stopClock ends tickClock's lines with the clock now; nothing if the run
// never ran (a resume that found nothing to do leaves the clock as it was).
func (r *Run) stopClock() {
	if r.clockStop == nil {
		return
	}
	close(r.clockStop)
	<-r.clockDone
	r.clockStop = nil
	r.journalClock()
}

// recoverClock takes the later of the clock the history recovered
// (readHistory) and the journal's latest, of the generation the checkpoint
// resumes (gen) or a later one: the time of a process that stopped before
// its generation's checkpoint.
func (r *Run) recoverClock(clocks []checkpoints.Clock, gen int) {
	for _, c := range clocks {
		if c.Generation >= gen {
			r.elapsed0, r.cpu0 = max(r.elapsed0, c.Elapsed), max(r.cpu0, c.CPU)
		}
	}
}

// JournalClock returns the latest clock the journal of the run in dir
// holds for generation gen (the newest checkpoint's) or a later one, and
// false if it holds none: the time the run spent past its history's last
// line, which a report of a stopped run counts. It takes no lock.
func JournalClock(dir string, gen int) (elapsed, cpu time.Duration, ok bool) {
	c, err := checkpoints.ReadJournalContents(filepath.Join(dir, checkpoints.JournalName))
	if err != nil {
		return 0, 0, false
	}
	var r Run
	r.recoverClock(c.Clocks, gen)
	return r.elapsed0, r.cpu0, r.elapsed0 > 0
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
