package playerpool

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
)

// Hello is the first line evotune sends: the protocol's name and version.
const Hello = "evotune-player 1"

// The fixed replies and requests.
const (
	lineReady = "ready"
	lineOK    = "ok"
	lineQuit  = "quit"
)

// ErrProtocol is wrapped by every error about a line that breaks the
// protocol, from either side.
var ErrProtocol = errors.New("playerpool: protocol error")

// A rule is a rule of the protocol that a line broke. An error about such
// a line wraps it (ruleError: the error's text is the line's), so that the
// compliance check can name the fix of the cause, not of the check point
// that met it.
type rule int

const (
	ruleNone            rule = iota
	ruleProtocolLine         // a line that is no line of the protocol: standard output's hygiene
	ruleID                   // the id line
	ruleParamForm            // param NAME TYPE DEFAULT MIN MAX
	ruleParamType            // float or int
	ruleParamNumber          // finite decimals, integers for int
	ruleParamName            // a name's characters
	ruleParamBounds          // MIN <= DEFAULT <= MAX
	ruleParamOnce            // a name declared once
	ruleParamCount           // at most MaxParams
	ruleOneMovePerBoard      // k moves for k boards
	ruleMoveWords            // up, down, left or right, one space apart
	ruleProtocolVersion      // protocol 2 SETS, right after id
)

// A ruleError is an error about a line that broke a rule.
type ruleError struct {
	err  error
	rule rule
}

func (e *ruleError) Error() string { return e.err.Error() }
func (e *ruleError) Unwrap() error { return e.err }

// broke marks err as the breaking of r.
func broke(r rule, err error) error { return &ruleError{err, r} }

// ruleOf returns the rule err says a line broke, or ruleNone.
func ruleOf(err error) rule {
	var re *ruleError
	if errors.As(err, &re) {
		return re.rule
	}
	return ruleNone
}

// nameRE is what a player's id and a parameter's name may be made of: a
// parameter's name sits before '=' in set, so neither '=' nor a space.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// ParseError reads an error reply, "error TEXT", and reports whether line
// is one.
func ParseError(line []byte) (text string, ok bool) {
	rest, ok := bytes.CutPrefix(line, []byte("error"))
	if !ok || (len(rest) > 0 && rest[0] != ' ') {
		return "", false
	}
	return strings.TrimPrefix(string(rest), " "), true
}

// FormatError returns the error reply of err: its text on one line.
func FormatError(err error) string {
	return "error " + strings.ReplaceAll(errText(err), "\n", " ")
}

// isComment reports whether a line from the player is a comment.
func isComment(line []byte) bool { return len(line) > 0 && line[0] == '#' }

// clip shortens a line quoted in an error: a garbage line may be long.
func clip(b []byte) string {
	const n = 80
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
