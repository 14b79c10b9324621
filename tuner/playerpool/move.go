package playerpool

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/evotune/evotune/engine"
)

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
		return nil, broke(ruleProtocolLine, fmt.Errorf("%w: want \"best M1 ... Mk\", got %q", ErrProtocol, clip(line)))
	}
	dst = dst[:0]
	for len(rest) > 0 {
		tok := rest
		if i := bytes.IndexByte(rest, ' '); i >= 0 {
			tok, rest = rest[:i], rest[i+1:]
			if len(rest) == 0 {
				return nil, broke(ruleMoveWords, fmt.Errorf("%w: best: a space ends the line", ErrProtocol))
			}
		} else {
			rest = nil
		}
		d, ok := parseDir(tok)
		if !ok {
			return nil, broke(ruleMoveWords, fmt.Errorf("%w: best: move %d: %q: want up, down, left or right", ErrProtocol, len(dst)+1, clip(tok)))
		}
		dst = append(dst, d)
	}
	if len(dst) != k {
		return nil, broke(ruleOneMovePerBoard, fmt.Errorf("%w: best: %d moves for %d boards", ErrProtocol, len(dst), k))
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
