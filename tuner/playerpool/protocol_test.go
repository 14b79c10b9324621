package playerpool

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

func TestParseParam(t *testing.T) {
	good := map[string]Param{
		"param empty float 270 -2700 2700": {Name: "empty", Default: 270, Min: -2700, Max: 2700},
		"param depth int 3 1 9":            {Name: "depth", Int: true, Default: 3, Min: 1, Max: 9},
		"param p.x_1 float 0.5 0.5 0.5":    {Name: "p.x_1", Default: 0.5, Min: 0.5, Max: 0.5},
		"param e float 1e3 -1e4 1.5e4":     {Name: "e", Default: 1000, Min: -1e4, Max: 1.5e4},
	}
	for line, want := range good {
		got, err := ParseParam(line)
		if err != nil || got != want {
			t.Errorf("ParseParam(%q) = %+v, %v; want %+v", line, got, err, want)
		}
		if back, err := ParseParam(FormatParam(got)); err != nil || back != got {
			t.Errorf("FormatParam(%+v) = %q reads back as %+v, %v", got, FormatParam(got), back, err)
		}
	}
	bad := map[string]string{
		"param x float 1 2 0":        "min 2 > max 0",
		"param x float NaN 0 2":      "not a finite",
		"param x float 1 -Inf 2":     "not a finite",
		"param x float 3 0 2":        "outside",
		"param x int 1.5 0 2":        "not an integer",
		"param x double 1 0 2":       "want float or int",
		"param x=y float 1 0 2":      "parameter name",
		"param x float 1 0 2 extra":  "want \"param",
		"param  x float 1 0 2":       "want \"param",
		"param x float 0x1p0 0 2":    "not a decimal",
		"param x float 1_000 0 2000": "not a decimal",
	}
	for line, says := range bad {
		if _, err := ParseParam(line); !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), says) {
			t.Errorf("ParseParam(%q): %v, want an ErrProtocol saying %q", line, err, says)
		}
	}
}

func TestParseID(t *testing.T) {
	name, version, err := ParseID("id my-player 1.2 beta (cap 2)")
	if err != nil || name != "my-player" || version != "1.2 beta (cap 2)" {
		t.Errorf("got %q %q %v", name, version, err)
	}
	for _, line := range []string{"id", "id x", "id x ", "id a/b 1", "ID x 1", "idx 1"} {
		if _, _, err := ParseID(line); !errors.Is(err, ErrProtocol) {
			t.Errorf("ParseID(%q): %v, want ErrProtocol", line, err)
		}
	}
}

var testParams = []Param{{Name: "a", Default: 1, Min: -10, Max: 10}, {Name: "n", Int: true, Default: 3, Min: 1, Max: 9}}

func TestSet(t *testing.T) {
	line, err := FormatSet(testParams, []float64{0.1, 2.5})
	if err != nil || line != "set a=0.1 n=3" {
		t.Fatalf("FormatSet = %q, %v", line, err)
	}
	xs, err := ParseSet(line, testParams)
	if err != nil || xs[0] != 0.1 || xs[1] != 3 {
		t.Fatalf("ParseSet(%q) = %v, %v", line, xs, err)
	}
	for _, x := range []float64{math.Pi, -1e-300, 1.0 / 3, 9.999999999999998} {
		line, _ := FormatSet(testParams[:1], []float64{x})
		if xs, err := ParseSet(line, testParams[:1]); err != nil || xs[0] != x {
			t.Errorf("%v: %q reads back as %v, %v", x, line, xs, err)
		}
	}
	if _, err := FormatSet(testParams, []float64{11, 3}); err == nil {
		t.Error("FormatSet took a value out of bounds")
	}
	if _, err := FormatSet(testParams, []float64{math.NaN(), 3}); err == nil {
		t.Error("FormatSet took NaN")
	}
	bad := map[string]string{
		"set a=1":            "n missing",
		"set n=3 a=1":        "declaration order",
		"set a=1 n=3 b=2":    "unknown parameter \"b\"",
		"set a=1 b=3":        "unknown parameter \"b\"",
		"set a=1 n=3.5":      "takes integers",
		"set a=11 n=3":       "outside",
		"set a=NaN n=3":      "not a finite",
		"set a=1 n":          "not NAME=VALUE",
		"set  a=1 n=3":       "not NAME=VALUE",
		"setx a=1":           "want \"set",
		"set a=1 n=3 ":       "not NAME=VALUE",
		"set a=0x10 n=3":     "not a decimal",
		"set a=1e999 n=3":    "not a finite",
		"set a=1\tn=3":       "not a finite",
		"set a=1 n=3\r":      "not a finite",
		"set a=--1 n=3":      "not a finite",
		"set a=1 n=3 n=3":    "unknown parameter",
		"set a=1 a=1 n=3":    "declaration order",
		"set a=+inf n=3":     "not a finite",
		"set a=infinity n=3": "not a finite",
	}
	for line, says := range bad {
		if _, err := ParseSet(line, testParams); !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), says) {
			t.Errorf("ParseSet(%q): %v, want an ErrProtocol saying %q", line, err, says)
		}
	}
	if xs, err := ParseSet("set", nil); err != nil || len(xs) != 0 {
		t.Errorf("ParseSet(\"set\") without parameters: %v, %v", xs, err)
	}
}

func TestMoveAndBest(t *testing.T) {
	boards := []engine.Board{0x0000000000000011, 0xfedcba9876543210, 0x1000000000000001}
	line := AppendMove(nil, boards)
	if string(line) != "move 0x0000000000000011 0xfedcba9876543210 0x1000000000000001" {
		t.Fatalf("AppendMove = %q", line)
	}
	got, err := ParseMove(line, nil)
	if err != nil || len(got) != 3 || got[0] != boards[0] || got[1] != boards[1] || got[2] != boards[2] {
		t.Fatalf("ParseMove = %v, %v", got, err)
	}
	if got, err := ParseMove([]byte("move 0xABCDEF0000000000"), nil); err != nil || got[0] != 0xabcdef0000000000 {
		t.Errorf("upper-case hex: %v, %v", got, err)
	}
	for _, line := range []string{"move", "move ", "move 0x11", "move 11", "move 0x00000000000000111", "move 0x000000000000001g",
		"move 0x0000000000000011 ", "move  0x0000000000000011", "moves 0x0000000000000011", "move 0X0000000000000011"} {
		if _, err := ParseMove([]byte(line), nil); !errors.Is(err, ErrProtocol) {
			t.Errorf("ParseMove(%q): %v, want ErrProtocol", line, err)
		}
	}
	dirs := []engine.Dir{engine.Up, engine.Down, engine.Left, engine.Right}
	best := AppendBest(nil, dirs)
	if string(best) != "best up down left right" {
		t.Fatalf("AppendBest = %q", best)
	}
	if got, err := ParseBest(best, 4, nil); err != nil || len(got) != 4 || got[3] != engine.Right {
		t.Fatalf("ParseBest = %v, %v", got, err)
	}
	for _, line := range []string{"best up down", "best up down left right up", "best", "best ", "best up  down left right",
		"best up down left Right", "best up down left right ", "bestup down left right", "ok"} {
		if _, err := ParseBest([]byte(line), 4, nil); !errors.Is(err, ErrProtocol) {
			t.Errorf("ParseBest(%q): %v, want ErrProtocol", line, err)
		}
	}
	if text, ok := ParseError([]byte("error bad board 3")); !ok || text != "bad board 3" {
		t.Errorf("ParseError: %q %v", text, ok)
	}
	if _, ok := ParseError([]byte("errors")); ok {
		t.Error("ParseError took \"errors\"")
	}
}

// TestMoveAllocs: the hot path of a move request, written and read on both
// sides, does not allocate once its buffers have grown.
func TestMoveAllocs(t *testing.T) {
	boards := []engine.Board{0x11, 0x1234, 0x10001}
	var (
		line []byte
		bs   []engine.Board
		ds   = []engine.Dir{engine.Up, engine.Left, engine.Right}
		best []byte
		got  []engine.Dir
	)
	sets := []uint8{1, 16, 3}
	var ss []uint8
	allocs := testing.AllocsPerRun(100, func() {
		line = AppendMove(line[:0], boards)
		bs, _ = ParseMove(line, bs)
		line = AppendMoveIn(line[:0], boards, sets)
		bs, ss, _ = ParseMoveIn(line, 16, bs, ss)
		best = AppendBest(best[:0], ds)
		got, _ = ParseBest(best, 3, got)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per request", allocs)
	}
}

// TestServe speaks to the built-in player through Serve in memory: the
// handshake, set, move, errors that do not end the session, and quit.
func TestServe(t *testing.T) {
	sp, err := NewSearchPlayer(must(eval.Set("standard")), standardSearch(2), nil)
	if err != nil {
		t.Fatal(err)
	}
	b := engine.Board(0x0000000000001011)
	want := must(engine.NewSearcher(must(eval.Set("standard")).Default(), standardSearch(2))).Move(b)
	in := strings.Join([]string{
		Hello,
		"set monotonicity=47 smoothness=11 empty=270 corner=100 merge=70",
		"move " + b.Hex(),
		"move 0x0000000000000000",
		"set monotonicity=47",
		"hello",
		"move " + b.Hex() + " " + b.Hex(),
		"quit",
		"move " + b.Hex(),
	}, "\n") + "\n"
	var out strings.Builder
	if err := Serve(context.Background(), strings.NewReader(in), &out, VersionOne(sp)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if !strings.HasPrefix(lines[0], "id evotune-standard ") || lines[1] != "param monotonicity float 47 -470 470" || lines[6] != "ready" {
		t.Errorf("handshake:\n%s", strings.Join(lines[:7], "\n"))
	}
	replies := lines[7:]
	wantReplies := []string{"ok", "best " + want.String(), "error board 1 (0x0000000000000000) has no legal move",
		"error set: parameter smoothness missing", `error unknown request "hello" (want set, move or quit)`,
		"best " + want.String() + " " + want.String()}
	if strings.Join(replies, "\n") != strings.Join(wantReplies, "\n") {
		t.Errorf("replies:\n%s\nwant:\n%s", strings.Join(replies, "\n"), strings.Join(wantReplies, "\n"))
	}
	if err := Serve(context.Background(), strings.NewReader("evotune-player 2\n"), &out, sp); !errors.Is(err, ErrProtocol) {
		t.Errorf("another version: %v", err)
	}
}

// TestServeSets speaks version 2 to the built-in player: the protocol
// line, numbered sets, a request mixing two sets that gives each board the
// move of its set alone, and the errors of bad set numbers, which do not
// end the session.
func TestServeSets(t *testing.T) {
	set := must(eval.Set("standard"))
	sp, err := NewSearchPlayer(set, standardSearch(2), nil)
	if err != nil {
		t.Fatal(err)
	}
	other := []float64{-30, 11, 270, 100, 300}
	moveOf := func(v []float64, b engine.Board) engine.Dir {
		e := must(set.CompileVector(v))
		return must(engine.NewSearcher(e, standardSearch(2))).Move(b)
	}
	// Boards where the two sets disagree, so that a mixed-up set shows.
	var boards []engine.Board
	rng := rand.New(rand.NewPCG(1, 2))
	for len(boards) < 6 {
		b := randomBoard(rng)
		if b.CanMove() && moveOf(set.DefaultVector(), b) != moveOf(other, b) {
			boards = append(boards, b)
		}
	}
	req, want := "move", "best"
	for i, b := range boards {
		v, n := set.DefaultVector(), 1+i%2*15
		if n != 1 {
			v = other
		}
		req += fmt.Sprintf(" %d:%s", n, b.Hex())
		want += " " + moveOf(v, b).String()
	}
	in := strings.Join([]string{
		Hello,
		"set 1 monotonicity=47 smoothness=11 empty=270 corner=100 merge=70",
		"move 16:" + boards[0].Hex(),
		"set 16 monotonicity=-30 smoothness=11 empty=270 corner=100 merge=300",
		req,
		"set 17 monotonicity=47 smoothness=11 empty=270 corner=100 merge=70",
		"set 01 monotonicity=47 smoothness=11 empty=270 corner=100 merge=70",
		"move " + boards[0].Hex(),
		"move 0:" + boards[0].Hex(),
		"move 1:" + boards[0].Hex() + " 2:" + boards[1].Hex(),
		"set monotonicity=47 smoothness=11 empty=270 corner=100 merge=70",
		"quit",
	}, "\n") + "\n"
	var out strings.Builder
	if err := Serve(context.Background(), strings.NewReader(in), &out, sp); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if lines[1] != FormatProtocol(DefaultSets) || lines[7] != "ready" {
		t.Errorf("handshake:\n%s", strings.Join(lines[:8], "\n"))
	}
	wantReplies := []string{
		"ok",
		"error board 1: set 16 was given no values (send set 16 NAME=VALUE ... first)",
		"ok",
		want,
		`error set: set number "17": want a whole number from 1 to 16 (version 2: "set S NAME=VALUE ...")`,
		`error set: set number "01": want a whole number from 1 to 16 (version 2: "set S NAME=VALUE ...")`,
		`error move: board 1: "` + boards[0].Hex() + `": want S:B, a set number, ':' and the board (version 2)`,
		`error move: board 1: set "0": want a whole number from 1 to 16`,
		"error board 2: set 2 was given no values (send set 2 NAME=VALUE ... first)",
		`error set: set number "monotonicity=47": want a whole number from 1 to 16 (version 2: "set S NAME=VALUE ...")`,
	}
	if got := strings.Join(lines[8:], "\n"); got != strings.Join(wantReplies, "\n") {
		t.Errorf("replies:\n%s\nwant:\n%s", got, strings.Join(wantReplies, "\n"))
	}
}

// randomBoard returns a board of up to 12 tiles of ranks 1 to 11.
func randomBoard(rng *rand.Rand) engine.Board {
	var b engine.Board
	for range 4 + rng.IntN(9) {
		b |= engine.Board(1+rng.IntN(11)) << (4 * rng.IntN(16))
	}
	return b
}

// TestProtocolLine: the handshake's protocol line, its bounds and its
// place.
func TestProtocolLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		sets int
	}{{"protocol 2 1", 1}, {"protocol 2 64", 64}, {"protocol 2 65", 0}, {"protocol 2 0", 0}, {"protocol 1 4", 0},
		{"protocol 3 4", 0}, {"protocol 2 04", 0}, {"protocol 2  4", 0}, {"protocol 2", 0}, {"protocol 2 4 ", 0}, {"protocol 2 -4", 0}} {
		n, err := ParseProtocol(tc.line)
		if n != tc.sets || (err == nil) != (tc.sets > 0) {
			t.Errorf("%q: %d %v, want %d", tc.line, n, err, tc.sets)
		}
		if err != nil && ruleOf(err) != ruleProtocolVersion {
			t.Errorf("%q: %v breaks rule %d", tc.line, err, ruleOf(err))
		}
	}
}

func FuzzProtocol(f *testing.F) {
	for _, s := range []string{"set a=1 n=3", "move 0x0000000000000011", "best up", "param x float 1 0 2", "id x 1", "error x",
		"best up down left right", "best ", "best up ", "best upp", "best u", "best  up", "best rightx", "best lef",
		"protocol 2 16", "set 3 a=1 n=3", "move 1:0x0000000000000011 12:0x00000000000000ab", "move 01:0x0000000000000011",
		"move 64:0x0000000000000011", "move 65:0x0000000000000011", "move 1:0x0000000000000011 ", "move 1:0x00000000000000111", "move :0x0000000000000011", "move 123:0x0000000000000011"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if xs, err := ParseSet(line, testParams); err == nil {
			back, err := FormatSet(testParams, xs)
			if err != nil {
				t.Fatalf("%q parses to %v, which FormatSet refuses: %v", line, xs, err)
			}
			if again, err := ParseSet(back, testParams); err != nil || again[0] != xs[0] || again[1] != xs[1] {
				t.Fatalf("%q: %v, written %q, reads back %v %v", line, xs, back, again, err)
			}
		}
		if bs, err := ParseMove([]byte(line), nil); err == nil {
			if back := AppendMove(nil, bs); !strings.EqualFold(string(back), line) {
				t.Fatalf("%q parses to boards written %q", line, back)
			}
		}
		k := strings.Count(line, " ")
		fast, ok := parseBestFast([]byte(line), k, nil)
		slow, err := parseBestSlow([]byte(line), k, nil)
		if ok != (err == nil) || ok && !slices.Equal(fast, slow) {
			t.Fatalf("%q: read in one pass %v %v, token by token %v %v", line, fast, ok, slow, err)
		}
		if ds, err := ParseBest([]byte(line), k, nil); err == nil {
			if back := AppendBest(nil, ds); string(back) != line {
				t.Fatalf("%q parses to moves written %q", line, back)
			}
		}
		if p, err := ParseParam(line); err == nil {
			if back, err := ParseParam(FormatParam(p)); err != nil || back != p {
				t.Fatalf("%q: %+v, written %q, reads back %+v %v", line, p, FormatParam(p), back, err)
			}
		}
		fb, fs, ok := parseMoveInFast([]byte(line), MaxSets, nil, nil)
		sb, ss2, err := parseMoveInSlow([]byte(line), MaxSets, nil, nil)
		if ok != (err == nil) || ok && (!slices.Equal(fb, sb) || !slices.Equal(fs, ss2)) {
			t.Fatalf("%q: read in one pass %v %v %v, token by token %v %v %v", line, fb, fs, ok, sb, ss2, err)
		}
		if bs, ss, err := ParseMoveIn([]byte(line), MaxSets, nil, nil); err == nil {
			if back := AppendMoveIn(nil, bs, ss); !strings.EqualFold(string(back), line) {
				t.Fatalf("%q parses to boards written %q", line, back)
			}
		}
		if n, xs, err := ParseSetIn(line, testParams, MaxSets); err == nil {
			back, err := FormatSetIn(testParams, n, xs)
			if err != nil {
				t.Fatalf("%q parses to set %d %v, which FormatSetIn refuses: %v", line, n, xs, err)
			}
			if m, again, err := ParseSetIn(back, testParams, MaxSets); err != nil || m != n || !slices.Equal(again, xs) {
				t.Fatalf("%q: set %d %v, written %q, reads back %d %v %v", line, n, xs, back, m, again, err)
			}
		}
		if n, err := ParseProtocol(line); err == nil && FormatProtocol(n) != line {
			t.Fatalf("%q parses to %d sets, written %q", line, n, FormatProtocol(n))
		}
		ParseID(line)
		ParseError([]byte(line))
		SplitPOSIX(line)
		SplitWindows(line)
	})
}

// TestSearchPlayerBounds: the weights' bounds are WeightBound times their
// defaults, a zero default borrowing the largest, and the shape
// parameters keep the set's own.
func TestSearchPlayerBounds(t *testing.T) {
	for _, name := range eval.Names() {
		set := must(eval.Set(name))
		sp, err := NewSearchPlayer(set, standardSearch(2), nil)
		if err != nil {
			t.Fatal(err)
		}
		ps := sp.Params()
		if len(ps) != len(set.VectorNames()) {
			t.Fatalf("%s: %d params", name, len(ps))
		}
		for i, p := range ps {
			if i < len(set.Features) {
				if d := set.Defaults[i]; d != 0 && p.Max != WeightBound*math.Abs(d) || p.Min != -p.Max {
					t.Errorf("%s: %+v", name, p)
				}
			} else if q := set.Params[i-len(set.Features)]; p.Min != q.Min || p.Max != q.Max || p.Default != q.Default {
				t.Errorf("%s: %+v, set has %+v", name, p, q)
			}
		}
	}
}

// BenchmarkMoveLine writes and reads a move request of 64 boards, in
// version 1 and in version 2 (boards under sets 1 to 16): what a request
// costs the two sides' codecs.
func BenchmarkMoveLine(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	boards := make([]engine.Board, 64)
	sets := make([]uint8, 64)
	for i := range boards {
		boards[i] = engine.Board(rng.Uint64())
		sets[i] = uint8(1 + i%16)
	}
	var (
		line []byte
		bs   []engine.Board
		ss   []uint8
	)
	b.Run("protocol=1", func(b *testing.B) {
		for b.Loop() {
			line = AppendMove(line[:0], boards)
			bs, _ = ParseMove(line, bs)
		}
	})
	b.Run("protocol=2", func(b *testing.B) {
		for b.Loop() {
			line = AppendMoveIn(line[:0], boards, sets)
			bs, ss, _ = ParseMoveIn(line, 16, bs, ss)
		}
	})
}
