package tunebench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/evotune/evotune/internal/proctree"
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
	// run.
	maxStderr = 1 << 20
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

// A peerProc is a running peer: its process tree (internal/proctree),
// its limits and the watchdogs that end it. Its Read and Write are the
// exchange's (the server's goroutine's); end may be called from any
// goroutine.
type peerProc struct {
	proc *proctree.Proc
	lim  PeerLimits
	cpu  time.Duration // the peer's own CPU at which the watchdog ends it
	in   io.Writer     // the tree's pipes
	out  io.Reader
	log  *proctree.Log

	quit chan struct{} // closed by finish: the watchdogs stop

	mu      sync.Mutex
	reason  error // why we ended it; nil while it runs or if it ended itself
	ended   bool
	grace   *time.Timer
	reading *time.Timer // armed while a line is awaited

	// The exchange's counts, kept by the server's goroutine.
	quiet      int   // answers since the last with games
	quietBytes int64 // bytes read since then
	afterStop  int   // answers since the stop or the final line; -1 before
}

// startPeer starts the peer words in a process tree of its own, with its
// standard error passed on to stderr up to a cap, and the watchdogs on:
// ctx's end and the CPU limit (budget plus the margin).
func startPeer(ctx context.Context, words []string, stderr io.Writer, lim PeerLimits, budget time.Duration) (*peerProc, error) {
	if err := cpuReadable(); err != nil {
		return nil, err
	}
	p := &peerProc{
		lim: lim, cpu: budget + lim.CPUMargin, quit: make(chan struct{}), afterStop: -1, quiet: -1,
		log: proctree.NewLog(stderr, maxStderr, fmt.Sprintf("\n[tunebench: the peer's standard error past %d MB is dropped]\n", maxStderr>>20)),
	}
	proc, err := proctree.Start(words, proctree.Config{Log: p.log})
	if err != nil {
		return nil, err
	}
	p.proc, p.in, p.out = proc, proc.Stdin(), proc.Stdout()
	go p.watch(ctx)
	return p, nil
}

// cpuReadable refuses peers where neither a live process's CPU nor an
// exited one's can be read: a peer's own CPU is part of its cost.
func cpuReadable() error {
	if proctree.CPUReadable() {
		return nil
	}
	return fmt.Errorf("a peer's CPU time cannot be read on %s, live or at its exit: peers run on Unix and Windows", runtime.GOOS)
}

// watch ends the peer when ctx ends (Ctrl-C reaches the whole tree at
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

// cpuNow reads the peer's CPU live: the most read so far, false where
// it cannot be read live. A peerProc without a process (admit's tests)
// has used none.
func (p *peerProc) cpuNow() (time.Duration, bool) {
	if p.proc == nil {
		return 0, false
	}
	return p.proc.CPU()
}

// end kills the peer's tree at once, which closes our pipes, for reason
// (the first reason given wins; nil only records that it ended).
func (p *peerProc) end(reason error) {
	p.mu.Lock()
	if p.reason == nil {
		p.reason = reason
	}
	already := p.ended
	p.ended = true
	p.mu.Unlock()
	if !already && p.proc != nil {
		p.proc.Kill()
	}
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
// to exit, then its tree is killed whatever is left of it. It returns
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
	p.proc.CloseStdin()
	select {
	case <-p.proc.Exited():
	case <-time.After(p.lim.Grace):
	}
	p.end(nil)
	<-p.proc.Exited()
	close(p.quit)
	p.mu.Lock()
	if p.grace != nil {
		p.grace.Stop()
	}
	p.mu.Unlock()
	if p.reading != nil {
		p.reading.Stop()
	}
	exit := p.proc.ExitCPU()
	p.proc.Drained(time.Second) // its last words, for describe
	p.proc.Release()
	var werr error
	if st := p.proc.State(); !st.Success() && p.proc.SelfExited() {
		werr = errors.New(st.String())
	}
	return exit, werr, p.failure()
}

// describe quotes the end of the peer's standard error for an error
// message, or says there was none.
func (p *peerProc) describe() string {
	tail := p.log.Tail()
	if tail == "" {
		return "(its stderr was empty)"
	}
	return fmt.Sprintf("(its stderr ends: %q)", tail)
}
