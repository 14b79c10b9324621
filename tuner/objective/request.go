package objective

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// A request is a line an optimizer sends, read and checked as far as it
// can be without the problem: its parameter values are checked by
// Problem.vector.
type request struct {
	id        json.RawMessage
	params    []value // nil without params
	recommend []value // nil without recommend
	final     bool
	games     int
	first     uint64
	heldOut   bool
	seeds     []uint64 // nil: games from first on
}

// keys are a request's keys, in the order parse checks them.
var keys = []string{"id", "params", "recommend", "final", "games", "first", "held_out", "seeds"}

// A member is a key of a JSON object and its value, as written.
type member struct {
	key string
	raw json.RawMessage
}

// members reads data as one JSON object and returns its members in order.
// A key given twice is an error (JSON leaves it open, and a decoder that
// keeps the last value would play it silently). An error comes with the
// members read before it, so that an error line can carry the id of a
// line that is broken after it.
func members(data []byte) ([]member, error) {
	ms, err := readMembers(data)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = errors.New("the line ends inside the JSON object")
	}
	return ms, err
}

func readMembers(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("%s is not a JSON object", clip(data))
	}
	var ms []member
	dup := ""
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return ms, err
		}
		key, _ := tok.(string) // the decoder allows nothing else here
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return ms, err
		}
		if dup == "" && slices.ContainsFunc(ms, func(m member) bool { return m.key == key }) {
			dup = key
		}
		ms = append(ms, member{key, raw})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return ms, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return ms, errors.New("more than one JSON value on the line")
	}
	if dup != "" {
		return ms, &dupError{dup}
	}
	return ms, nil
}

// A dupError is a key given twice in an object.
type dupError struct{ key string }

func (e *dupError) Error() string { return e.key + ": given twice" }

// parse reads a request line into req: nil or a *badRequest naming the
// first problem, in a fixed order (the line's structure, unknown keys in
// the order written, then keys in the order of keys and parameters in the
// problem's), so that the same line always gets the same error.
func parse(data []byte, req *request) error {
	ms, err := members(data)
	for _, m := range ms {
		if m.key == "id" {
			req.id = m.raw // every error line that can carry the id does
		}
	}
	var dup *dupError
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &dup):
		return bad("%v", err)
	case errors.As(err, &syntax):
		if nf, ok := findNonFinite(data); ok {
			req.id = nf.id
			where := ""
			if nf.path != "" {
				where = nf.path + ": "
			}
			return bad("%s%s: not JSON (JSON has no NaN or Infinity): send finite numbers as strict JSON; "+
				"Python's json.dumps writes NaN and Infinity unless given allow_nan=False, which makes it raise where one arises", where, nf.word)
		}
		fallthrough
	case err != nil:
		return bad("not a request: %v (want one JSON object per line, with keys among %s)", err, strings.Join(keys, ", "))
	}
	for _, m := range ms {
		if !slices.Contains(keys, m.key) {
			return bad("%s: unknown key (keys: %s)", m.key, strings.Join(keys, ", "))
		}
	}
	get := func(key string) json.RawMessage {
		i := slices.IndexFunc(ms, func(m member) bool { return m.key == key })
		if i < 0 {
			return nil
		}
		return ms[i].raw
	}
	if req.params, err = values("params", get("params")); err != nil {
		return err
	}
	if req.recommend, err = values("recommend", get("recommend")); err != nil {
		return err
	}
	if req.final, err = boolean("final", get("final")); err != nil {
		return err
	}
	if req.heldOut, err = boolean("held_out", get("held_out")); err != nil {
		return err
	}
	games, first, seeds := get("games"), get("first"), get("seeds")
	if req.recommend != nil {
		if req.params != nil {
			return bad("recommend: a line either recommends or asks for games (params), not both")
		}
		for _, k := range []string{"games", "first", "held_out", "seeds"} {
			if get(k) != nil {
				return bad("%s: goes with params, not with recommend", k)
			}
		}
		return nil
	}
	if get("final") != nil {
		return bad("final: goes with recommend")
	}
	if req.params == nil {
		return bad("want params (every free parameter by name) or recommend")
	}
	if games != nil {
		n, err := wholeIn("games", games, 1, MaxGames)
		if err != nil {
			return err
		}
		req.games = int(n)
	}
	switch {
	case seeds != nil && first != nil:
		return bad("seeds and first: give one (seeds: the game seeds; first: the first game of the stream or, with held_out, of the held-out block)")
	case seeds != nil:
		if get("held_out") != nil {
			return bad("held_out: goes with first and games (seeds name their games themselves)")
		}
		if req.seeds, err = seedList(seeds); err != nil {
			return err
		}
		if games != nil && req.games != len(req.seeds) {
			return bad("games: %d, but %d seeds (leave games out or make them agree)", req.games, len(req.seeds))
		}
	case first != nil:
		if req.first, err = wholeIn("first", first, 0, MaxFirst); err != nil {
			return err
		}
		if games == nil {
			return bad("first: wants games, the number of games from first on")
		}
	default:
		return bad("want the games to play: first and games (games first..first+games-1 of the stream, or with held_out of the held-out block) or seeds (a list of game seeds)")
	}
	return nil
}

// values reads a params or recommend object: nil if raw is; each value a
// JSON number, no name twice.
func values(key string, raw json.RawMessage) ([]value, error) {
	if raw == nil {
		return nil, nil
	}
	if raw[0] != '{' {
		return nil, bad("%s: %s: want an object of parameter values by name", key, clip(raw))
	}
	ms, err := members(raw)
	if err != nil {
		return nil, bad("%s.%v", key, err) // raw is valid JSON: only a duplicate
	}
	vs := make([]value, 0, len(ms))
	for _, m := range ms {
		x, err := number(m.raw)
		if err != nil {
			return nil, bad("%s.%s: %s: %v", key, m.key, clip(m.raw), err)
		}
		vs = append(vs, value{name: m.key, raw: clip(m.raw), x: x})
	}
	return vs, nil
}

// number reads a JSON number: a number, not a string holding one, and
// finite (1e999 is a number JSON allows and no float64 holds).
func number(raw json.RawMessage) (float64, error) {
	if !isNumber(raw) {
		return 0, fmt.Errorf("want a JSON number, not %s", kindOf(raw))
	}
	x, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsInf(x, 0) {
		return 0, errors.New("want a finite number")
	}
	return x, nil
}

// seedList reads seeds: a list of 1 to MaxGames unsigned 64-bit integers,
// whole-valued numbers such as 3.0 or 3e0 among them.
func seedList(raw json.RawMessage) ([]uint64, error) {
	var list []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &list) != nil {
		return nil, bad("seeds: %s: want a list of game seeds", clip(raw))
	}
	if len(list) == 0 || len(list) > MaxGames {
		return nil, bad("seeds: %d seeds: want 1 to %d", len(list), MaxGames)
	}
	seeds := make([]uint64, len(list))
	for i, r := range list {
		d, ok := readDecimal(r)
		switch {
		case !ok:
			return nil, bad("seeds[%d]: %s: want an unsigned 64-bit integer, as a JSON number, not %s", i, clip(r), kindOf(r))
		case !d.whole():
			// No "write 2 or 3" here: a seed names a game, and the
			// optimizer's bug is whatever made a fraction of one.
			return nil, bad("seeds[%d]: %s: not a whole number: want an unsigned 64-bit integer", i, clip(r))
		}
		var fits bool
		if seeds[i], fits = d.uint64(); !fits {
			return nil, bad("seeds[%d]: %s: out of range: want an unsigned 64-bit integer, from 0 to %d", i, clip(r), uint64(math.MaxUint64))
		}
	}
	return seeds, nil
}

// boolean reads true or false; false if raw is nil.
func boolean(key string, raw json.RawMessage) (bool, error) {
	switch string(raw) {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	}
	return false, bad("%s: %s: want true or false", key, clip(raw))
}

// isNumber reports whether raw, a JSON value, is a number.
func isNumber(raw []byte) bool {
	return len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9')
}

// kindOf names the kind of a JSON value that is not a number.
func kindOf(raw []byte) string {
	switch raw[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "a list"
	case 't', 'f':
		return "true or false"
	}
	return "null"
}

// clip shortens a value quoted in an error.
func clip(raw []byte) string {
	const most = 40
	if len(raw) <= most {
		return string(raw)
	}
	return string(raw[:most]) + "..."
}
