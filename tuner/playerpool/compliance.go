package playerpool

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

// A Point is one point of the compliance check: its name, whether the
// player passed, the figure or the reason, and for a failure the likely
// cause and its fix, for an adapter's author.
type Point struct {
	Name   string
	OK     bool
	Figure string
	Fix    string // "" when OK
}

// pointFix is the fix of a point that failed on its figure (a move that is
// illegal, not the same twice, a set answered ok, a slow quit) rather
// than on an error, whose cause has its own fix (causeFix).
func pointFix(name string, opts Options) string {
	switch name {
	case "legal moves":
		return "up slides tiles toward row 0, the top row, which is the low 16 bits of the board (cell (r, c) at bit 4*(4r+c)); an illegal move is usually a mixed-up direction or the board read in the wrong nibble order; try the example board above by hand"
	case "determinism":
		return "the same parameters and board must give the same move whatever was asked before: clear a transposition table or cache before each board (or key it by the parameters too), and seed any random tie-break from the board, not a clock or a counter"
	case "unknown parameter":
		return "reply error TEXT (one line) to a set that names a parameter you did not declare, then keep serving: evotune sets the defaults again after it"
	case "out-of-range value":
		return "reply error TEXT (one line) to a set with a value outside the MIN..MAX you declared, then keep serving"
	case "parameter sets":
		return "a version-2 player keeps each set's values apart: set S NAME=VALUE ... changes set S alone, and in move S:B1 S:B2 ... each board is searched with the values of the set written before it; keep one table (or evaluator) per set and pick it per board"
	case "quit":
		return fmt.Sprintf("on quit, exit with status 0 within %v: stop reading, return from main; do not wait for more input", opts.quit())
	}
	return ""
}

// causeFix is the fix of what err says the player did: the rule a line
// broke, a crash, a timeout, a refusal, in the exchange it happened in;
// board is the board a move request failed on alone, 0 if none. "" for
// an error it knows no fix of.
func causeFix(err error, opts Options, board engine.Board) string {
	switch ruleOf(err) {
	case ruleProtocolLine:
		return "standard output carries the protocol's lines and nothing else: write debug output to standard error (C: fprintf(stderr, ...); Python: print(..., file=sys.stderr)), or start it with # to make it a comment line"
	case ruleID:
		return "the first line after the hello is \"id NAME VERSION\" (NAME of letters, digits, '.', '_' or '-'), and nothing comes before it on standard output: debug output goes to standard error"
	case ruleParamForm:
		return "declare each parameter on one line of six words, one space apart: param NAME float|int DEFAULT MIN MAX"
	case ruleParamType:
		return "a parameter's type is the word float or int"
	case ruleParamNumber:
		return "DEFAULT, MIN and MAX are finite decimal numbers (no nan, inf, hex or _), whole numbers for an int parameter"
	case ruleParamName:
		return "a parameter's name is made of letters, digits, '.', '_' and '-' (it goes before = in set lines)"
	case ruleParamBounds:
		return "declare MIN <= DEFAULT <= MAX: the default lies within the bounds, and the bounds are in order"
	case ruleParamOnce:
		return "declare each parameter once"
	case ruleParamCount:
		return fmt.Sprintf("declare at most %d parameters", MaxParams)
	case ruleOneMovePerBoard:
		return "answer a move request of k boards with one best line of exactly k moves, in the order of the boards: read every board of the line (a tuning run sends up to 64, this check 16 and 7)"
	case ruleMoveWords:
		return "write each move as up, down, left or right, one space apart, nothing after the last"
	}
	var pe *Error
	if !errors.As(err, &pe) {
		return ""
	}
	flush := "flush standard output after each line (Python: print(..., flush=True); C: fflush(stdout), or setvbuf(stdout, NULL, _IOLBF, 0) once)"
	switch {
	case errors.Is(err, ErrStart):
		return "the command could not be started: check the path (relative to the working directory), that the file is executable, and its #! line"
	case errors.Is(err, ErrTimeout) && pe.doing == "the handshake":
		return fmt.Sprintf("answer the hello with the id line, one param line per parameter and ready within %v, and %s; a player that works by hand but times out here is almost always not flushing (--player-timeouts F gives a slow start F times as long)", opts.handshake(), flush)
	case errors.Is(err, ErrTimeout) && pe.doing == "set":
		return fmt.Sprintf("answer set with ok within %v, and %s (--player-timeouts F gives F times as long)", opts.handshake(), flush)
	case errors.Is(err, ErrTimeout) && board != 0:
		return fmt.Sprintf("your player did not answer the board above within %v, asked alone: a search that does not end on it (a loop, a depth that grows without bound)? If it is only slow, --player-timeouts F gives F times as long", opts.move())
	case errors.Is(err, ErrTimeout):
		return fmt.Sprintf("answer within %v a board, and %s after each best line (--player-timeouts F gives F times as long)", opts.move(), flush)
	case errors.Is(err, ErrExited) && board != 0:
		fix := "your player crashed on the board above, asked alone"
		if board.MaxTile() == 32768 {
			fix += ", which holds a 32768 tile (rank 15, hex digit f): an array indexed by tile rank or value needs room for rank 15"
		}
		return fix + fmt.Sprintf("; reproduce it by hand: send evotune-player 1, your defaults' set line, then move %s", board.Hex())
	case errors.Is(err, ErrExited) && pe.doing == "the handshake":
		return "your player exited during its handshake: run the command by hand, type evotune-player 1, and read what it writes to standard error (quoted above)"
	case errors.Is(err, ErrExited):
		return "your player exited while it was expected to answer: run the command by hand with the lines above, and read its standard error (quoted above)"
	case errors.Is(err, ErrRefused) && pe.doing == "set":
		return "a set line carries every declared parameter in declaration order, with your own defaults here: accept it with ok (parse NAME=VALUE pairs split on spaces, values as decimals), and reply error TEXT only to a name you did not declare or a value outside your bounds"
	case errors.Is(err, ErrRefused) && pe.doing == "" && board != 0:
		return "every board of a move request has a legal move, the board above too: answer it; error TEXT stops a tuning run"
	case errors.Is(err, ErrRefused) && pe.doing == "":
		return "every board of a move request has a legal move: answer each; error TEXT stops a tuning run"
	case errors.Is(err, ErrRefused):
		return "answer the hello with your handshake (id, param lines, ready), not error"
	}
	return ""
}

// ComplianceBoards is how many boards the compliance check asks for.
const ComplianceBoards = 1000

// Compliance checks that the player command runs keeps the protocol, for
// the authors of adapters: its handshake and declarations (bounds, types,
// duplicates), legal moves on ComplianceBoards boards from real games
// (early, middle and late, some with a 32768 tile), determinism (every
// board asked again, in other batches and the reverse order), speed, an
// error answered to an unknown parameter and to an out-of-range value, and
// a clean quit. It returns one Point per point; a handshake that fails
// ends the check there.
func Compliance(ctx context.Context, command []string, opts Options) []Point {
	pts := compliance(ctx, command, opts)
	for i := range pts {
		if !pts[i].OK && pts[i].Fix == "" {
			pts[i].Fix = pointFix(pts[i].Name, opts)
		}
	}
	return pts
}

// failure is the point name failed with err, with the fix of its cause. A
// move request of several boards that crashed, hung or was refused is
// asked again one board at a time, in a new process, as a tuning run plays
// the games of such a request again alone, so that the point names the
// board at fault.
func failure(ctx context.Context, command []string, opts Options, name string, err error) Point {
	pt := Point{Name: name, Figure: err.Error()}
	var pe *Error
	var board engine.Board
	if errors.As(err, &pe) && pe.doing == "" && len(pe.req) > 0 && (errors.Is(err, ErrExited) || errors.Is(err, ErrTimeout) || errors.Is(err, ErrRefused)) {
		if len(pe.req) == 1 {
			board = pe.req[0]
		} else if alone, answered := askAlone(ctx, command, opts, pe.req); alone != nil {
			board, err = alone.req[0], alone
			pt.Figure = fmt.Sprintf("of the %d boards of a request that failed, asked one at a time in a new process, the first to fail: %v", len(pe.req), alone)
		} else if answered {
			pt.Figure += fmt.Sprintf("; asked one at a time in a new process, each of its %d boards was answered", len(pe.req))
			pt.Fix = "your player fails on a request of several boards but not on each alone: read every board of a move line and answer them all on one best line; a buffer sized for one board (19 bytes a board) is too small"
		}
		if board != 0 {
			pt.Figure += "; the board: " + board.String()
		}
	}
	if pt.Fix == "" {
		pt.Fix = causeFix(err, opts, board)
	}
	return pt
}

// askAlone asks for each of boards alone, the defaults set, in a new
// process, and returns the error of the first that fails; answered says
// that every one was answered (false also when the replay itself could not
// start).
func askAlone(ctx context.Context, command []string, opts Options, boards []engine.Board) (failed *Error, answered bool) {
	q, err := Open(ctx, command, "", opts)
	if err != nil {
		return nil, false
	}
	defer q.Close()
	if err := q.Set(q.Family().Defaults()); err != nil {
		return nil, false
	}
	for _, b := range boards {
		if _, err := q.Moves([]engine.Board{b}, nil); err != nil {
			var pe *Error
			if errors.As(err, &pe) && len(pe.req) == 1 {
				return pe, false
			}
			return nil, false
		}
	}
	return nil, true
}

func compliance(ctx context.Context, command []string, opts Options) []Point {
	p, err := Open(ctx, command, "", opts)
	if err != nil {
		return []Point{failure(ctx, command, opts, "handshake", err)}
	}
	defer p.Close()
	fam := p.Family()
	version := ""
	if fam.Sets > 0 {
		version = fmt.Sprintf(", protocol version 2 with %d parameter set%s", fam.Sets, plural(fam.Sets))
	}
	pts := []Point{{Name: "handshake", OK: true, Figure: fmt.Sprintf("id %s %s, %d parameter%s declared (bounds, types and names valid)%s", fam.ID, fam.Version, len(fam.Params), plural(len(fam.Params)), version)}}
	fail := func(name string, err error) []Point { return append(pts, failure(ctx, command, opts, name, err)) }
	if err := p.Set(fam.Defaults()); err != nil {
		return fail("set defaults", err)
	}
	boards := complianceBoards()
	big := 0
	for _, b := range boards {
		if b.MaxTile() == 32768 {
			big++
		}
	}

	// Legal moves, 16 boards a request, timed.
	first := make([]engine.Dir, len(boards))
	start := time.Now()
	illegal := 0
	example := ""
	for i := 0; i < len(boards); i += 16 {
		got, err := p.Moves(boards[i:min(i+16, len(boards))], nil)
		if err != nil {
			return fail("legal moves", err)
		}
		copy(first[i:], got)
		for j, d := range got {
			if b := boards[i+j]; !legal(b, d) {
				if illegal == 0 {
					example = fmt.Sprintf("; the first: %s (%s) answered %s, which moves no tile", b.Hex(), b, d)
				}
				illegal++
			}
		}
	}
	elapsed := time.Since(start)
	pts = append(pts, Point{Name: "legal moves", OK: illegal == 0, Figure: fmt.Sprintf("%d illegal of %d boards (%d with a 32768 tile)%s", illegal, len(boards), big, example)})

	// Determinism: the same boards in the reverse order, 7 a request.
	rev := slices.Clone(boards)
	slices.Reverse(rev)
	differ := 0
	for i := 0; i < len(rev); i += 7 {
		got, err := p.Moves(rev[i:min(i+7, len(rev))], nil)
		if err != nil {
			return fail("determinism", err)
		}
		for j, d := range got {
			if d != first[len(boards)-1-(i+j)] {
				differ++
			}
		}
	}
	pts = append(pts, Point{Name: "determinism", OK: differ == 0, Figure: fmt.Sprintf("%d of %d boards answered differently when asked again in other batches and order", differ, len(boards))})

	// Speed: k=1 against k=16 requests on the same 64 boards; the
	// difference per board is the round trip that batching shares.
	speed, err := roundTrip(p, boards[:64])
	if err != nil {
		return fail("speed", err)
	}
	pts = append(pts, Point{Name: "speed", OK: true, Figure: fmt.Sprintf("%.0f moves/s at 16 boards a request; %s", float64(len(boards))/elapsed.Seconds(), speed)})

	if fam.Sets > 0 {
		pt, err := setsPoint(p, boards[:256], first[:256])
		if err != nil {
			return fail("parameter sets", err)
		}
		pts = append(pts, pt)
	}

	pts = append(pts, refusal(p, "unknown parameter", FormatSetRaw(fam, "evotune_no_such_parameter", 1)))
	if len(fam.Params) > 0 {
		q := fam.Params[0]
		pts = append(pts, refusal(p, "out-of-range value", FormatSetRaw(fam, q.Name, q.Max+(q.Max-q.Min)+1)))
	}
	pts = append(pts, quit(p))
	return pts
}

// roundTrip times boards asked one a request and 16 a request.
func roundTrip(p *Process, boards []engine.Board) (string, error) {
	t0 := time.Now()
	for i := range boards {
		if _, err := p.Moves(boards[i:i+1], nil); err != nil {
			return "", err
		}
	}
	one := time.Since(t0) / time.Duration(len(boards))
	t0 = time.Now()
	for i := 0; i < len(boards); i += 16 {
		if _, err := p.Moves(boards[i:i+16], nil); err != nil {
			return "", err
		}
	}
	sixteen := time.Since(t0) / time.Duration(len(boards))
	return fmt.Sprintf("%v a board alone, %v a board in 16: round-trip overhead %v a request", one.Round(time.Microsecond), sixteen.Round(time.Microsecond), max(0, (one-sixteen)*16/15).Round(time.Microsecond)), nil
}

// setsPoint checks a player of version 2 keeps its sets apart: set 1
// holds the defaults (whose moves on boards are first), the player's last
// set other values; requests of 16 boards alternate the two sets; then
// set 1 is given the other values and the boards asked again under it
// alone. Each board's move must be its own set's.
func setsPoint(p *Process, boards []engine.Board, first []engine.Dir) (Point, error) {
	fam := p.Family()
	other := fam.Defaults()
	for i, q := range fam.Params {
		other[i] = setValue(q, q.Min+(q.Max-q.Min)*[]float64{0.2, 0.7, 0.4, 0.9}[i%4])
	}
	last := fam.Sets
	if err := p.SetIn(last, other); err != nil {
		return Point{}, err
	}
	sets := make([]uint8, len(boards))
	for i := range sets {
		sets[i] = uint8(1 + i%2*(last-1))
	}
	mixed := make([]engine.Dir, 0, len(boards))
	for i := 0; i < len(boards); i += 16 {
		got, err := p.MovesIn(boards[i:i+16], sets[i:i+16], nil)
		if err != nil {
			return Point{}, err
		}
		mixed = append(mixed, got...)
	}
	if err := p.SetIn(1, other); err != nil {
		return Point{}, err
	}
	alone := make([]engine.Dir, 0, len(boards))
	for i := 0; i < len(boards); i += 16 {
		got, err := p.MovesIn(boards[i:i+16], nil, nil)
		if err != nil {
			return Point{}, err
		}
		alone = append(alone, got...)
	}
	wrong, differ, example := 0, 0, ""
	for i, b := range boards {
		want := first[i]
		if sets[i] != 1 {
			want = alone[i]
		}
		if first[i] != alone[i] {
			differ++
		}
		if mixed[i] != want {
			if wrong == 0 {
				example = fmt.Sprintf("; the first: %s under set %d answered %s, %s alone", b.Hex(), sets[i], mixed[i], want)
			}
			wrong++
		}
	}
	if err := p.SetIn(1, fam.Defaults()); err != nil {
		return Point{}, err
	}
	note := fmt.Sprintf("the two sets' values disagree on %d", differ)
	if differ == 0 {
		note = "the two sets' values agree on every board: this point cannot tell them apart"
	}
	return Point{Name: "parameter sets", OK: wrong == 0, Figure: fmt.Sprintf("%d of %d boards answered otherwise than under their set alone, sets 1 and %d mixed in requests of 16 (%s)%s", wrong, len(boards), last, note, example)}, nil
}

// FormatSetRaw is the set line of fam's defaults with name=value in place
// of name's value, or added when fam has no such parameter: a line the
// player must refuse. For a player of version 2 it gives set 1.
func FormatSetRaw(fam Family, name string, value float64) string {
	line := "set"
	if fam.Sets > 0 {
		line = "set 1"
	}
	found := false
	for _, q := range fam.Params {
		x := q.Default
		if q.Name == name {
			x, found = value, true
		}
		line += " " + q.Name + "=" + formatNumber(x)
	}
	if !found {
		line += " " + name + "=" + formatNumber(value)
	}
	return line
}

// refusal sends a set line the player must answer with error, then sets
// the defaults again.
func refusal(p *Process, name, line string) Point {
	reply, err := p.request([]byte(line+"\n"), "set", p.opts.handshake())
	if err != nil {
		return Point{Name: name, Figure: err.Error(), Fix: causeFix(err, p.opts, 0)}
	}
	// reply is the reader's buffer, which the next read reuses.
	answer := clip(reply)
	if _, ok := ParseError(reply); !ok {
		return Point{Name: name, Figure: fmt.Sprintf("answered %q to %q, want error TEXT", answer, clip([]byte(line)))}
	}
	if err := p.Set(p.family.Defaults()); err != nil {
		return Point{Name: name, Figure: "after the error, set of the defaults: " + err.Error(), Fix: causeFix(err, p.opts, 0)}
	}
	return Point{Name: name, OK: true, Figure: "answered " + strconv.Quote(answer)}
}

// quit says quit and waits for the player to exit by itself.
func quit(p *Process) Point {
	t0 := time.Now()
	if _, err := p.w.WriteString(lineQuit + "\n"); err == nil {
		p.w.Flush()
	}
	select {
	case <-p.exited:
	case <-time.After(p.opts.quit()):
		return Point{Name: "quit", Figure: fmt.Sprintf("still running %v after quit (it is killed then)", p.opts.quit())}
	}
	if p.waitErr != nil {
		return Point{Name: "quit", Figure: fmt.Sprintf("exited with %v after quit, want status 0", p.waitErr)}
	}
	return Point{Name: "quit", OK: true, Figure: fmt.Sprintf("exited with status 0 in %v", time.Since(t0).Round(time.Millisecond))}
}

// complianceBoards are ComplianceBoards boards of 8 games of the standard
// set at 1 ply, spread from each game's first move to its last; every
// tenth has its largest tile made 32768, which real games rarely reach
// and an adapter must still read.
func complianceBoards() []engine.Board {
	search := engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 1}.WithPlayDefaults()
	search.LossValue = engine.DefaultLossValue
	set, err := eval.Set("standard")
	if err != nil {
		panic("playerpool: the standard set: " + err.Error()) // a broken invariant: it is built in
	}
	sp, err := NewSearchPlayer(set, search, nil)
	if err != nil {
		panic("playerpool: the standard player: " + err.Error()) // a broken invariant: the built-in set compiles
	}
	const games = 8
	var out []engine.Board
	dir := make([]engine.Dir, 1)
	for s := range uint64(games) {
		g := engine.NewGame(engine.GameSeed(0x2048c0de, s))
		var seen []engine.Board
		for !g.Over(0) {
			seen = append(seen, g.Board())
			sp.Moves([]engine.Board{g.Board()}, dir)
			g.Play(dir[0])
		}
		for i := range ComplianceBoards / games {
			out = append(out, seen[i*(len(seen)-1)/(ComplianceBoards/games-1)])
		}
	}
	for i := 5; i < len(out); i += 10 {
		if b := withTile(out[i], 15); b.CanMove() {
			out[i] = b
		}
	}
	return out
}

// withTile returns b with its largest tile made rank r.
func withTile(b engine.Board, r engine.Board) engine.Board {
	best, at := engine.Board(0), 0
	for shift := 0; shift < 64; shift += 4 {
		if v := b >> shift & 0xf; v > best {
			best, at = v, shift
		}
	}
	return b&^(0xf<<at) | r<<at
}

// legal reports whether d moves a tile of b.
func legal(b engine.Board, d engine.Dir) bool {
	_, _, ok := b.Move(d)
	return ok
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
