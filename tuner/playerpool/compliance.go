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
	case <-p.tree.Exited():
	case <-time.After(p.opts.quit()):
		return Point{Name: "quit", Figure: fmt.Sprintf("still running %v after quit (it is killed then)", p.opts.quit())}
	}
	if err := p.tree.Err(); err != nil {
		return Point{Name: "quit", Figure: fmt.Sprintf("exited with %v after quit, want status 0", err)}
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
