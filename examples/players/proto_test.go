package players_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/internal/proctest"
)

// replyTimeout bounds every wait for a line, so that a hung player fails the
// test instead of hanging it.
const replyTimeout = 30 * time.Second

// param is one declared parameter: param NAME float|int DEFAULT MIN MAX.
type param struct {
	name, kind    string
	def, min, max float64
	defText       string
}

// proc is a player child process and the test's end of its pipes.
type proc struct {
	t      testing.TB
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan string // the player's stdout, line by line; closed at EOF
	stderr *proctest.LockedBuffer
	done   chan error // the process's exit, once
	id     string
	sets   int // protocol 2: the parameter sets the player holds; 0 in version 1
	params []param
}

// start runs argv and finishes the handshake, checking the declarations.
func start(t testing.TB, argv ...string) *proc {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	p := &proc{t: t, cmd: cmd, stderr: &proctest.LockedBuffer{}, lines: make(chan string, 16), done: make(chan error, 1)}
	cmd.Stderr = p.stderr
	var err error
	if p.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %q: %v", argv, err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
		p.done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		cancel() // kills the player if a test failed before quit
		p.in.Close()
	})
	p.handshake()
	return p
}

// send writes one line to the player.
func (p *proc) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("write %q: %v; stderr:\n%s", line, err, p.stderr)
	}
}

// recv returns the next line that is not a comment.
func (p *proc) recv() string {
	p.t.Helper()
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("player closed its output; stderr:\n%s", p.stderr)
			}
			if strings.HasPrefix(line, "#") {
				continue
			}
			return line
		case <-time.After(replyTimeout):
			p.t.Fatalf("no reply in %v; stderr:\n%s", replyTimeout, p.stderr)
		}
	}
}

var (
	nameRE     = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)
	idRE       = regexp.MustCompile(`^id ([A-Za-z0-9._-]+) (.+)$`)
	protocolRE = regexp.MustCompile(`^protocol 2 ([1-9][0-9]?)$`)
)

// handshake sends the protocol line and reads id, the optional `protocol 2
// SETS` of version 2 (right after id, SETS from 1 to 64), params and ready,
// checking each declaration: a valid unique name, a type, finite numbers,
// MIN <= DEFAULT <= MAX, and integers for an int.
func (p *proc) handshake() {
	t := p.t
	t.Helper()
	p.send("evotune-player 1")
	m := idRE.FindStringSubmatch(p.recv())
	if m == nil {
		t.Fatalf("first reply is not 'id NAME VERSION'")
	}
	p.id = m[1] + " " + m[2]
	line := p.recv()
	if strings.HasPrefix(line, "protocol ") {
		m := protocolRE.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("%q after id: want 'protocol 2 SETS', SETS from 1 to 64", line)
		}
		if p.sets, _ = strconv.Atoi(m[1]); p.sets > 64 {
			t.Fatalf("%q: SETS above 64", line)
		}
		line = p.recv()
	}
	seen := map[string]bool{}
	for ; ; line = p.recv() {
		if line == "ready" {
			return
		}
		f := strings.Split(line, " ")
		if len(f) != 6 || f[0] != "param" {
			t.Fatalf("handshake: %q is neither 'param NAME TYPE DEFAULT MIN MAX' nor ready", line)
		}
		q := param{name: f[1], kind: f[2], defText: f[3]}
		if !nameRE.MatchString(q.name) || seen[q.name] {
			t.Errorf("%q: bad or repeated name", line)
		}
		seen[q.name] = true
		if q.kind != "float" && q.kind != "int" {
			t.Errorf("%q: type %q", line, q.kind)
		}
		for i, dst := range []*float64{&q.def, &q.min, &q.max} {
			v, err := strconv.ParseFloat(f[3+i], 64)
			if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
				t.Errorf("%q: %q is not a finite decimal", line, f[3+i])
			}
			if q.kind == "int" && v != math.Trunc(v) {
				t.Errorf("%q: %q is not an integer", line, f[3+i])
			}
			*dst = v
		}
		if !(q.min <= q.def && q.def <= q.max) {
			t.Errorf("%q: want MIN <= DEFAULT <= MAX", line)
		}
		p.params = append(p.params, q)
	}
}

// set sends a set line with the values given by name, the defaults for the
// others, and returns the reply.
func (p *proc) set(values map[string]string) string {
	p.t.Helper()
	p.send("set" + p.assignments(values))
	return p.recv()
}

// setIn sends protocol 2's "set S NAME=VALUE ...": the values as for set,
// given to the set numbered s. It returns the reply.
func (p *proc) setIn(s int, values map[string]string) string {
	p.t.Helper()
	p.send("set " + strconv.Itoa(s) + p.assignments(values))
	return p.recv()
}

// assignments returns " NAME=VALUE ..." for every declared parameter in
// order, from values or the default, then the names values has that were not
// declared.
func (p *proc) assignments(values map[string]string) string {
	var b strings.Builder
	for _, q := range p.params {
		v, ok := values[q.name]
		if !ok {
			v = q.defText
		}
		fmt.Fprintf(&b, " %s=%s", q.name, v)
	}
	for name, v := range values { // unknown names, for the error checks
		if !p.declared(name) {
			fmt.Fprintf(&b, " %s=%s", name, v)
		}
	}
	return b.String()
}

func (p *proc) declared(name string) bool {
	for _, q := range p.params {
		if q.name == name {
			return true
		}
	}
	return false
}

// moves asks for the boards in requests of at most k boards and returns the
// answers in the boards' order, failing on a reply that is not one legal
// move per board.
func (p *proc) moves(boards []engine.Board, k int) []engine.Dir {
	p.t.Helper()
	return p.movesIn(nil, boards, k)
}

// movesIn is moves in protocol 2's form when sets is not nil: each board
// named with the set of the same index ("move S:0x... S:0x...").
func (p *proc) movesIn(sets []int, boards []engine.Board, k int) []engine.Dir {
	t := p.t
	t.Helper()
	out := make([]engine.Dir, 0, len(boards))
	for len(boards) > 0 {
		n := min(k, len(boards))
		var req strings.Builder
		req.WriteString("move")
		for i, b := range boards[:n] {
			req.WriteByte(' ')
			if sets != nil {
				req.WriteString(strconv.Itoa(sets[i]) + ":")
			}
			req.WriteString(b.Hex())
		}
		p.send(req.String())
		reply := p.recv()
		f := strings.Split(reply, " ")
		if f[0] != "best" || len(f) != n+1 {
			t.Fatalf("%d boards: reply %q", n, reply)
		}
		for i, name := range f[1:] {
			d, ok := dirs[name]
			if !ok {
				t.Fatalf("reply %q: %q is not a direction", reply, name)
			}
			if _, _, legal := boards[i].Move(d); !legal {
				t.Fatalf("board %s: answered %v, an illegal move", boards[i].Hex(), d)
			}
			out = append(out, d)
		}
		boards = boards[n:]
		if sets != nil {
			sets = sets[n:]
		}
	}
	return out
}

var dirs = map[string]engine.Dir{"up": engine.Up, "down": engine.Down, "left": engine.Left, "right": engine.Right}

// quit ends the session and requires a prompt exit with status 0.
func (p *proc) quit() {
	p.t.Helper()
	p.send("quit")
	select {
	case err := <-p.done:
		if err != nil {
			p.t.Fatalf("after quit: %v; stderr:\n%s", err, p.stderr)
		}
	case <-time.After(5 * time.Second):
		p.t.Fatalf("still running 5 s after quit")
	}
}

// checkProtocol runs the checks every player must pass: defaults accepted,
// legal moves on every board, the same answers in another batching and
// order, errors for an unknown, an out-of-range, a non-finite and a
// fractional int parameter (and the defaults still in place afterwards), a board without a legal move refused. It returns the moves
// with the defaults.
func checkProtocol(t *testing.T, p *proc, boards []engine.Board) []engine.Dir {
	t.Helper()
	if r := p.set(nil); r != "ok" {
		t.Fatalf("set with the defaults: %q", r)
	}
	first := p.moves(boards, 16)

	// Again, backwards and in batches of 7 (first a few single boards).
	rev := make([]engine.Board, len(boards))
	for i, b := range boards {
		rev[len(boards)-1-i] = b
	}
	again := append(p.moves(rev[:3], 1), p.moves(rev[3:], 7)...)
	for i, d := range again {
		j := len(boards) - 1 - i
		if d != first[j] {
			t.Errorf("board %s: %v, then %v when asked in another batch and order", boards[j].Hex(), first[j], d)
		}
	}

	if r := p.set(map[string]string{"no_such_parameter": "1"}); !strings.HasPrefix(r, "error ") {
		t.Errorf("set with an unknown parameter: %q, want error", r)
	}
	q := p.params[0]
	if r := p.set(map[string]string{q.name: strconv.FormatFloat(q.max+1, 'g', -1, 64)}); !strings.HasPrefix(r, "error ") {
		t.Errorf("set %s above its MAX: %q, want error", q.name, r)
	}
	if r := p.set(map[string]string{q.name: "nan"}); !strings.HasPrefix(r, "error ") {
		t.Errorf("set %s=nan: %q, want error", q.name, r)
	}
	for _, q := range p.params {
		if q.kind == "int" && q.min < q.max {
			if r := p.set(map[string]string{q.name: strconv.FormatFloat(q.min+0.5, 'g', -1, 64)}); !strings.HasPrefix(r, "error ") {
				t.Errorf("set int %s to %v: %q, want error", q.name, q.min+0.5, r)
			}
		}
	}
	p.send("move " + deadBoard.Hex())
	if r := p.recv(); !strings.HasPrefix(r, "error ") {
		t.Errorf("move on a board with no legal move: %q, want error", r)
	}
	// The errors left the defaults in place: the same moves as before.
	if r := p.set(nil); r != "ok" {
		t.Fatalf("set with the defaults after the errors: %q", r)
	}
	for i, d := range p.moves(boards[:20], 20) {
		if d != first[i] {
			t.Errorf("board %s: %v, then %v after the rejected sets", boards[i].Hex(), first[i], d)
		}
	}
	return first
}

// deadBoard has no legal move: 2 4 2 4 / 4 2 4 2 / ...
var deadBoard = engine.Board(0x1212212112122121)

// testBoards returns n boards from seeded games of a quick in-process player
// (expectimax at 2 plies over the standard set), taken at every stage of
// the games, plus boards where two 32768 tiles meet (which do not merge).
func testBoards(t testing.TB, n int) []engine.Board {
	t.Helper()
	e, err := eval.Lookup("standard")
	if err != nil {
		t.Fatal(err)
	}
	s, err := engine.NewSearcher(e, engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 2})
	if err != nil {
		t.Fatal(err)
	}
	var boards []engine.Board
	for seed := uint64(1); len(boards) < n; seed++ {
		rng := engine.NewGameRand(seed)
		b := engine.NewGameBoard(rng)
		for i := 0; b.CanMove(); i++ {
			if i%23 == 7 && len(boards) < n {
				boards = append(boards, b)
			}
			b, _, _ = b.Move(s.Move(b))
			b = b.Spawn(rng.Uint64())
		}
	}
	for _, g := range []string{
		// Two 32768 tiles side by side: sliding toward them merges them in
		// nneonneo/2048-ai, not by these rules, where only down and right
		// are legal.
		"32768 32768 2 4/2 4 8 16/4 8 16 32/8 16 32 0",
		"32768 32768 0 0/0 0 0 0/0 0 0 0/0 0 0 0",
		"2 4 8 16/32768 32768 4 2/2 4 8 16/4 8 16 0",
		"32768 2 4 8/32768 4 8 16/2 8 16 32/4 16 32 0",
	} {
		b, err := engine.ParseBoard(g)
		if err != nil {
			t.Fatal(err)
		}
		if !b.CanMove() {
			t.Fatalf("test board %s has no legal move", g)
		}
		boards = append(boards, b)
	}
	return boards
}

// A badLine is a line a player must answer with error, and what it tests.
type badLine struct{ what, line string }

// checkV2Errors sends every kind of bad line to p, a version-2 session
// holding sets sets, then the player's own bad lines, extra: each must be
// answered with one error line, after which a good request gets the same
// move as before it (so nothing else was sent, and set 1 kept its values:
// the boards asked are those where set 1, given tuned, and set 3, given
// the defaults, play differently). Then sets that failed can still be
// given, up to sets. It ends the session.
func checkV2Errors(t *testing.T, p *proc, sets int, tuned map[string]string, extra []badLine) {
	t.Helper()
	if r := p.setIn(1, tuned); r != "ok" {
		t.Fatalf("set 1: %q", r)
	}
	if r := p.setIn(3, nil); r != "ok" {
		t.Fatalf("set 3: %q", r)
	}
	all := testBoards(t, 200)
	tunedMoves, defaults := p.movesIn(repeat(1, len(all)), all, 64), p.movesIn(repeat(3, len(all)), all, 64)
	var boards []engine.Board
	var before []engine.Dir
	for i, b := range all {
		if tunedMoves[i] != defaults[i] && len(boards) < 8 {
			boards, before = append(boards, b), append(before, tunedMoves[i])
		}
	}
	if len(boards) == 0 {
		t.Fatalf("sets 1 and 3 play alike on %d boards", len(all))
	}
	b := boards[0].Hex()
	good := "move 1:" + b
	defs := p.assignments(nil)
	above := strconv.Itoa(sets + 1)
	lines := []badLine{
		{"set without a number", "set"},
		{"set 0", "set 0" + defs},
		{"set SETS+1", "set " + above + defs},
		{"set 64, the protocol's most but above these SETS", "set 64" + defs},
		{"set with a huge number", "set 123456789012345678901234567890" + defs},
		{"set with a leading zero", "set 01" + defs},
		{"set with a sign", "set +1" + defs},
		{"set with a negative number", "set -1" + defs},
		{"set with a number and a letter", "set 1x" + defs},
		{"set with a hex number", "set 0x1" + defs},
		{"set with S:", "set 1:" + defs},
		{"set 1 without values", "set 1"},
		{"set 1 with an unknown parameter", "set 1" + p.assignments(map[string]string{"no_such_parameter": "1"})},
		{"version 1's set", "set" + defs},
		{"version 1's move", "move " + b},
		{"version 1's move after a good board", "move 1:" + b + " " + b},
		{"a set never given", "move 2:" + b},
		{"a set that failed to be given, after a good board", "move 1:" + b + " 2:" + b},
		{"set 0 in a move", "move 0:" + b},
		{"set SETS+1 in a move", "move " + above + ":" + b},
		{"a huge set number in a move", "move 123456789012345678901234567890:" + b},
		{"a leading zero in a move", "move 01:" + b},
		{"a sign in a move", "move +1:" + b},
		{"no number before the colon", "move :" + b},
		{"a number without a colon", "move 1" + b},
		{"a number and the board apart", "move 1 " + b},
		{"another separator", "move 1;" + b},
		{"two set numbers", "move 1:1:" + b},
		{"no board after the colon", "move 1:"},
		{"0x without digits", "move 1:0x"},
		{"a bad hex digit", "move 1:0x12g4"},
		{"17 hex digits", "move 1:0x12345678901234567"},
		{"a colon after the board", "move 1:" + b + ":"},
		{"no board", "move"},
		{"a board with no legal move", "move 1:" + deadBoard.Hex()},
		{"a board with no legal move after good ones", "move 1:" + b + " 3:" + b + " 1:" + deadBoard.Hex()},
		{"an unknown command", "protocol 2 16"},
	}
	for _, c := range append(lines, extra...) {
		p.send(c.line)
		if r := p.recv(); !strings.HasPrefix(r, "error ") {
			t.Errorf("%s (%.80q): %q, want error", c.what, c.line, r)
		}
		p.send(good)
		if r, want := p.recv(), "best "+before[0].String(); r != want {
			t.Fatalf("%s (%.80q): then %q to %q, want %q", c.what, c.line, r, good, want)
		}
	}
	if got := p.movesIn(repeat(1, len(boards)), boards, 8); !slices.Equal(got, before) {
		t.Errorf("set 1 after the errors: %v, before them %v", got, before)
	}
	for _, s := range []int{2, sets} {
		if r := p.setIn(s, tuned); r != "ok" {
			t.Fatalf("set %d after the errors: %q", s, r)
		}
		if got := p.movesIn(repeat(s, len(boards)), boards, 8); !slices.Equal(got, before) {
			t.Errorf("set %d, given set 1's values: %v, set 1 %v", s, got, before)
		}
	}
	p.quit()
}

// checkV2Sets is the differential test of version 2 against version 1:
// three parameter sets (values[0] the defaults), each given to a version-1
// session and to a numbered set of one version-2 session (1, 16 and 9:
// both ends and the middle; start starts a session of a version); every
// board asked with every set, the sets mixed within each request in a
// seeded random order, must get the version-1 session's move. Then sets 1
// and 16 swap values, which must change their moves and no other set's.
// Messages begin with label.
func checkV2Sets(t *testing.T, label string, boards []engine.Board, values []map[string]string, start func(version string) *proc) {
	t.Helper()
	want := make([][]engine.Dir, len(values)) // want[v][i]: board i with values v, in version 1
	for v, vals := range values {
		p := start("1")
		if r := p.set(vals); r != "ok" {
			t.Fatalf("%sversion 1: set %v: %q", label, vals, r)
		}
		want[v] = p.moves(boards, 64)
		p.quit()
	}
	for v := 1; v < len(values); v++ {
		differ := 0
		for i := range boards {
			if want[v][i] != want[0][i] {
				differ++
			}
		}
		if differ == 0 {
			t.Errorf("%svalues %v play as the defaults on all %d boards: the test sees no set", label, values[v], len(boards))
		}
	}

	p := start("2")
	rng := rand.New(rand.NewPCG(1, uint64(len(boards))))
	// ask plays every board with every set, the (set, board) pairs in a
	// seeded order and requests of 64, and checks each move against version
	// 1's with the values the set holds (given[set] indexes values).
	ask := func(what string, given map[int]int) {
		t.Helper()
		type job struct{ set, board int }
		var jobs []job
		for _, s := range slices.Sorted(maps.Keys(given)) { // the same requests every run
			for i := range boards {
				jobs = append(jobs, job{s, i})
			}
		}
		rng.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
		sets := make([]int, len(jobs))
		bs := make([]engine.Board, len(jobs))
		for k, j := range jobs {
			sets[k], bs[k] = j.set, boards[j.board]
		}
		got := p.movesIn(sets, bs, 64)
		bad := 0
		for k, j := range jobs {
			if w := want[given[j.set]][j.board]; got[k] != w {
				if bad++; bad <= 5 {
					t.Errorf("%s%s: board %s with set %d: %v, version 1 with its values %v", label, what, boards[j.board].Hex(), j.set, got[k], w)
				}
			}
		}
		if bad > 5 {
			t.Errorf("%s%s: %d moves of %d differ from version 1's", label, what, bad, len(jobs))
		}
	}
	given := map[int]int{}
	for v, s := range []int{1, 16, 9} {
		if r := p.setIn(s, values[v]); r != "ok" {
			t.Fatalf("%sset %d: %q", label, s, r)
		}
		given[s] = v
	}
	ask("three sets", given)
	given[1], given[16] = given[16], given[1]
	for _, s := range []int{1, 16} {
		if r := p.setIn(s, values[given[s]]); r != "ok" {
			t.Fatalf("%sset %d again: %q", label, s, r)
		}
	}
	ask("sets 1 and 16 swapped", given)
	p.quit()
}
