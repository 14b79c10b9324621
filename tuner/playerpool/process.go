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
	"unicode/utf8"

	"github.com/evotune/evotune/engine"
)

// The defaults of Options' limits, as DESIGN.md gives them.
const (
	DefaultHandshakeTimeout = 10 * time.Second
	DefaultMoveTimeout      = 10 * time.Second
	DefaultQuitTimeout      = 5 * time.Second
)

// Limits on what a player may send, so that a broken or hostile one costs
// evotune bounded memory and time.
const (
	// MaxParams is the most parameters a player may declare; the handshake
	// fails at the first param line past it.
	MaxParams = 64
	// MaxLine is the longest line a player may send, in bytes, its end of
	// line not counted. A longer line fails the exchange once MaxLine bytes
	// are read, whatever the player goes on writing.
	MaxLine = 64 << 10
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
	// HandshakeTimeout bounds the whole handshake, from the hello to ready,
	// and each set; 0 means DefaultHandshakeTimeout.
	HandshakeTimeout time.Duration
	// MoveTimeout bounds a move exchange (writing the request and reading
	// the answer), per board; 0 means DefaultMoveTimeout.
	MoveTimeout time.Duration
	// QuitTimeout is how long a player has to exit after quit before it is
	// killed; 0 means DefaultQuitTimeout.
	QuitTimeout time.Duration
	// Batch is k, the games a slot plays at once in lockstep (boards per
	// move request); 0 means DefaultBatch.
	Batch int
	// LogDir holds the pool's logs, slot-N.log for slot N: each player's
	// standard error and comments, at most MaxProcessLog bytes a process,
	// started afresh by each pool (see logFile). "" means temporary files,
	// removed by Close.
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
// output; its standard error is copied to its log, within the log's
// budget. A Process is used by one goroutine at a time (Kill excepted).
// After a failure it is dead: Kill it and start another.
type Process struct {
	command []string
	opts    Options
	log     *logFile
	plog    *procLog // this process's part of log
	cmd     *exec.Cmd
	group   procGroup
	in      *os.File // our end of its standard input
	out     *os.File // our end of its standard output
	w       *bufio.Writer
	r       *bufio.Reader
	exited  chan struct{} // closed when Wait returned
	waitErr error         // Wait's error, once exited is closed
	family  Family        // the handshake's declaration
	buf     []byte
	ownLog  bool        // opened with Open: Close closes the log too
	unwatch func() bool // ends Open's watch of its context

	// The exchange under way, for the limit and the messages: one timer
	// armed for a whole exchange (write and read), not per line, so that
	// neither a player that trickles lines nor one that stops reading its
	// input outlasts the limit.
	timer *time.Timer // kills the process when an exchange is late
	late  atomic.Bool // the timer fired
	limit time.Duration
	doing string         // the exchange, "" for a move request
	req   []engine.Board // a move request's boards
	heard int            // lines received in the handshake, comments too

	mu      sync.Mutex
	stopErr error // why a watched context ended the process
	killed  sync.Once
	dead    atomic.Bool // Kill was called
}

// live holds every started player process not yet killed, for KillAll.
var live = struct {
	sync.Mutex
	m map[*Process]struct{}
}{m: map[*Process]struct{}{}}

// KillAll kills every player process of this program that is still
// running, and the processes they started, at once: for a program that
// must exit now (a second Ctrl-C) without the orderly Close.
func KillAll() {
	live.Lock()
	ps := make([]*Process, 0, len(live.m))
	for p := range live.m {
		ps = append(ps, p)
	}
	live.Unlock()
	for _, p := range ps {
		p.Kill()
	}
}

// start starts command with its standard error copied to log and reads its
// handshake, all within opts' handshake limit; ctx ends it at once. The
// family it declares is checked (bounds, types, duplicates, MaxParams)
// and returned by Family.
func start(ctx context.Context, command []string, log *logFile, opts Options) (*Process, error) {
	p := &Process{command: command, opts: opts, log: log, exited: make(chan struct{})}
	if len(command) == 0 {
		return nil, p.fail("has no command", ErrStart)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("playerpool: %w", err)
	}
	var pipes [6]*os.File // in r/w, out r/w, err r/w
	for i := 0; i < len(pipes); i += 2 {
		r, w, err := os.Pipe()
		if err != nil {
			for _, f := range pipes[:i] {
				f.Close()
			}
			return nil, fmt.Errorf("playerpool: %w", err)
		}
		pipes[i], pipes[i+1] = r, w
	}
	inR, inW, outR, outW, errR, errW := pipes[0], pipes[1], pipes[2], pipes[3], pipes[4], pipes[5]
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Dir = opts.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	p.group.prepare(cmd)
	err := cmd.Start()
	inR.Close() // the child holds its own copies
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, p.fail("cannot be started: "+err.Error(), ErrStart)
	}
	p.cmd, p.in, p.out = cmd, inW, outR
	live.Lock()
	live.m[p] = struct{}{}
	live.Unlock()
	p.plog = log.begin(cmd.Process.Pid, errR)
	p.w, p.r = bufio.NewWriterSize(inW, 64<<10), bufio.NewReaderSize(outR, MaxLine+2)
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	p.timer = time.AfterFunc(time.Hour, func() {
		p.late.Store(true)
		p.Kill()
	})
	p.timer.Stop()
	if err := p.group.started(cmd); err != nil {
		p.Kill()
		return nil, p.fail("cannot be started: "+err.Error(), ErrStart)
	}
	unwatch := p.watch(ctx)
	err = p.handshake()
	unwatch()
	if err != nil {
		p.Kill()
		return nil, err
	}
	return p, nil
}

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

// Dead reports whether the process was killed (after a failure, a limit
// or a cancellation): it answers nothing more.
func (p *Process) Dead() bool { return p.dead.Load() }

// arm starts an exchange of limit; disarm ends it.
func (p *Process) arm(doing string, limit time.Duration) {
	p.doing, p.limit = doing, limit
	p.timer.Reset(limit)
}

func (p *Process) disarm() { p.timer.Stop() }

// handshake sends the hello and reads id, params and ready, within one
// limit for the whole.
func (p *Process) handshake() error {
	p.arm("the handshake", p.opts.handshake())
	defer p.disarm()
	if err := p.send([]byte(Hello + "\n")); err != nil {
		return err
	}
	p.family.Command = p.command
	for first := true; ; first = false {
		line, err := p.reply()
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
			if paramIndex(p.family.Params, q.Name) >= 0 {
				return p.fail("declared a bad parameter: parameter "+q.Name+" declared twice", ErrProtocol)
			}
			if len(p.family.Params) == MaxParams {
				return p.fail(fmt.Sprintf("declared more than %d parameters, the most a player may declare", MaxParams), ErrProtocol)
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
	p.arm("set", p.opts.handshake())
	defer p.disarm()
	if err := p.send([]byte(line + "\n")); err != nil {
		return err
	}
	reply, err := p.reply()
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
	p.req = boards
	p.arm("", p.opts.move()*time.Duration(len(boards)))
	defer p.disarm()
	if err := p.send(p.buf); err != nil {
		return nil, err
	}
	reply, err := p.reply()
	if err != nil {
		return nil, err
	}
	if text, ok := ParseError(reply); ok {
		return nil, p.fail(fmt.Sprintf("answered error to %s: %s", p.what(), text), ErrRefused)
	}
	dst, err = ParseBest(reply, len(boards), dst)
	if err != nil {
		return nil, p.fail("answered "+p.what()+" with a malformed line: "+errText(err), ErrProtocol)
	}
	return dst, nil
}

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
			p.plog.comment(line)
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
	}
	return fmt.Sprintf("did not answer %s within %v", p.what(), p.limit)
}

// gone describes a process whose output or input closed: how it exited,
// if it did within a moment.
func (p *Process) gone() error {
	if p.late.Load() {
		return p.fail(p.lateDid(), ErrTimeout)
	}
	select {
	case <-p.exited:
	case <-time.After(time.Second):
		return p.fail("closed its standard output while answering "+p.what(), ErrExited)
	}
	if p.late.Load() {
		return p.fail(p.lateDid(), ErrTimeout)
	}
	// Its last words may still be in the pipe to the log.
	p.plog.drained(time.Second)
	how := "exited"
	var ee *exec.ExitError
	if errors.As(p.waitErr, &ee) {
		how = "exited (" + ee.ProcessState.String() + ")" // "exit status 2", "signal: killed"
	} else if p.waitErr == nil {
		how = "exited (exit status 0)"
	}
	return p.fail(how+" while answering "+p.what(), ErrExited)
}

// fail returns the Error of what the player did, with its log's tail, both
// escaped: the player's text may hold any bytes.
func (p *Process) fail(did string, kind error) error {
	e := &Error{Command: p.command, Did: printable(did), Err: kind}
	if p.log != nil {
		if p.plog != nil {
			e.Tail = printable(p.plog.tail())
		}
		if !p.log.temp { // a temporary log is gone by the time one reads the error
			e.Log = p.log.path
		}
	}
	return e
}

// Kill ends the process and the processes it started at once and
// releases the pipes. It is safe to call more than once and from another
// goroutine (the exchange's timer, a watched context and KillAll do).
func (p *Process) Kill() {
	p.killed.Do(func() {
		p.dead.Store(true)
		if p.cmd != nil {
			p.group.kill(p.cmd)
		}
		// Closing our ends unblocks a read or a write that a grandchild
		// holding the pipe would keep waiting.
		if p.out != nil {
			p.out.Close()
		}
		if p.in != nil {
			p.in.Close()
		}
		if p.plog != nil {
			p.plog.release(time.Second)
		}
		live.Lock()
		delete(live.m, p)
		live.Unlock()
	})
}

// Close says quit and waits for the process to exit, killing it after the
// quit limit; a dead process is only reaped.
func (p *Process) Close() {
	if p.unwatch != nil {
		p.unwatch()
	}
	if p.cmd == nil {
		return
	}
	if !p.Dead() {
		if _, err := p.w.WriteString(lineQuit + "\n"); err == nil {
			p.w.Flush()
		}
		select {
		case <-p.exited:
		case <-time.After(p.opts.quit()):
		}
	}
	p.Kill()
	<-p.exited
	p.group.release()
	if p.ownLog {
		p.log.Close()
	}
}

// errText is an error's text without the package's prefix: it is quoted
// after the player's command, which already says where it came from.
func errText(err error) string {
	return strings.Replace(err.Error(), ErrProtocol.Error()+": ", "", 1)
}

// printable escapes what a terminal would act on (control characters, ANSI
// escape sequences, invalid UTF-8) in text from a player, as Go quotes
// them: \x1b, \r, \u2028; printable text, '\\' included, is kept as is.
func printable(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || !strconv.IsPrint(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&sb, `\x%02x`, s[i])
		case strconv.IsPrint(r):
			sb.WriteString(s[i : i+n])
		default:
			q := strconv.QuoteRuneToASCII(r) // '\x1b', '\t', '\u2028'
			sb.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return sb.String()
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
