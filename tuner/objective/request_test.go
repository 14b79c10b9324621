package objective

import (
	"encoding/json"
	"errors"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// parsed returns what parse makes of line: the error text ("" for none),
// the id the answer repeats and the request.
func parsed(line string) (string, string, request) {
	var req request
	err := parse([]byte(line), &req)
	msg := ""
	if err != nil {
		var b *badRequest
		if !errors.As(err, &b) {
			panic("parse returned a " + err.Error())
		}
		msg = b.msg
	}
	return msg, string(req.id), req
}

const p1 = `"params":{"a":1}`

// TestWholeValuedCounts: counts and seeds written as floats (what
// json.dumps writes after float arithmetic) are the whole numbers they
// are; a fraction is refused with the whole numbers that would do.
func TestWholeValuedCounts(t *testing.T) {
	for _, c := range []struct {
		line  string
		games int
		first uint64
		seeds []uint64
		err   string
	}{
		{`{` + p1 + `,"games":8.0,"first":24.0}`, 8, 24, nil, ""},
		{`{` + p1 + `,"games":2e0,"first":0.0}`, 2, 0, nil, ""},
		{`{` + p1 + `,"games":0.8e1,"first":2400E-2}`, 8, 24, nil, ""},
		{`{` + p1 + `,"games":1e5,"first":-0.0}`, 100000, 0, nil, ""},
		{`{` + p1 + `,"games":8,"first":4.6116860184272879e18}`, 8, 4611686018427287900, nil, ""},
		{`{` + p1 + `,"seeds":[1.0,2e0,18446744073709551615.000,1.8446744073709551615e19],"games":4.0}`, 4, 0, []uint64{1, 2, 1<<64 - 1, 1<<64 - 1}, ""},
		{`{` + p1 + `,"games":8.5,"first":0}`, 0, 0, nil, "games: 8.5: not a whole number: want a whole number from 1 to 100000 (write 8 or 9)"},
		{`{` + p1 + `,"games":0.5,"first":0}`, 0, 0, nil, "games: 0.5: not a whole number: want a whole number from 1 to 100000 (write 1)"},
		{`{` + p1 + `,"games":100000.5,"first":0}`, 0, 0, nil, "games: 100000.5: not a whole number: want a whole number from 1 to 100000 (write 100000)"},
		{`{` + p1 + `,"games":1.5e9,"first":0}`, 0, 0, nil, "games: 1.5e9: out of range: want a whole number from 1 to 100000"},
		{`{` + p1 + `,"games":1e-999999999999,"first":0}`, 0, 0, nil, "games: 1e-999999999999: not a whole number: want a whole number from 1 to 100000 (write 1)"},
		{`{` + p1 + `,"games":1e999999999999,"first":0}`, 0, 0, nil, "games: 1e999999999999: out of range: want a whole number from 1 to 100000"},
		{`{` + p1 + `,"games":-8.0,"first":0}`, 0, 0, nil, "games: -8.0: out of range: want a whole number from 1 to 100000"},
		{`{` + p1 + `,"games":-0.5,"first":0}`, 0, 0, nil, "games: -0.5: not a whole number: want a whole number from 1 to 100000"},
		{`{` + p1 + `,"games":"8","first":0}`, 0, 0, nil, `games: "8": want a whole number from 1 to 100000, as a JSON number, not a string`},
		{`{` + p1 + `,"games":4,"first":23.25}`, 0, 0, nil, "first: 23.25: not a whole number: want a whole number from 0 to 4611686018427287904 (write 23 or 24)"},
		{`{` + p1 + `,"games":4,"first":1e30}`, 0, 0, nil, "first: 1e30: out of range: want a whole number from 0 to 4611686018427287904"},
		{`{` + p1 + `,"seeds":[1,2.5]}`, 0, 0, nil, "seeds[1]: 2.5: not a whole number: want an unsigned 64-bit integer"},
		{`{` + p1 + `,"seeds":[1.8446744073709551616e19]}`, 0, 0, nil, "seeds[0]: 1.8446744073709551616e19: out of range: want an unsigned 64-bit integer, from 0 to 18446744073709551615"},
		{`{` + p1 + `,"seeds":[true]}`, 0, 0, nil, "seeds[0]: true: want an unsigned 64-bit integer, as a JSON number, not true or false"},
		{`{` + p1 + `,"seeds":[1,2],"games":2.0}`, 2, 0, []uint64{1, 2}, ""},
		{`{` + p1 + `,"seeds":[1,2],"games":3.0}`, 0, 0, nil, "games: 3, but 2 seeds (leave games out or make them agree)"},
	} {
		msg, _, req := parsed(c.line)
		if msg != c.err {
			t.Errorf("%s: error %q, want %q", c.line, msg, c.err)
			continue
		}
		if c.err == "" && (req.games != c.games || req.first != c.first || !equal([][]uint64{req.seeds}, [][]uint64{c.seeds})) {
			t.Errorf("%s: games %d, first %d, seeds %v", c.line, req.games, req.first, req.seeds)
		}
	}
}

// TestNonFiniteNamed: NaN and the infinities, which Python's json.dumps
// writes by default and JSON does not have, are named where they are,
// with the fix, and the answer repeats the id wherever the line has a
// readable one, before the word or after it.
func TestNonFiniteNamed(t *testing.T) {
	const fix = ": not JSON (JSON has no NaN or Infinity): send finite numbers as strict JSON; " +
		"Python's json.dumps writes NaN and Infinity unless given allow_nan=False, which makes it raise where one arises"
	for _, c := range []struct {
		line, id, err string
	}{
		{`{"id": 7, "x": [NaN]}`, "7", "x[0]: NaN" + fix},
		{`{"params": {"a": NaN, "b": Infinity}, "id": {"trial": 7}}`, `{"trial": 7}`, "params.a: NaN" + fix},
		{`{"id":"t","params":{"a":1},"games":Infinity,"first":0}`, `"t"`, "games: Infinity" + fix},
		{`{"id":3,"params":{"a":-Infinity}}`, "3", "params.a: -Infinity" + fix},
		{`{"id":3,"params":{"a":1},"seeds":[1,NaN]}`, "3", "seeds[1]: NaN" + fix},
		{`{"id":3,"recommend":{"b":[{"c":[0,[NaN]]}]}}`, "3", "recommend.b[0].c[1][0]: NaN" + fix},
		{`{"id":NaN,"params":{"a":1}}`, "", "id: NaN" + fix},
		{`{"id":[1,Infinity],"params":{"a":1}}`, "", "id[1]: Infinity" + fix},
		{`NaN`, "", "NaN" + fix},
		// Strings are strings; the words must stand alone.
		{`{"id":"NaN","params":{"a":"Infinity"}}`, `"NaN"`, `params.a: "Infinity": want a JSON number, not a string`},
		{`{"id":"a\"NaN","params":{"a":xNaN}}`, `"a\"NaN"`, "not a request: invalid character 'x' looking for beginning of value (want one JSON object per line, with keys among id, params, recommend, final, games, first, held_out, seeds)"},
		// A fault of another kind before the word is named instead; the
		// id is repeated all the same where it was read.
		{`{"id":5,"params" {"a":NaN}}`, "5", "not a request: expected colon after object key (want one JSON object per line, with keys among id, params, recommend, final, games, first, held_out, seeds)"},
		// After the word, other faults wait their turn.
		{`{"id":5,"params":{"a":NaN}} {`, "5", "params.a: NaN" + fix},
		{`{"id":5,"params":{"a":NaN`, "5", "params.a: NaN" + fix},
		// Not NaN: lower case, and a NaN preceded by a sign.
		{`{"id":5,"params":{"a":nan}}`, "5", "not a request: invalid character 'a' in literal null (expecting 'u') (want one JSON object per line, with keys among id, params, recommend, final, games, first, held_out, seeds)"},
	} {
		msg, id, _ := parsed(c.line)
		if msg != c.err || id != c.id {
			t.Errorf("%s:\n got id %q, %q\nwant id %q, %q", c.line, id, msg, c.id, c.err)
		}
	}
}

// TestIDOfABrokenLine: an id read before the line breaks is repeated.
func TestIDOfABrokenLine(t *testing.T) {
	for _, line := range []string{`{"id":29,"params":{"a":1}`, `{"id":29,"params":{"a":1}} {}`, `{"id":29 "params":1}`} {
		if msg, id, _ := parsed(line); id != "29" || !strings.HasPrefix(msg, "not a request: ") {
			t.Errorf("%s: id %q, %q", line, id, msg)
		}
	}
	if _, id, _ := parsed(`{"params" "id":29}`); id != "" {
		t.Errorf("id %q read after the break", id)
	}
}

// TestDecimalAgainstBig: the exact reading of a JSON number agrees with
// math/big's on many numbers near the edges: whole or not, the uint64
// it is, and the whole numbers next to it.
func TestDecimalAgainstBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	maxU := new(big.Int).SetUint64(1<<64 - 1)
	digits := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
		return b.String()
	}
	for range 200000 {
		s := ""
		if rng.IntN(4) == 0 {
			s = "-"
		}
		ip := digits(1 + rng.IntN(22))
		ip = strings.TrimLeft(ip, "0")
		if ip == "" {
			ip = "0"
		}
		s += ip
		if rng.IntN(2) == 0 {
			s += "." + digits(1+rng.IntN(6))
			if rng.IntN(2) == 0 {
				s += strings.Repeat("0", rng.IntN(4))
			}
		}
		if rng.IntN(2) == 0 {
			s += [...]string{"e", "E", "e+", "e-"}[rng.IntN(4)] + strconv.Itoa(rng.IntN(25))
		}
		if !json.Valid([]byte(s)) {
			t.Fatalf("made %q, not JSON", s)
		}
		d, ok := readDecimal([]byte(s))
		r, rok := new(big.Rat).SetString(s)
		if !ok || !rok {
			t.Fatalf("%s: read %v, big %v", s, ok, rok)
		}
		if d.whole() != r.IsInt() {
			t.Fatalf("%s: whole %v, big says %v", s, d.whole(), r.IsInt())
		}
		n, fits := d.uint64()
		wantFits := r.IsInt() && r.Sign() >= 0 && r.Num().Cmp(maxU) <= 0
		if fits != wantFits || fits && n != r.Num().Uint64() {
			t.Fatalf("%s: uint64 %d %v, big %v %v", s, n, fits, r.Num(), wantFits)
		}
		floor, ceil, ok := d.around()
		if r.IsInt() || r.Sign() < 0 {
			if ok {
				t.Fatalf("%s: around %d %d for a whole or negative number", s, floor, ceil)
			}
			continue
		}
		f := new(big.Int).Quo(r.Num(), r.Denom())
		if ok != (f.Cmp(maxU) < 0) || ok && (floor != f.Uint64() || ceil != floor+1) {
			t.Fatalf("%s: around %d %d %v, big floor %v", s, floor, ceil, ok, f)
		}
	}
}

// FuzzParse: no line makes parse panic or answer with an id that is not
// one JSON value.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"id":7,"x":[NaN]}`, `{"id":[1,-Infinity]}`, `{"games":8.0,"first":2e0,"params":{"a":1}}`,
		`{"id":"\"NaN","seeds":[1e19,2.5]}`, `{"id":1 NaN`, `NaN NaN`, `{"a":{"b":[Infinity,{"c":NaN}]}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var req request
		parse([]byte(line), &req)
		if req.id != nil && !json.Valid(req.id) {
			t.Errorf("%q: id %q", line, req.id)
		}
	})
}
