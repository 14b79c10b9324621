package playerpool

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/evotune/evotune/engine"
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

// nameRE is what a player's id and a parameter's name may be made of: a
// parameter's name sits before '=' in set, so neither '=' nor a space.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// A Param is a parameter a player declares: a number with a type, a
// default and inclusive bounds.
type Param struct {
	Name string
	// Int says the parameter takes integers: evotune rounds a value to the
	// nearest one before set, and its default and bounds are integers.
	Int               bool
	Default, Min, Max float64
}

// Check reports the first thing wrong with p, naming it: a name of other
// characters, a bound or default that is not finite, Min > Max, a default
// outside [Min, Max], or an int parameter with a value that is not an
// integer.
func (p Param) Check() error {
	if !nameRE.MatchString(p.Name) {
		return fmt.Errorf("%w: parameter name %q: want letters, digits, '.', '_' or '-'", ErrProtocol, p.Name)
	}
	for _, v := range []struct {
		what string
		x    float64
	}{{"default", p.Default}, {"min", p.Min}, {"max", p.Max}} {
		if math.IsNaN(v.x) || math.IsInf(v.x, 0) {
			return fmt.Errorf("%w: parameter %s: %s %v is not finite", ErrProtocol, p.Name, v.what, v.x)
		}
		if p.Int && v.x != math.Trunc(v.x) {
			return fmt.Errorf("%w: parameter %s: %s %v of an int parameter is not an integer", ErrProtocol, p.Name, v.what, v.x)
		}
	}
	if p.Min > p.Max {
		return fmt.Errorf("%w: parameter %s: min %v > max %v", ErrProtocol, p.Name, p.Min, p.Max)
	}
	if p.Default < p.Min || p.Default > p.Max {
		return fmt.Errorf("%w: parameter %s: default %v outside [%v, %v]", ErrProtocol, p.Name, p.Default, p.Min, p.Max)
	}
	return nil
}

// typeName is the parameter's type as the protocol writes it.
func (p Param) typeName() string {
	if p.Int {
		return "int"
	}
	return "float"
}

// checkParams checks every parameter and that no name repeats.
func checkParams(ps []Param) error {
	seen := make(map[string]bool, len(ps))
	for _, p := range ps {
		if err := p.Check(); err != nil {
			return err
		}
		if seen[p.Name] {
			return fmt.Errorf("%w: parameter %s declared twice", ErrProtocol, p.Name)
		}
		seen[p.Name] = true
	}
	return nil
}

// FormatID returns the id line of a player.
func FormatID(name, version string) string { return "id " + name + " " + version }

// ParseID reads an id line: "id NAME VERSION", VERSION the rest of the
// line and not empty.
func ParseID(line string) (name, version string, err error) {
	rest, ok := strings.CutPrefix(line, "id ")
	if !ok {
		return "", "", fmt.Errorf("%w: want \"id NAME VERSION\", got %q", ErrProtocol, line)
	}
	name, version, ok = strings.Cut(rest, " ")
	if !ok || version == "" || !nameRE.MatchString(name) {
		return "", "", fmt.Errorf("%w: %q: want \"id NAME VERSION\", NAME of letters, digits, '.', '_' or '-' and a VERSION", ErrProtocol, line)
	}
	return name, version, nil
}

// FormatParam returns the param line declaring p.
func FormatParam(p Param) string {
	return "param " + p.Name + " " + p.typeName() + " " + formatNumber(p.Default) + " " + formatNumber(p.Min) + " " + formatNumber(p.Max)
}

// ParseParam reads a param line, "param NAME float|int DEFAULT MIN MAX",
// and checks the declaration (Param.Check).
func ParseParam(line string) (Param, error) {
	f := strings.Split(line, " ")
	if len(f) != 6 || f[0] != "param" {
		return Param{}, fmt.Errorf("%w: want \"param NAME float|int DEFAULT MIN MAX\", got %q", ErrProtocol, line)
	}
	p := Param{Name: f[1]}
	switch f[2] {
	case "float":
	case "int":
		p.Int = true
	default:
		return Param{}, fmt.Errorf("%w: %q: type %q: want float or int", ErrProtocol, line, f[2])
	}
	for i, dst := range []*float64{&p.Default, &p.Min, &p.Max} {
		v, err := parseNumber(f[3+i])
		if err != nil {
			return Param{}, fmt.Errorf("%w: %q: %s: %v", ErrProtocol, line, [...]string{"default", "min", "max"}[i], err)
		}
		*dst = v
	}
	if err := p.Check(); err != nil {
		return Param{}, fmt.Errorf("%q: %w", line, err)
	}
	return p, nil
}

// parseNumber reads a finite decimal number. strconv would take "NaN",
// "Inf", hex floats and underscores too; the protocol has none of them.
func parseNumber(s string) (float64, error) {
	if s == "" || strings.ContainsAny(s, "xXpP_") {
		return 0, fmt.Errorf("%q is not a decimal number", s)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a finite decimal number", s)
	}
	return v, nil
}

// formatNumber writes x as the shortest decimal that reads back as x, so a
// player that parses it with any correct strtod sets exactly the value the
// tuner meant.
func formatNumber(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// setValue is the value sent for p: x itself, or for an int parameter x
// rounded to the nearest integer (halves away from zero).
func setValue(p Param, x float64) float64 {
	if p.Int {
		return math.Round(x)
	}
	return x
}

// FormatSet returns the set line giving ps the values xs, in declaration
// order, int parameters rounded. It refuses a value that is not finite or
// that lies outside its parameter's bounds, after rounding: the player
// would refuse it too, with a vaguer message.
func FormatSet(ps []Param, xs []float64) (string, error) {
	if len(xs) != len(ps) {
		return "", fmt.Errorf("playerpool: %d values for %d parameters", len(xs), len(ps))
	}
	var sb strings.Builder
	sb.WriteString("set")
	for i, p := range ps {
		x := setValue(p, xs[i])
		if math.IsNaN(x) || math.IsInf(x, 0) || x < p.Min || x > p.Max {
			return "", fmt.Errorf("playerpool: parameter %s = %v, want a number in [%v, %v]", p.Name, xs[i], p.Min, p.Max)
		}
		sb.WriteByte(' ')
		sb.WriteString(p.Name)
		sb.WriteByte('=')
		sb.WriteString(formatNumber(x))
	}
	return sb.String(), nil
}

// ParseSet reads a set line against the declared parameters: every one,
// in declaration order, each within its bounds and, if int, an integer.
// It returns the values in order.
func ParseSet(line string, ps []Param) ([]float64, error) {
	rest, ok := strings.CutPrefix(line, "set")
	if !ok || (rest != "" && rest[0] != ' ') {
		return nil, fmt.Errorf("%w: want \"set NAME=VALUE ...\", got %q", ErrProtocol, line)
	}
	var f []string
	if rest != "" {
		f = strings.Split(rest[1:], " ")
	}
	xs := make([]float64, len(ps))
	for i, tok := range f {
		name, val, ok := strings.Cut(tok, "=")
		if !ok {
			return nil, fmt.Errorf("%w: set: %q is not NAME=VALUE", ErrProtocol, tok)
		}
		if i >= len(ps) {
			return nil, fmt.Errorf("%w: set: unknown parameter %q (%d declared)", ErrProtocol, name, len(ps))
		}
		p := ps[i]
		if name != p.Name {
			if paramIndex(ps, name) < 0 {
				return nil, fmt.Errorf("%w: set: unknown parameter %q", ErrProtocol, name)
			}
			return nil, fmt.Errorf("%w: set: parameter %d is %s, got %s: want every parameter in declaration order", ErrProtocol, i+1, p.Name, name)
		}
		x, err := parseNumber(val)
		if err != nil {
			return nil, fmt.Errorf("%w: set: %s: %v", ErrProtocol, name, err)
		}
		if p.Int && x != math.Trunc(x) {
			return nil, fmt.Errorf("%w: set: %s = %s: an int parameter takes integers", ErrProtocol, name, val)
		}
		if x < p.Min || x > p.Max {
			return nil, fmt.Errorf("%w: set: %s = %s outside [%v, %v]", ErrProtocol, name, val, p.Min, p.Max)
		}
		xs[i] = x
	}
	if len(f) < len(ps) {
		return nil, fmt.Errorf("%w: set: parameter %s missing", ErrProtocol, ps[len(f)].Name)
	}
	return xs, nil
}

func paramIndex(ps []Param, name string) int {
	for i, p := range ps {
		if p.Name == name {
			return i
		}
	}
	return -1
}

// AppendMove appends the move line asking for the boards' moves (without
// the newline). It writes into room grown once, a board's 19 bytes at a
// time: a slot encodes every board of every move this way.
func AppendMove(dst []byte, boards []engine.Board) []byte {
	const width = len(" 0x") + 16
	n := len(dst)
	dst = slices.Grow(dst, len("move")+width*len(boards))
	dst = append(dst, "move"...)
	dst = dst[:len(dst)+width*len(boards)]
	out := dst[n+len("move"):]
	for i, b := range boards {
		o := out[i*width : (i+1)*width : (i+1)*width]
		o[0], o[1], o[2] = ' ', '0', 'x'
		for j := width - 1; j >= 3; j-- {
			o[j] = hexDigits[b&0xf]
			b >>= 4
		}
	}
	return dst
}

const hexDigits = "0123456789abcdef"

// ParseMove reads a move line, "move B1 ... Bk" with k >= 1 and each board
// 0x and 16 hex digits, into dst[:0]. It does not judge the boards: whether
// each has a legal move is the server's to check.
func ParseMove(line []byte, dst []engine.Board) ([]engine.Board, error) {
	rest, ok := bytes.CutPrefix(line, []byte("move "))
	if !ok {
		return nil, fmt.Errorf("%w: want \"move B1 ... Bk\", got %q", ErrProtocol, clip(line))
	}
	dst = dst[:0]
	for len(rest) > 0 || len(dst) == 0 {
		tok := rest
		if i := bytes.IndexByte(rest, ' '); i >= 0 {
			tok, rest = rest[:i], rest[i+1:]
			if len(rest) == 0 {
				return nil, fmt.Errorf("%w: move: a space ends the line", ErrProtocol)
			}
		} else {
			rest = nil
		}
		b, ok := parseHexBoard(tok)
		if !ok {
			return nil, fmt.Errorf("%w: move: board %d: %q: want 0x and 16 hex digits", ErrProtocol, len(dst)+1, clip(tok))
		}
		dst = append(dst, b)
	}
	return dst, nil
}

// parseHexBoard reads 0x and exactly 16 hex digits.
func parseHexBoard(s []byte) (engine.Board, bool) {
	if len(s) != 18 || s[0] != '0' || s[1] != 'x' {
		return 0, false
	}
	var v uint64
	for _, c := range s[2:] {
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		v = v<<4 | uint64(d)
	}
	return engine.Board(v), true
}

// AppendBest appends the best line answering with dirs (without the
// newline).
func AppendBest(dst []byte, dirs []engine.Dir) []byte {
	dst = append(dst, "best"...)
	for _, d := range dirs {
		dst = append(dst, ' ')
		dst = append(dst, d.String()...)
	}
	return dst
}

// ParseBest reads a best line answering k boards into dst[:0]: exactly k
// directions, each up, down, left or right.
func ParseBest(line []byte, k int, dst []engine.Dir) ([]engine.Dir, error) {
	if d, ok := parseBestFast(line, k, dst); ok {
		return d, nil
	}
	return parseBestSlow(line, k, dst)
}

// parseBestSlow is ParseBest token by token, saying what is wrong.
func parseBestSlow(line []byte, k int, dst []engine.Dir) ([]engine.Dir, error) {
	rest, ok := bytes.CutPrefix(line, []byte("best "))
	if !ok {
		return nil, fmt.Errorf("%w: want \"best M1 ... Mk\", got %q", ErrProtocol, clip(line))
	}
	dst = dst[:0]
	for len(rest) > 0 {
		tok := rest
		if i := bytes.IndexByte(rest, ' '); i >= 0 {
			tok, rest = rest[:i], rest[i+1:]
			if len(rest) == 0 {
				return nil, fmt.Errorf("%w: best: a space ends the line", ErrProtocol)
			}
		} else {
			rest = nil
		}
		d, ok := parseDir(tok)
		if !ok {
			return nil, fmt.Errorf("%w: best: move %d: %q: want up, down, left or right", ErrProtocol, len(dst)+1, clip(tok))
		}
		dst = append(dst, d)
	}
	if len(dst) != k {
		return nil, fmt.Errorf("%w: best: %d moves for %d boards", ErrProtocol, len(dst), k)
	}
	return dst, nil
}

// parseBestFast reads a well-formed best line of k moves in one pass, each
// move known by its first letter and checked whole; ok is false for any
// other line, which ParseBest then reads again to say what is wrong.
func parseBestFast(line []byte, k int, dst []engine.Dir) ([]engine.Dir, bool) {
	if len(line) < len("best ") || string(line[:len("best ")]) != "best " {
		return nil, false
	}
	dst = dst[:0]
	for i := len("best "); i < len(line); i++ {
		var (
			d    engine.Dir
			word string
		)
		switch line[i] {
		case 'u':
			d, word = engine.Up, "up"
		case 'd':
			d, word = engine.Down, "down"
		case 'l':
			d, word = engine.Left, "left"
		case 'r':
			d, word = engine.Right, "right"
		default:
			return nil, false
		}
		if len(line)-i < len(word) || string(line[i:i+len(word)]) != word {
			return nil, false
		}
		dst = append(dst, d)
		i += len(word)
		if i == len(line) {
			return dst, len(dst) == k
		}
		if line[i] != ' ' {
			return nil, false
		}
	}
	return nil, false // empty, or a space ends the line
}

func parseDir(s []byte) (engine.Dir, bool) {
	switch string(s) { // no allocation: the compiler compares in place
	case "up":
		return engine.Up, true
	case "down":
		return engine.Down, true
	case "left":
		return engine.Left, true
	case "right":
		return engine.Right, true
	}
	return 0, false
}

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
