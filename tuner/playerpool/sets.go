package playerpool

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/evotune/evotune/engine"
)

// Version 2 of the protocol: a player that sends "protocol 2 SETS" right
// after its id line holds SETS parameter sets at once, numbered 1 to SETS;
// evotune then sends "set S NAME=VALUE ..." to give set S its values and
// "move S:B1 S:B2 ..." to ask for each board's move under the values of
// the set it names. So one request carries the games of several
// candidates. evotune's hello stays "evotune-player 1": the player opts in,
// and a player of version 1 is spoken to as before.

// protocolVersion is the version a protocol line declares.
const protocolVersion = 2

// FormatProtocol returns the protocol line of a version-2 player holding
// sets parameter sets.
func FormatProtocol(sets int) string { return "protocol 2 " + strconv.Itoa(sets) }

// ParseProtocol reads a protocol line, "protocol 2 SETS" with SETS from 1
// to MaxSets, and returns SETS.
func ParseProtocol(line string) (int, error) {
	f := strings.Split(line, " ")
	if len(f) != 3 || f[0] != "protocol" || f[1] != strconv.Itoa(protocolVersion) {
		return 0, broke(ruleProtocolVersion, fmt.Errorf("%w: %q: want \"protocol 2 SETS\" (version 2; a version-1 player sends no protocol line)", ErrProtocol, clip([]byte(line))))
	}
	n, ok := parseSetNumber(f[2], MaxSets)
	if !ok {
		return 0, broke(ruleProtocolVersion, fmt.Errorf("%w: %q: SETS %q: want a whole number from 1 to %d", ErrProtocol, clip([]byte(line)), f[2], MaxSets))
	}
	return n, nil
}

// parseSetNumber reads a set number: decimal digits without a sign or a
// leading zero, from 1 to most.
func parseSetNumber[T string | []byte](s T, most int) (int, bool) {
	if len(s) == 0 || len(s) > 2 || s[0] == '0' {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n <= most
}

// FormatSetIn returns the version-2 set line giving set s the values xs
// (see FormatSet).
func FormatSetIn(ps []Param, s int, xs []float64) (string, error) {
	line, err := FormatSet(ps, xs)
	if err != nil {
		return "", err
	}
	return "set " + strconv.Itoa(s) + line[len("set"):], nil
}

// ParseSetIn reads a version-2 set line, "set S NAME=VALUE ...", against
// the declared parameters and a player holding sets sets: S from 1 to
// sets, then what ParseSet wants.
func ParseSetIn(line string, ps []Param, sets int) (int, []float64, error) {
	rest, ok := strings.CutPrefix(line, "set ")
	if !ok {
		return 0, nil, fmt.Errorf("%w: want \"set S NAME=VALUE ...\" (version 2), got %q", ErrProtocol, clip([]byte(line)))
	}
	num, rest, _ := strings.Cut(rest, " ")
	s, ok := parseSetNumber(num, sets)
	if !ok {
		return 0, nil, fmt.Errorf("%w: set: set number %q: want a whole number from 1 to %d (version 2: \"set S NAME=VALUE ...\")", ErrProtocol, clip([]byte(num)), sets)
	}
	xs, err := ParseSet(strings.TrimSuffix("set "+rest, " "), ps)
	if err != nil {
		return 0, nil, err
	}
	return s, xs, nil
}

// AppendMoveIn appends the version-2 move line asking for the boards'
// moves, board i under set sets[i] (without the newline). Like AppendMove
// it grows dst once and writes in place.
func AppendMoveIn(dst []byte, boards []engine.Board, sets []uint8) []byte {
	const width = len(" :0x") + 16
	n := len(dst) + len("move") + width*len(boards)
	for _, s := range sets {
		if n++; s >= 10 {
			n++
		}
	}
	dst = slices.Grow(dst, n-len(dst))
	i := len(dst)
	dst = dst[:n]
	i += copy(dst[i:], "move")
	for k, b := range boards {
		dst[i] = ' '
		i++
		if s := sets[k]; s >= 10 {
			dst[i], dst[i+1] = '0'+s/10, '0'+s%10
			i += 2
		} else {
			dst[i] = '0' + s
			i++
		}
		dst[i], dst[i+1], dst[i+2] = ':', '0', 'x'
		o := dst[i+3 : i+19 : i+19]
		for j := 15; j >= 0; j-- {
			o[j] = hexDigits[b&0xf]
			b >>= 4
		}
		i += 19
	}
	return dst
}

// ParseMoveIn reads a version-2 move line, "move S:B1 ... S:Bk" with k >=
// 1, each S from 1 to sets and each board 0x and 16 hex digits, into
// boards[:0] and ss[:0].
func ParseMoveIn(line []byte, sets int, boards []engine.Board, ss []uint8) ([]engine.Board, []uint8, error) {
	if bs, ss, ok := parseMoveInFast(line, sets, boards, ss); ok {
		return bs, ss, nil
	}
	return parseMoveInSlow(line, sets, boards, ss)
}

// parseMoveInFast reads a well-formed version-2 move line in one pass; ok
// is false for any other line, which parseMoveInSlow reads again to say
// what is wrong.
func parseMoveInFast(line []byte, sets int, boards []engine.Board, ss []uint8) ([]engine.Board, []uint8, bool) {
	if len(line) < len("move ") || string(line[:len("move ")]) != "move " {
		return nil, nil, false
	}
	boards, ss = boards[:0], ss[:0]
	for i := len("move "); ; {
		j := i
		for j < len(line) && j-i < 3 && line[j] != ':' {
			j++
		}
		if j == len(line) || line[j] != ':' || len(line)-j-1 < 18 {
			return nil, nil, false
		}
		s, ok := parseSetNumber(line[i:j], sets)
		if !ok {
			return nil, nil, false
		}
		b, ok := parseHexBoard(line[j+1 : j+19])
		if !ok {
			return nil, nil, false
		}
		boards, ss = append(boards, b), append(ss, uint8(s))
		switch i = j + 19; {
		case i == len(line):
			return boards, ss, true
		case line[i] != ' ' || i+1 == len(line):
			return nil, nil, false
		}
		i++
	}
}

// parseMoveInSlow is ParseMoveIn token by token, saying what is wrong.
func parseMoveInSlow(line []byte, sets int, boards []engine.Board, ss []uint8) ([]engine.Board, []uint8, error) {
	rest, ok := bytes.CutPrefix(line, []byte("move "))
	if !ok {
		return nil, nil, fmt.Errorf("%w: want \"move S:B1 ... S:Bk\" (version 2), got %q", ErrProtocol, clip(line))
	}
	boards, ss = boards[:0], ss[:0]
	for len(rest) > 0 || len(boards) == 0 {
		tok := rest
		if i := bytes.IndexByte(rest, ' '); i >= 0 {
			tok, rest = rest[:i], rest[i+1:]
			if len(rest) == 0 {
				return nil, nil, fmt.Errorf("%w: move: a space ends the line", ErrProtocol)
			}
		} else {
			rest = nil
		}
		num, hex, ok := bytes.Cut(tok, []byte(":"))
		if !ok {
			return nil, nil, fmt.Errorf("%w: move: board %d: %q: want S:B, a set number, ':' and the board (version 2)", ErrProtocol, len(boards)+1, clip(tok))
		}
		s, ok := parseSetNumber(num, sets)
		if !ok {
			return nil, nil, fmt.Errorf("%w: move: board %d: set %q: want a whole number from 1 to %d", ErrProtocol, len(boards)+1, clip(num), sets)
		}
		b, ok := parseHexBoard(hex)
		if !ok {
			return nil, nil, fmt.Errorf("%w: move: board %d: %q: want 0x and 16 hex digits", ErrProtocol, len(boards)+1, clip(hex))
		}
		boards, ss = append(boards, b), append(ss, uint8(s))
	}
	return boards, ss, nil
}
