package tunebench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// PeerLimits are the limits a peer runs under (see docs/tunebench.md,
// "Peers"). A zero field takes its default.
type PeerLimits struct {
	// Idle is the wall time a peer may take to send a whole line when
	// one is awaited, or to take in one of evotune's lines (default
	// DefaultPeerIdle).
	Idle time.Duration
	// Grace and GraceLines are what a peer has, once it was told to stop,
	// to send its final recommendation, and once it sent it, to exit: the
	// wall time and the lines (defaults 10 s and 4). Then its input is
	// closed and its process group killed.
	Grace      time.Duration
	GraceLines int
	// CPUMargin is how far past the run's CPU budget the peer's own CPU
	// may go before the CPU watchdog kills it (default a tenth of the
	// budget, at least 10 s).
	CPUMargin time.Duration
	// Poll is how often the watchdog reads the peer's CPU (default 1 s).
	Poll time.Duration
}

// DefaultPeerIdle is a peer's default idle limit: long enough for an
// interpreter's start on a loaded machine.
const DefaultPeerIdle = 2 * time.Minute

const (
	// maxQuiet is the most answers in a row a peer may draw without
	// playing a game: error lines, recommendations not asked for.
	maxQuiet = 1000
	// maxQuietBytes is the most a peer may send between two answers
	// with games (a request names at most 100,000 seeds: 2 MB).
	maxQuietBytes = 32 << 20
	// maxStderr is the most of a peer's standard error passed on per
	// run; stderrTail the end of it quoted in errors.
	maxStderr  = 1 << 20
	stderrTail = 512
)

// resolved returns the limits with their defaults, for a run of budget.
func (l PeerLimits) resolved(budget time.Duration) PeerLimits {
	if l.Idle <= 0 {
		l.Idle = DefaultPeerIdle
	}
	if l.Grace <= 0 {
		l.Grace = 10 * time.Second
	}
	if l.GraceLines <= 0 {
		l.GraceLines = 4
	}
	if l.CPUMargin <= 0 {
		l.CPUMargin = max(10*time.Second, budget/10)
	}
	if l.Poll <= 0 {
		l.Poll = time.Second
	}
	return l
}

// Why a peer was ended before its time. They come wrapped, with the
// limit's figures, in the error of RunPeer.
var (
	// ErrPeerIdle: no whole line within the idle limit, or evotune's line
	// not taken in.
	ErrPeerIdle = errors.New("peer idle limit")
	// ErrPeerCPU: the peer's own CPU passed the budget and its margin.
	ErrPeerCPU = errors.New("peer CPU limit")
	// ErrPeerFlood: too many lines, or bytes, without a request for games.
	ErrPeerFlood = errors.New("peer flood limit")
	// ErrPeerNoFinal: no final recommendation within the grace after stop.
	ErrPeerNoFinal = errors.New("no final recommendation")
)

// A peerProc is a running peer: its process group, its pipes and the
// watchdogs that end it. Its Read and Write are the exchange's (the
// server's goroutine's); end may be called from any goroutine.
type peerProc struct {
	cmd   *exec.Cmd
	group procGroup
	lim   PeerLimits
	cpu   time.Duration // the peer's own CPU at which the watchdog ends it
	in    *os.File      // our ends of the pipes
	out   *os.File
	log   *stderrLog

	exited chan struct{} // closed once the peer has exited and is reaped
	quit   chan struct{} // closed by finish: the watchdogs stop
	live   atomic.Int64  // the most CPU read live, in ns

	mu     sync.Mutex
	reason error // why we ended it; nil while it runs or if it ended itself
	ended  bool
	// self is set once the peer has exited before anything ended it: its
	// exit status is then its own, not our kill's.
	self    bool
	grace   *time.Timer
	reading *time.Timer // armed while a line is awaited

	// The exchange's counts, kept by the server's goroutine.
	quiet      int   // answers since the last with games
	quietBytes int64 // bytes read since then
	afterStop  int   // answers since the stop or the final line; -1 before
}

// startPeer starts the peer words in its own process group, with its
// standard error passed on to stderr up to a cap, and the watchdogs on:
// ctx's end and the CPU limit (budget plus the margin).
func startPeer(ctx context.Context, words []string, stderr io.Writer, lim PeerLimits, budget time.Duration) (*peerProc, error) {
	if err := cpuReadable(); err != nil {
		return nil, err
	}
	p := &peerProc{
		cmd: exec.Command(words[0], words[1:]...), lim: lim, cpu: budget + lim.CPUMargin,
		exited: make(chan struct{}), quit: make(chan struct{}), afterStop: -1, quiet: -1,
	}
	p.group.prepare(p.cmd)
	// Pipes of our own, not the Cmd's: Wait then reaps the peer as soon as
	// it exits without closing what the exchange still reads.
	var ends [6]*os.File
	for i := 0; i < 6; i += 2 {
		r, w, err := os.Pipe()
		if err != nil {
			for _, f := range ends[:i] {
				f.Close()
			}
			return nil, err
		}
		ends[i], ends[i+1] = r, w
	}
	p.cmd.Stdin, p.in = ends[0], ends[1]
	p.out, p.cmd.Stdout = ends[2], ends[3]
	errR, errW := ends[4], ends[5]
	p.cmd.Stderr = errW
	err := p.cmd.Start()
	ends[0].Close()
	ends[3].Close()
	errW.Close()
	if err != nil {
		p.in.Close()
		p.out.Close()
		errR.Close()
		return nil, err
	}
	if err := p.group.started(p.cmd); err != nil {
		p.group.kill(p.cmd)
		p.cmd.Wait()
		p.in.Close()
		p.out.Close()
		errR.Close()
		return nil, err
	}
	p.log = newStderrLog(errR, stderr)
	go func() {
		p.cmd.Wait()
		p.mu.Lock()
		p.self = !p.ended
		p.mu.Unlock()
		close(p.exited)
	}()
	go p.watch(ctx)
	return p, nil
}

// watch ends the peer when ctx ends (Ctrl-C reaches the whole group at
// once) or its CPU passes the limit.
func (p *peerProc) watch(ctx context.Context) {
	tick := time.NewTicker(p.lim.Poll)
	defer tick.Stop()
	for {
		select {
		case <-p.quit:
			return
		case <-ctx.Done():
			p.end(ctx.Err())
			return
		case <-tick.C:
			if c, ok := p.cpuNow(); ok && c > p.cpu {
				p.end(fmt.Errorf("%w: its own CPU reached %.1f s, past the budget and the margin (%.1f s)", ErrPeerCPU, c.Seconds(), p.cpu.Seconds()))
			}
		}
	}
}

// cpuNow reads the peer's CPU live, and returns the most read so far
// (which a child reaped outside the group would lower); false where it
// cannot be read live.
func (p *peerProc) cpuNow() (time.Duration, bool) {
	c, ok := p.group.live(p.cmd)
	if !ok {
		return time.Duration(p.live.Load()), false
	}
	for {
		old := p.live.Load()
		if int64(c) <= old {
			return time.Duration(old), true
		}
		if p.live.CompareAndSwap(old, int64(c)) {
			return c, true
		}
	}
}

// end kills the peer's group at once and closes our pipes, for reason (the
// first reason given wins; nil only records that it ended).
func (p *peerProc) end(reason error) {
	p.mu.Lock()
	if p.reason == nil {
		p.reason = reason
	}
	already := p.ended
	p.ended = true
	p.mu.Unlock()
	if already {
		return
	}
	p.group.kill(p.cmd)
	p.in.Close()
	p.out.Close()
}

// failure is why the peer was ended, nil if it was not.
func (p *peerProc) failure() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reason
}

// Read reads the peer's output, with a deadline for each whole line from
// the moment one is awaited, and a cap on what it may send between two
// answers with games.
func (p *peerProc) Read(b []byte) (int, error) {
	if p.reading == nil {
		p.reading = time.AfterFunc(p.lim.Idle, func() {
			p.end(fmt.Errorf("%w: no line for %v", ErrPeerIdle, p.lim.Idle))
		})
	}
	n, err := p.out.Read(b)
	if bytes.IndexByte(b[:n], '\n') >= 0 {
		p.reading.Stop()
		p.reading = nil
	}
	if p.quietBytes += int64(n); p.quietBytes > maxQuietBytes {
		p.end(fmt.Errorf("%w: more than %d MB without a request for games", ErrPeerFlood, maxQuietBytes>>20))
	}
	if r := p.failure(); r != nil {
		return 0, r
	}
	return n, err
}

// Write writes to the peer's input, with the same deadline, and counts
// the answers (one a line) against the flood and grace limits.
func (p *peerProc) Write(b []byte) (int, error) {
	t := time.AfterFunc(p.lim.Idle, func() {
		p.end(fmt.Errorf("%w: it took in nothing for %v (it does not read its input)", ErrPeerIdle, p.lim.Idle))
	})
	n, err := p.in.Write(b)
	t.Stop()
	lines := bytes.Count(b[:n], []byte{'\n'})
	p.quiet += lines
	if p.quiet > maxQuiet {
		p.end(fmt.Errorf("%w: %d answers in a row without a game (error lines, or recommendations not asked for)", ErrPeerFlood, maxQuiet))
	}
	if p.afterStop >= 0 {
		if p.afterStop += lines; p.afterStop > 1+p.lim.GraceLines {
			p.end(fmt.Errorf("%w: %d lines after stop", ErrPeerNoFinal, p.lim.GraceLines))
		}
	}
	if r := p.failure(); r != nil {
		return n, r
	}
	return n, err
}

// played notes an answer with games, which the server sends next.
func (p *peerProc) played() { p.quiet, p.quietBytes = -1, 0 }

// stopping starts the grace after a stop or a final line: within it the
// peer sends its final line, or exits.
func (p *peerProc) stopping() {
	if p.afterStop < 0 {
		p.afterStop = 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.grace != nil {
		p.grace.Stop()
	}
	p.grace = time.AfterFunc(p.lim.Grace, func() {
		p.end(fmt.Errorf("%w: nothing more within %v", ErrPeerNoFinal, p.lim.Grace))
	})
}

// finish ends the exchange: the peer's input is closed, it has the grace
// to exit, then its group is killed whatever is left of it. It returns
// the peer's exit CPU (its own and its children's), its exit error, and
// why it was ended, if it was.
func (p *peerProc) finish() (time.Duration, error, error) {
	// The exchange is over: a grace still running would only call a peer
	// that ended in time late.
	p.mu.Lock()
	if p.grace != nil {
		p.grace.Stop()
	}
	p.mu.Unlock()
	p.in.Close()
	select {
	case <-p.exited:
	case <-time.After(p.lim.Grace):
	}
	p.end(nil)
	<-p.exited
	close(p.quit)
	p.mu.Lock()
	if p.grace != nil {
		p.grace.Stop()
	}
	p.mu.Unlock()
	if p.reading != nil {
		p.reading.Stop()
	}
	live, _ := p.cpuNow()
	exit := max(p.group.exitCPU(p.cmd), live)
	p.group.release()
	p.log.close()
	var werr error
	if st := p.cmd.ProcessState; st != nil && !st.Success() && p.self {
		werr = errors.New(st.String())
	}
	return exit, werr, p.failure()
}

// describe quotes the end of the peer's standard error for an error
// message, or says there was none.
func (p *peerProc) describe() string {
	tail := strings.TrimSpace(p.log.tail())
	if tail == "" {
		return "(its stderr was empty)"
	}
	return fmt.Sprintf("(its stderr ends: %q)", tail)
}

// A stderrLog passes a peer's standard error on, up to maxStderr bytes,
// and keeps its end for error messages. It drains the pipe to its end, so
// that a peer never blocks on it.
type stderrLog struct {
	mu      sync.Mutex
	last    []byte
	dropped int64
	done    chan struct{}
	r       *os.File
}

func newStderrLog(r *os.File, w io.Writer) *stderrLog {
	l := &stderrLog{done: make(chan struct{}), r: r}
	go func() {
		defer close(l.done)
		buf := make([]byte, 32<<10)
		var passed int64
		for {
			n, err := r.Read(buf)
			if n > 0 {
				k := min(int64(n), max(0, maxStderr-passed))
				w.Write(buf[:k])
				if passed += k; k < int64(n) && l.dropped == 0 {
					fmt.Fprintf(w, "\n[tunebench: the peer's standard error past %d MB is dropped]\n", maxStderr>>20)
				}
				l.mu.Lock()
				l.dropped += int64(n) - k
				l.last = append(l.last, buf[:n]...)
				if len(l.last) > stderrTail {
					l.last = append(l.last[:0], l.last[len(l.last)-stderrTail:]...)
				}
				l.mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	return l
}

// tail is the end of what the peer wrote to its standard error.
func (l *stderrLog) tail() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.last)
}

// close waits a moment for the rest of the pipe (a process that escaped
// the group may hold it open), then closes it.
func (l *stderrLog) close() {
	select {
	case <-l.done:
	case <-time.After(time.Second):
	}
	l.r.Close()
}
