package playerpool

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/evotune/evotune/engine"
)

// The defaults of Options' limits, as DESIGN.md gives them.
const (
	DefaultHandshakeTimeout = 10 * time.Second
	DefaultMoveTimeout      = 10 * time.Second
	DefaultQuitTimeout      = 5 * time.Second
)

// Sentinels wrapped by an *Error, saying what kind of failure it was.
var (
	// ErrStart: the command could not be started (not found, not
	// executable).
	ErrStart = errors.New("playerpool: cannot start the player")
	// ErrTimeout: no answer within the limit.
	ErrTimeout = errors.New("playerpool: no answer in time")
	// ErrExited: the process ended (or closed its output) while a reply
	// was expected.
	ErrExited = errors.New("playerpool: the player exited")
	// ErrRefused: the player answered "error TEXT".
	ErrRefused = errors.New("playerpool: the player answered error")
	// ErrMismatch: the player declared other parameters, or another id or
	// version, than the family it is run for.
	ErrMismatch = errors.New("playerpool: the player's declaration changed")
)

// An Error is a player's failure, one line: the player's command, what it
// did, and the last lines of its log.
type Error struct {
	Command []string
	Did     string // what the player did, as a phrase: "exited with status 2 while answering move"
	Log     string // the log file's path; "" for a temporary one
	Tail    string // its last lines, joined by " | "; "" if it is empty
	Err     error  // a sentinel above, ErrProtocol, or engine.ErrIllegalMove
}

func (e *Error) Error() string {
	s := "player " + strconv.Quote(CommandString(e.Command)) + ": " + e.Did
	switch {
	case e.Tail != "" && e.Log != "":
		s += "; log " + e.Log + " ends: " + e.Tail
	case e.Tail != "":
		s += "; its standard error ends: " + e.Tail
	case e.Log != "":
		s += "; log " + e.Log + " is empty"
	default:
		s += "; its standard error is empty"
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// retryable reports whether restarting the player and playing the games
// in flight again may help: a crash, a hang or a bad line may be a
// passing fault; a refusal is the player's considered answer, and a player
// that cannot start or declares other parameters will not do better.
func (e *Error) retryable() bool {
	return !errors.Is(e.Err, ErrStart) && !errors.Is(e.Err, ErrRefused) && !errors.Is(e.Err, ErrMismatch)
}

// Options configure player processes and the pool; every zero value is the
// documented default.
type Options struct {
	// HandshakeTimeout bounds the handshake and each set; 0 means
	// DefaultHandshakeTimeout.
	HandshakeTimeout time.Duration
	// MoveTimeout bounds the answer to a move request, per board; 0 means
	// DefaultMoveTimeout.
	MoveTimeout time.Duration
	// QuitTimeout is how long a player has to exit after quit before it is
	// killed; 0 means DefaultQuitTimeout.
	QuitTimeout time.Duration
	// Batch is k, the games a slot plays at once in lockstep (boards per
	// move request); 0 means DefaultBatch.
	Batch int
	// LogDir holds the pool's logs, slot-N.log for slot N: each player's
	// standard error and comments, appended across restarts and runs. ""
	// means temporary files, removed by Close.
	LogDir string
	// Dir is the players' working directory; "" means this process's.
	Dir string
	// FirstSlot is the number of the pool's first slot, so of its log
	// slot-N.log; 0 means 1. Pools that share LogDir (a NATS worker runs
	// one pool of one slot for each job it plays at once) number their
	// slots apart.
	FirstSlot int
}

func (o Options) handshake() time.Duration {
	if o.HandshakeTimeout > 0 {
		return o.HandshakeTimeout
	}
	return DefaultHandshakeTimeout
}

func (o Options) move() time.Duration {
	if o.MoveTimeout > 0 {
		return o.MoveTimeout
	}
	return DefaultMoveTimeout
}

func (o Options) quit() time.Duration {
	if o.QuitTimeout > 0 {
		return o.QuitTimeout
	}
	return DefaultQuitTimeout
}

// A Process is one running player, spoken to over its standard input and
// output; its standard error goes straight to its log file. A Process is
// used by one goroutine at a time. After a failure it is dead: Kill it and
// start another.
type Process struct {
	command []string
	opts    Options
	log     *logFile
	cmd     *exec.Cmd
	in      *os.File // our end of its standard input
	out     *os.File // our end of its standard output
	w       *bufio.Writer
	r       *bufio.Reader
	exited  chan struct{} // closed when Wait returned
	waitErr error         // Wait's error, once exited is closed
	timer   *time.Timer   // kills the process when a reply is late
	late    atomic.Bool   // the timer fired
	family  Family        // the handshake's declaration
	buf     []byte
	killed  sync.Once
	ownLog  bool // opened with Open: Close closes the log too
}

// Start starts command with its log appended to log and reads its
// handshake, within opts' handshake limit. The family it declares is
// checked (bounds, types, duplicates) and returned by Family.
func start(ctx context.Context, command []string, log *logFile, opts Options) (*Process, error) {
	p := &Process{command: command, opts: opts, log: log, exited: make(chan struct{})}
	if len(command) == 0 {
		return nil, p.fail("has no command", ErrStart)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("playerpool: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("playerpool: %w", err)
	}
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Dir = opts.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, log.f
	setGroup(cmd)
	err = cmd.Start()
	inR.Close() // the child holds its own copies
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, p.fail("cannot be started: "+err.Error(), ErrStart)
	}
	p.cmd, p.in, p.out = cmd, inW, outR
	p.w, p.r = bufio.NewWriterSize(inW, 64<<10), bufio.NewReaderSize(outR, 64<<10)
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	p.timer = time.AfterFunc(time.Hour, func() {
		p.late.Store(true)
		p.Kill()
	})
	p.timer.Stop()
	if err := p.handshake(); err != nil {
		p.Kill()
		return nil, err
	}
	return p, nil
}

// handshake sends the hello and reads id, params and ready.
func (p *Process) handshake() error {
	const during = "the handshake"
	if err := p.send([]byte(Hello+"\n"), during); err != nil {
		return err
	}
	limit := p.opts.handshake()
	p.family.Command = p.command
	for first := true; ; first = false {
		line, err := p.reply(limit, during)
		if err != nil {
			return err
		}
		if text, ok := ParseError(line); ok {
			return p.fail(fmt.Sprintf("answered error to the hello: %s", text), ErrRefused)
		}
		s := string(line)
		switch {
		case first:
			if p.family.ID, p.family.Version, err = ParseID(s); err != nil {
				return p.fail("began its handshake with a malformed line: "+errText(err), ErrProtocol)
			}
		case s == lineReady:
			if err := checkParams(p.family.Params); err != nil {
				return p.fail("declared a bad parameter: "+errText(err), ErrProtocol)
			}
			return nil
		default:
			q, err := ParseParam(s)
			if err != nil {
				return p.fail("declared a bad parameter: "+errText(err), ErrProtocol)
			}
			p.family.Params = append(p.family.Params, q)
		}
	}
}

// Family returns what the player declared in its handshake.
func (p *Process) Family() Family { return p.family }

// Set sends the set line for values (one per declared parameter, int ones
// rounded) and reads ok.
func (p *Process) Set(values []float64) error {
	line, err := FormatSet(p.family.Params, values)
	if err != nil {
		return err
	}
	if err := p.send([]byte(line+"\n"), "set"); err != nil {
		return err
	}
	reply, err := p.reply(p.opts.handshake(), "set")
	if err != nil {
		return err
	}
	if text, ok := ParseError(reply); ok {
		return p.fail(fmt.Sprintf("answered error to %q: %s", clip([]byte(line)), text), ErrRefused)
	}
	if string(reply) != lineOK {
		return p.fail(fmt.Sprintf("answered set with %q, want ok or error", clip(reply)), ErrProtocol)
	}
	return nil
}

// Moves asks for the moves of boards (each with a legal move) and stores
// them in dst[:0]. It checks the reply's form, not the moves' legality:
// the caller plays them and knows.
func (p *Process) Moves(boards []engine.Board, dst []engine.Dir) ([]engine.Dir, error) {
	p.buf = append(AppendMove(p.buf[:0], boards), '\n')
	what := fmt.Sprintf("move (%d boards)", len(boards))
	if err := p.send(p.buf, what); err != nil {
		return nil, err
	}
	reply, err := p.reply(p.opts.move()*time.Duration(len(boards)), what)
	if err != nil {
		return nil, err
	}
	if text, ok := ParseError(reply); ok {
		return nil, p.fail(fmt.Sprintf("answered error to %s: %s", what, text), ErrRefused)
	}
	dst, err = ParseBest(reply, len(boards), dst)
	if err != nil {
		return nil, p.fail("answered "+what+" with a malformed line: "+errText(err), ErrProtocol)
	}
	return dst, nil
}

// send writes a request; a process that is gone shows as a failed write.
func (p *Process) send(b []byte, what string) error {
	if _, err := p.w.Write(b); err == nil {
		err = p.w.Flush()
		if err == nil {
			return nil
		}
	}
	return p.gone(what)
}

// reply reads the next line that is not a comment, within limit; comments
// go to the log.
func (p *Process) reply(limit time.Duration, what string) ([]byte, error) {
	p.timer.Reset(limit)
	defer p.timer.Stop()
	for {
		line, err := readLine(p.r)
		if err != nil {
			if errors.Is(err, ErrProtocol) {
				return nil, p.fail("sent a line too long while answering "+what, ErrProtocol)
			}
			if p.late.Load() {
				return nil, p.fail(fmt.Sprintf("did not answer %s within %v", what, limit), ErrTimeout)
			}
			return nil, p.gone(what)
		}
		if isComment(line) {
			p.log.comment(line)
			continue
		}
		return line, nil
	}
}

// gone describes a process whose output or input closed: how it exited,
// if it did within a moment.
func (p *Process) gone(what string) error {
	select {
	case <-p.exited:
	case <-time.After(time.Second):
		return p.fail("closed its standard output while answering "+what, ErrExited)
	}
	if p.late.Load() {
		return p.fail(fmt.Sprintf("did not answer %s in time", what), ErrTimeout)
	}
	how := "exited"
	var ee *exec.ExitError
	if errors.As(p.waitErr, &ee) {
		how = "exited (" + ee.ProcessState.String() + ")" // "exit status 2", "signal: killed"
	} else if p.waitErr == nil {
		how = "exited (exit status 0)"
	}
	return p.fail(how+" while answering "+what, ErrExited)
}

// fail returns the Error of what the player did, with its log's tail.
func (p *Process) fail(did string, kind error) error {
	e := &Error{Command: p.command, Did: did, Err: kind}
	if p.log != nil {
		e.Tail = p.log.tail()
		if !p.log.temp { // a temporary log is gone by the time one reads the error
			e.Log = p.log.path
		}
	}
	return e
}

// Kill ends the process (and, where the system has them, the processes it
// started) at once and releases the pipes. It is safe to call more than
// once and from another goroutine (the reply timer does).
func (p *Process) Kill() {
	p.killed.Do(func() {
		if p.cmd != nil {
			killGroup(p.cmd)
		}
		// Closing our ends unblocks a read that a grandchild holding the
		// pipe would keep waiting.
		if p.out != nil {
			p.out.Close()
		}
		if p.in != nil {
			p.in.Close()
		}
	})
}

// Close says quit and waits for the process to exit, killing it after the
// quit limit; a dead process is only reaped.
func (p *Process) Close() {
	if p.cmd == nil {
		return
	}
	if _, err := p.w.WriteString(lineQuit + "\n"); err == nil {
		p.w.Flush()
	}
	select {
	case <-p.exited:
	case <-time.After(p.opts.quit()):
	}
	p.Kill()
	<-p.exited
	if p.ownLog {
		p.log.Close()
	}
}

// errText is an error's text without the package's prefix: it is quoted
// after the player's command, which already says where it came from.
func errText(err error) string {
	return strings.Replace(err.Error(), ErrProtocol.Error()+": ", "", 1)
}
