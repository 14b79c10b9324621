package playerpool

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evotune/evotune/engine"
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
	Err     error  // a sentinel above, an error wrapping ErrProtocol, or engine.ErrIllegalMove

	// doing is the exchange that failed ("" for a move request).
	doing string

	// req are the boards of the move request that failed (nil for another
	// exchange), from index at of the boards given to Moves on.
	req []engine.Board
	at  int
}

// alone returns the index among the boards given to Moves of the one
// board a failed move request held, or -1 when it held several or the
// failure was not a move request's: a failure of such a request is that
// board's own.
func (e *Error) alone() int {
	if len(e.req) == 1 {
		return e.at
	}
	return -1
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

// fail returns the Error of what the player did, with its log's tail, both
// escaped: the player's text may hold any bytes.
func (p *Process) fail(did string, kind error) error {
	e := &Error{Command: p.command, Did: printable(did), Err: kind, doing: p.doing}
	if p.doing == "" {
		e.req, e.at = p.req, p.at
	}
	if p.log != nil {
		if p.plog != nil {
			e.Tail = printable(p.plog.Tail())
		}
		if !p.log.temp { // a temporary log is gone by the time one reads the error
			e.Log = p.log.path
		}
	}
	return e
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
