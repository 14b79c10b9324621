package playerpool

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/internal/proctree"
	"github.com/evotune/evotune/tuner"
)

// A Process is one running player, spoken to over its standard input and
// output; its standard error is copied to its log, within the log's
// budget. A Process is used by one goroutine at a time (Kill excepted).
// After a failure it is dead: Kill it and start another.
type Process struct {
	command []string
	opts    Options
	log     *logFile
	plog    *proctree.Log // this process's part of log
	tree    *proctree.Proc
	w       *bufio.Writer
	r       *bufio.Reader
	family  Family // the handshake's declaration
	buf     []byte
	setOnes []uint8     // set numbers 1, for Moves of a version-2 player
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
	at    int            // the index of req[0] among the boards Moves was given
	heard int            // lines received in the handshake, comments too
	// paceOne and paceMany are the slowest time per board of the move
	// requests of one board and of several answered so far, 0 before the
	// first: what sets the time the boards of a request beyond its first
	// are allowed (see Moves).
	paceOne, paceMany time.Duration

	mu      sync.Mutex
	stopErr error // why a watched context ended the process
}

// start starts command with its standard error copied to log and reads its
// handshake, all within opts' handshake limit; ctx ends it at once. The
// family it declares is checked (bounds, types, duplicates, MaxParams)
// and returned by Family; with want, it must also declare what want does
// (DeclarationDiff, whose naming want's side), or it is ended with an
// ErrMismatch. Every player evotune starts is started here: a pool's, and
// Open's (Probe, Pin, Verify, the compliance check).
func start(ctx context.Context, command []string, log *logFile, opts Options, want *tuner.PlayerDeclaration, whose string) (*Process, error) {
	p := &Process{command: command, opts: opts, log: log}
	if len(command) == 0 {
		return nil, p.fail("has no command", ErrStart)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("playerpool: %w", err)
	}
	p.plog = proctree.NewLog(log, MaxProcessLog, truncatedMarker)
	tree, err := proctree.Start(command, proctree.Config{Dir: opts.Dir, Log: p.plog, Started: log.begin})
	if err != nil {
		return nil, p.fail("cannot be started: "+err.Error(), ErrStart)
	}
	p.tree = tree
	p.w, p.r = bufio.NewWriterSize(tree.Stdin(), 64<<10), bufio.NewReaderSize(tree.Stdout(), MaxLine+2)
	p.timer = time.AfterFunc(time.Hour, func() {
		p.late.Store(true)
		p.Kill()
	})
	p.timer.Stop()
	unwatch := p.watch(ctx)
	err = p.handshake()
	unwatch()
	if err == nil && want != nil {
		if why := DeclarationDiff(want, p.family.Declaration(), whose); why != "" {
			err = p.fail(why, ErrMismatch)
		}
	}
	if err != nil {
		p.Kill()
		p.Close()
		return nil, err
	}
	return p, nil
}

// Dead reports whether the process was killed (after a failure, a limit
// or a cancellation): it answers nothing more.
func (p *Process) Dead() bool { return p.tree.Killed() }

// handshake sends the hello and reads id, params and ready, within one
// limit for the whole.
func (p *Process) handshake() error {
	p.arm("the handshake", p.opts.handshake())
	defer p.disarm()
	if err := p.send([]byte(Hello + "\n")); err != nil {
		return err
	}
	p.family.Command = p.command
	for n := 0; ; n++ {
		line, err := p.reply()
		if err != nil {
			return err
		}
		if text, ok := ParseError(line); ok {
			return p.fail(fmt.Sprintf("answered error to the hello: %s", text), ErrRefused)
		}
		s := string(line)
		switch {
		case n == 0:
			if p.family.ID, p.family.Version, err = ParseID(s); err != nil {
				return p.fail("began its handshake with a malformed line: "+errText(err), err)
			}
		case strings.HasPrefix(s, "protocol ") && n == 1:
			if p.family.Sets, err = ParseProtocol(s); err != nil {
				return p.fail("declared a protocol it does not speak: "+errText(err), err)
			}
		case strings.HasPrefix(s, "protocol "):
			return p.fail(fmt.Sprintf("sent %q as line %d of its handshake: the protocol line comes right after id", clip(line), n+1), broke(ruleProtocolVersion, ErrProtocol))
		case s == lineReady:
			return nil // each param was checked when it arrived
		default:
			q, err := ParseParam(s)
			if err != nil {
				return p.fail("declared a bad parameter: "+errText(err), err)
			}
			if paramIndex(p.family.Params, q.Name) >= 0 {
				return p.fail("declared a bad parameter: parameter "+q.Name+" declared twice", broke(ruleParamOnce, ErrProtocol))
			}
			if len(p.family.Params) == MaxParams {
				return p.fail(fmt.Sprintf("declared more than %d parameters, the most a player may declare", MaxParams), broke(ruleParamCount, ErrProtocol))
			}
			p.family.Params = append(p.family.Params, q)
		}
	}
}

// Family returns what the player declared in its handshake.
func (p *Process) Family() Family { return p.family }

// Set sends the set line for values (one per declared parameter, int ones
// rounded) and reads ok. A player of version 2 is given set 1.
func (p *Process) Set(values []float64) error { return p.SetIn(1, values) }

// SetIn gives the values to set s of a player of version 2, from 1 to its
// Sets, and reads ok; a player of version 1 has one set, 1, given by the
// version-1 set line.
func (p *Process) SetIn(s int, values []float64) error {
	var (
		line string
		err  error
	)
	switch {
	case s < 1 || s > max(p.family.Sets, 1):
		return fmt.Errorf("playerpool: set %d of a player holding %d", s, max(p.family.Sets, 1))
	case p.family.Sets == 0:
		line, err = FormatSet(p.family.Params, values)
	default:
		line, err = FormatSetIn(p.family.Params, s, values)
	}
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
		return p.fail(fmt.Sprintf("answered set with %q, want ok or error", clip(reply)), broke(ruleProtocolLine, ErrProtocol))
	}
	return nil
}

// Moves asks for the moves of boards (each with a legal move) and stores
// them in dst[:0]. It checks the reply's form, not the moves' legality:
// the caller plays them and knows.
//
// A request's limit is the per-board limit for one of its boards, plus for
// each other board paceFactor times the slowest time per board of the
// requests answered so far (at most the per-board limit), so that a player
// that stops answering is found within about the per-board limit whatever
// the number of boards, while a slow one has its usual pace with room to
// spare. A process that has answered nothing yet is asked for the first
// board alone, then for the others: a player that never answers fails on
// one board, in the per-board limit, and its first answer sets the pace.
func (p *Process) Moves(boards []engine.Board, dst []engine.Dir) ([]engine.Dir, error) {
	return p.MovesIn(boards, nil, dst)
}

// MovesIn is Moves with the set of each board: boards[i] under set
// sets[i] of a player of version 2 (each set given before by SetIn); nil
// sets, or a player of version 1, asks under set 1, the one set.
func (p *Process) MovesIn(boards []engine.Board, sets []uint8, dst []engine.Dir) ([]engine.Dir, error) {
	if sets != nil && len(sets) != len(boards) {
		return nil, fmt.Errorf("playerpool: %d sets for %d boards", len(sets), len(boards))
	}
	if p.family.Sets > 0 && sets == nil {
		sets = p.ones(len(boards))
	}
	if p.family.Sets == 0 {
		sets = nil
	}
	if p.pace() > 0 || len(boards) == 1 {
		return p.moves(boards, sets, 0, dst)
	}
	d, err := p.moves(boards[:1], head(sets, 1), 0, dst)
	if err != nil {
		return nil, err
	}
	first := d[0]
	d, err = p.moves(boards[1:], tail(sets, 1), 1, d)
	if err != nil {
		return nil, err
	}
	return slices.Insert(d, 0, first), nil
}

// paceFactor is how many times the slowest time per board seen so far a
// request allows each of its boards beyond the first (see Moves).
const paceFactor = 4

// pace is the slowest time per board of the requests of several boards
// answered so far, or before the first of them, of those of one board
// (whose time is mostly the round trip, which several boards share).
func (p *Process) pace() time.Duration { return cmp.Or(p.paceMany, p.paceOne) }

// moveLimit is the limit of a move request of k boards.
func (p *Process) moveLimit(k int) time.Duration {
	return p.opts.move() + time.Duration(k-1)*min(p.opts.move(), paceFactor*p.pace())
}

// moves is one move request: boards, the boards given to Moves from
// index at on.
func (p *Process) moves(boards []engine.Board, sets []uint8, at int, dst []engine.Dir) ([]engine.Dir, error) {
	if sets != nil {
		p.buf = append(AppendMoveIn(p.buf[:0], boards, sets), '\n')
	} else {
		p.buf = append(AppendMove(p.buf[:0], boards), '\n')
	}
	p.req, p.at = boards, at
	p.arm("", p.moveLimit(len(boards)))
	defer p.disarm()
	t0 := time.Now()
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
		return nil, p.fail("answered "+p.what()+" with a malformed line: "+errText(err), err)
	}
	if per := max(time.Since(t0)/time.Duration(len(boards)), 1); len(boards) == 1 {
		p.paceOne = max(p.paceOne, per)
	} else {
		p.paceMany = max(p.paceMany, per)
	}
	return dst, nil
}

// Kill ends the process and the processes it started at once and
// releases the pipes. It is safe to call more than once and from another
// goroutine (the exchange's timer, a watched context and
// proctree.KillAll do).
func (p *Process) Kill() { p.tree.Kill() }

// Close says quit and waits for the process to exit, killing it after the
// quit limit; a dead process is only reaped.
func (p *Process) Close() {
	if p.unwatch != nil {
		p.unwatch()
	}
	if !p.Dead() {
		if _, err := p.w.WriteString(lineQuit + "\n"); err == nil {
			p.w.Flush()
		}
		select {
		case <-p.tree.Exited():
		case <-time.After(p.opts.quit()):
		}
	}
	p.tree.Release()
	if p.ownLog {
		p.log.Close()
	}
}

// ones returns n set numbers 1, for a player of version 2 asked as one of
// version 1.
func (p *Process) ones(n int) []uint8 {
	for len(p.setOnes) < n {
		p.setOnes = append(p.setOnes, 1)
	}
	return p.setOnes[:n]
}

// head and tail cut a request's sets as its boards are, nil staying nil.
func head(sets []uint8, n int) []uint8 {
	if sets == nil {
		return nil
	}
	return sets[:n]
}

func tail(sets []uint8, n int) []uint8 {
	if sets == nil {
		return nil
	}
	return sets[n:]
}
