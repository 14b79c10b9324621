package playerpool

import (
	"context"
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

// fixes are the likely cause and the fix of each point's failure.
var fixes = map[string]string{
	"handshake":          "answer the hello with the id line, one param line per parameter (a name given once, float or int, finite MIN <= DEFAULT <= MAX) and ready, within 10 s, and flush standard output after each line (Python: print(..., flush=True); C: fflush(stdout); or unbuffered output); a player that works by hand but times out here is almost always not flushing",
	"set defaults":       "a set line carries every declared parameter in declaration order, with your own defaults here: accept it with ok (parse NAME=VALUE pairs split on spaces, values as decimals), and reply error TEXT only to a name you did not declare or a value outside your bounds",
	"legal moves":        "up slides tiles toward row 0, the top row, which is the low 16 bits of the board (cell (r, c) at bit 4*(4r+c)); an illegal move is usually a mixed-up direction or the board read in the wrong nibble order; try the example board above by hand",
	"determinism":        "the same parameters and board must give the same move whatever was asked before: clear a transposition table or cache before each board (or key it by the parameters too), and seed any random tie-break from the board, not a clock or a counter",
	"speed":              "answer the boards of a request and flush once after the best line; read requests line by line without waiting for more input",
	"unknown parameter":  "reply error TEXT (one line) to a set that names a parameter you did not declare, then keep serving: evotune sets the defaults again after it",
	"out-of-range value": "reply error TEXT (one line) to a set with a value outside the MIN..MAX you declared, then keep serving",
	"quit":               "on quit, exit with status 0 within 5 s: stop reading, return from main; do not wait for more input",
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
		if !pts[i].OK {
			pts[i].Fix = fixes[pts[i].Name]
		}
	}
	return pts
}

func compliance(ctx context.Context, command []string, opts Options) []Point {
	p, err := Open(ctx, command, "", opts)
	if err != nil {
		return []Point{{Name: "handshake", Figure: err.Error()}}
	}
	defer p.Close()
	fam := p.Family()
	pts := []Point{{Name: "handshake", OK: true, Figure: fmt.Sprintf("id %s %s, %d parameters declared (bounds, types and names valid)", fam.ID, fam.Version, len(fam.Params))}}
	fail := func(name string, err error) []Point { return append(pts, Point{Name: name, Figure: err.Error()}) }
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

// FormatSetRaw is the set line of fam's defaults with name=value in place
// of name's value, or added when fam has no such parameter: a line the
// player must refuse.
func FormatSetRaw(fam Family, name string, value float64) string {
	line := "set"
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
		return Point{Name: name, Figure: err.Error()}
	}
	// reply is the reader's buffer, which the next read reuses.
	answer := clip(reply)
	if _, ok := ParseError(reply); !ok {
		return Point{Name: name, Figure: fmt.Sprintf("answered %q to %q, want error TEXT", answer, clip([]byte(line)))}
	}
	if err := p.Set(p.family.Defaults()); err != nil {
		return Point{Name: name, Figure: "after the error, set of the defaults: " + err.Error()}
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
