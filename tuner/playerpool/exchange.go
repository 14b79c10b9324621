package playerpool

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"time"
)

// watch makes ctx's end kill the process at once, so that a pending
// exchange fails then rather than at its limit; the exchange returns an
// error wrapping ctx's, not an *Error: the player did nothing wrong.
func (p *Process) watch(ctx context.Context) (stop func() bool) {
	return context.AfterFunc(ctx, func() {
		p.mu.Lock()
		p.stopErr = ctx.Err()
		p.mu.Unlock()
		p.Kill()
	})
}

// stopped returns the error of an exchange cut short by a watched context,
// or nil.
func (p *Process) stopped() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopErr != nil {
		return fmt.Errorf("playerpool: %s stopped: %w", p.what(), p.stopErr)
	}
	return nil
}

// arm starts an exchange of limit; disarm ends it.
func (p *Process) arm(doing string, limit time.Duration) {
	p.doing, p.limit = doing, limit
	p.timer.Reset(limit)
}

func (p *Process) disarm() { p.timer.Stop() }

// what names the exchange under way, for messages; a move request by its
// first board, which is what one needs to reproduce a crash.
func (p *Process) what() string {
	if p.doing != "" {
		return p.doing
	}
	if len(p.req) == 0 {
		return "move"
	}
	s := "move for " + p.req[0].Hex()
	switch n := len(p.req) - 1; n {
	case 0:
	case 1:
		s += " (and 1 more board)"
	default:
		s += fmt.Sprintf(" (and %d more boards)", n)
	}
	return s
}

// send writes a request; a process that is gone shows as a failed write,
// and one that does not read is killed by the exchange's timer, which
// ends the write.
func (p *Process) send(b []byte) error {
	if _, err := p.w.Write(b); err == nil {
		err = p.w.Flush()
		if err == nil {
			return nil
		}
	}
	if err := p.stopped(); err != nil {
		return err
	}
	return p.gone()
}

// reply reads the next line that is not a comment, without its end of
// line ("\n" or "\r\n"), within the exchange's limit; comments go to the
// log. The line is valid until the next read.
func (p *Process) reply() ([]byte, error) {
	for {
		line, err := readLine(p.r)
		if err != nil {
			if err := p.stopped(); err != nil {
				return nil, err
			}
			if errors.Is(err, ErrProtocol) {
				return nil, p.fail(fmt.Sprintf("sent a line longer than %d bytes while answering %s", MaxLine, p.what()), ErrProtocol)
			}
			return nil, p.gone()
		}
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if p.doing == "the handshake" {
			p.heard++
		}
		if isComment(line) {
			p.plog.WriteLine(line)
			continue
		}
		return line, nil
	}
}

// lateDid says what a player killed by the exchange's timer did, with the
// likeliest cause when it sent nothing at all.
func (p *Process) lateDid() string {
	switch {
	case p.doing == "the handshake" && p.heard == 0:
		return fmt.Sprintf("did not answer the handshake within %v: it sent nothing (does it flush its standard output after each line?)", p.limit)
	case p.doing == "the handshake":
		return fmt.Sprintf("did not finish its handshake within %v (%d lines received, no ready)", p.limit, p.heard)
	case p.doing != "" || len(p.req) == 1:
		return fmt.Sprintf("did not answer %s within %v", p.what(), p.limit)
	}
	k := len(p.req)
	if per := (p.limit - p.opts.move()) / time.Duration(k-1); per < p.opts.move() {
		return fmt.Sprintf("did not answer %s within %v (%v for one board, %v for each of the %d others: %d times its slowest time per board so far)",
			p.what(), p.limit.Round(time.Millisecond), p.opts.move(), per.Round(time.Microsecond), k-1, paceFactor)
	}
	return fmt.Sprintf("did not answer %s within %v (%v a board)", p.what(), p.limit, p.opts.move())
}

// gone describes a process whose output or input closed: how it exited,
// if it did within a moment.
func (p *Process) gone() error {
	if p.late.Load() {
		return p.fail(p.lateDid(), ErrTimeout)
	}
	select {
	case <-p.tree.Exited():
	case <-time.After(time.Second):
		return p.fail("closed its standard output while answering "+p.what(), ErrExited)
	}
	if p.late.Load() {
		return p.fail(p.lateDid(), ErrTimeout)
	}
	// Its last words may still be in the pipe to the log.
	p.tree.Drained(time.Second)
	how := "exited"
	var ee *exec.ExitError
	if err := p.tree.Err(); errors.As(err, &ee) {
		how = "exited (" + ee.ProcessState.String() + ")" // "exit status 2", "signal: killed"
	} else if err == nil {
		how = "exited (exit status 0)"
	}
	return p.fail(how+" while answering "+p.what(), ErrExited)
}

// request sends b and reads the reply, one exchange named doing within
// limit: for the compliance check's requests that are not Set's or
// Moves'.
func (p *Process) request(b []byte, doing string, limit time.Duration) ([]byte, error) {
	p.arm(doing, limit)
	defer p.disarm()
	if err := p.send(b); err != nil {
		return nil, err
	}
	return p.reply()
}
