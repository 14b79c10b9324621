package playerpool

import (
	"slices"
	"sync"

	"github.com/evotune/evotune/tuner"
)

// A schedule hands a batch's games to the slots: per candidate, the games
// not yet started, in order; the games to be played alone; and how often
// each game failed.
//
// A failure is charged to a game only when it is the game's own: the
// failing request held its board alone, or the failure names its board (an
// illegal move). When a request of several boards fails otherwise (a
// crash, a hang, a malformed line), any of them may be the cause: none is
// charged, and each is played again from its seed alone in its requests,
// where a failure is its own. So MaxFailures counts the failures of one
// game's own boards, and which game reaches it does not depend on the
// number of slots, k or timing, only on the player.
type schedule struct {
	mu      sync.Mutex
	pending [][]int // by candidate: game indices to start, in order
	alone   [][]int // by candidate: games to start alone in their requests, first in line
	fails   map[tuner.Job]int
	total   int
	slots   int // the slots playing the batch
	// inflight counts the games the slots have started and not yet ended
	// or put back, for their share.
	inflight int
}

func newSchedule(b *tuner.Batch) *schedule {
	sc := &schedule{pending: make([][]int, len(b.Vectors)), alone: make([][]int, len(b.Vectors)), fails: map[tuner.Job]int{}}
	if b.Jobs == nil {
		for c := range sc.pending {
			for j := range b.Seeds {
				sc.pending[c] = append(sc.pending[c], j)
			}
		}
		sc.total = len(b.Vectors) * len(b.Seeds)
		return sc
	}
	for _, j := range b.Jobs {
		sc.pending[j.Candidate] = append(sc.pending[j.Candidate], j.Game)
	}
	sc.total = len(b.Jobs)
	return sc
}

// left is how many games of candidate c are still to start; sc.mu held.
func (sc *schedule) left(c int) int { return len(sc.pending[c]) + len(sc.alone[c]) }

// remaining is how many games are still to start.
func (sc *schedule) remaining() int {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	n := 0
	for c := range sc.pending {
		n += sc.left(c)
	}
	return n
}

// next returns the candidate whose games a slot starts next: cur while it
// has games to start with others, else the one with the most (the first
// of equals), so that slots share the last candidates' games; -1 when
// none has any.
func (sc *schedule) next(cur int) int {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if cur >= 0 && len(sc.pending[cur]) > 0 {
		return cur
	}
	best := -1
	for c := range sc.pending {
		if n := len(sc.pending[c]); n > 0 && (best < 0 || n > len(sc.pending[best])) {
			best = c
		}
	}
	return best
}

// share returns how many games a slot holds at most: k, or near the
// batch's end the slots' even share of the games not yet ended (in
// flight on any slot, or to start), so that the last games are spread
// over every slot rather than kept by the fullest.
func (sc *schedule) share(k int) int {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	left := sc.inflight
	for c := range sc.pending {
		left += sc.left(c)
	}
	return max(1, min(k, (left+sc.slots-1)/sc.slots))
}

// take returns the next game of candidate c to start with others.
func (sc *schedule) take(c int) (int, bool) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	q := &sc.pending[c]
	if len(*q) == 0 {
		return 0, false
	}
	g := (*q)[0]
	*q = (*q)[1:]
	return g, true
}

// takeAlone returns the first game to be played alone, of the first
// candidate with one.
func (sc *schedule) takeAlone() (c, game int, ok bool) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for c := range sc.alone {
		if len(sc.alone[c]) > 0 {
			game = sc.alone[c][0]
			sc.alone[c] = sc.alone[c][1:]
			return c, game, true
		}
	}
	return 0, 0, false
}

// failedJobs is failed for a request that held the boards of jobs of
// several candidates: the job culprit names (an index into jobs, or -1;
// or the only one) is charged and played alone from now on, the others
// start again as before; with no culprit every one is played alone, none
// charged. It returns the job charged and its count of failures, or a
// zero job and 0.
func (sc *schedule) failedJobs(jobs []tuner.Job, culprit int) (tuner.Job, int) {
	if culprit < 0 && len(jobs) == 1 {
		culprit = 0
	}
	if culprit < 0 {
		sc.requeueJobs(jobs, true)
		return tuner.Job{}, 0
	}
	j := jobs[culprit]
	sc.requeueJobs(slices.Delete(slices.Clone(jobs), culprit, culprit+1), false)
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.fails[j]++
	sc.alone[j.Candidate] = append([]int{j.Game}, sc.alone[j.Candidate]...)
	return j, sc.fails[j]
}

// requeueJobs puts jobs back first in line, each candidate's in the order
// given: to be played alone, or with others.
func (sc *schedule) requeueJobs(jobs []tuner.Job, alone bool) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	q := sc.pending
	if alone {
		q = sc.alone
	}
	for i := len(jobs) - 1; i >= 0; i-- {
		c := jobs[i].Candidate
		q[c] = append([]int{jobs[i].Game}, q[c]...)
	}
}

// started and ended count the games in flight.
func (sc *schedule) started() {
	sc.mu.Lock()
	sc.inflight++
	sc.mu.Unlock()
}

func (sc *schedule) ended(n int) {
	sc.mu.Lock()
	sc.inflight -= n
	sc.mu.Unlock()
}
