package playerpool

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/evotune/evotune/engine"
)

// A Player is the serving side of the protocol: what Serve asks for.
// Serve checks what the protocol demands (a set of the declared parameters
// within their bounds, boards with a legal move) before it calls Set or
// Moves, and replies "error TEXT" to what fails, so a Player sees only
// well-formed requests.
type Player interface {
	// ID returns the player's name and version for the id line.
	ID() (name, version string)
	// Params declares the parameters, in the order set gives them.
	Params() []Param
	// Set takes the parameters' values for the games that follow. An error
	// is answered "error TEXT".
	Set(values []float64) error
	// Moves stores in dst[i] the move for boards[i], each of which has a
	// legal move; the move must be legal and depend only on the values set
	// and the board.
	Moves(boards []engine.Board, dst []engine.Dir) error
}

// A SetsPlayer is a Player that holds several parameter sets at once, so
// that Serve speaks version 2 of the protocol for it: its handshake says
// "protocol 2 SETS", and a move request may ask each board's move under
// another set. Serve checks the set numbers (from 1 to Sets, and given
// before a move names them) before it calls SetIn or MovesIn.
type SetsPlayer interface {
	Player
	// Sets returns how many parameter sets it holds, from 1 to MaxSets.
	Sets() int
	// SetIn takes the values of set s, from 1 to Sets; the other sets keep
	// theirs.
	SetIn(s int, values []float64) error
	// MovesIn stores in dst[i] the move for boards[i] under the values of
	// set sets[i]; the move must depend only on those values and the
	// board.
	MovesIn(boards []engine.Board, sets []uint8, dst []engine.Dir) error
}

// VersionOne returns p as a player of version 1 only, whatever else it
// can do: its Serve declares no protocol line.
func VersionOne(p Player) Player { return versionOne{p} }

type versionOne struct{ Player }

// Serve speaks the protocol on in and out for p until evotune says quit or
// closes in: the handshake, then set and move requests. A malformed
// request is answered "error TEXT" and serving goes on; Serve returns an
// error only when it cannot read or write, when the first line is not the
// protocol's hello, or when ctx is done (checked between requests).
func Serve(ctx context.Context, in io.Reader, out io.Writer, p Player) error {
	r := bufio.NewReaderSize(in, 64<<10)
	w := bufio.NewWriterSize(out, 64<<10)
	line, err := readLine(r)
	if err != nil {
		return fmt.Errorf("playerpool: serve: reading the hello: %w", err)
	}
	if string(line) != Hello {
		fmt.Fprintf(w, "error want %q first\n", Hello)
		w.Flush()
		return fmt.Errorf("%w: serve: first line %q, want %q", ErrProtocol, clip(line), Hello)
	}
	name, version := p.ID()
	params := p.Params()
	if err := checkParams(params); err != nil {
		return fmt.Errorf("playerpool: serve: %w", err)
	}
	sp, _ := p.(SetsPlayer)
	nsets := 0
	if sp != nil {
		if nsets = sp.Sets(); nsets < 1 || nsets > MaxSets {
			return fmt.Errorf("playerpool: serve: %d parameter sets, want 1 to %d", nsets, MaxSets)
		}
	}
	w.WriteString(FormatID(name, version) + "\n")
	if nsets > 0 {
		w.WriteString(FormatProtocol(nsets) + "\n")
	}
	for _, q := range params {
		w.WriteString(FormatParam(q) + "\n")
	}
	w.WriteString(lineReady + "\n")
	if err := w.Flush(); err != nil {
		return fmt.Errorf("playerpool: serve: %w", err)
	}
	var (
		boards []engine.Board
		sets   []uint8
		given  [MaxSets + 1]bool // the sets given values so far
		dirs   []engine.Dir
		reply  []byte
	)
	for {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("playerpool: serve: %w", err)
		}
		line, err := readLine(r)
		if errors.Is(err, io.EOF) {
			return nil // evotune is gone: nothing left to answer
		}
		if err != nil {
			return fmt.Errorf("playerpool: serve: %w", err)
		}
		reply = reply[:0]
		switch {
		case string(line) == lineQuit:
			return nil
		case len(line) >= 4 && string(line[:4]) == "move":
			if nsets > 0 {
				boards, sets, err = ParseMoveIn(line, nsets, boards, sets)
				for i := 0; err == nil && i < len(sets); i++ {
					if !given[sets[i]] {
						err = fmt.Errorf("board %d: set %d was given no values (send set %d NAME=VALUE ... first)", i+1, sets[i], sets[i])
					}
				}
			} else {
				boards, err = ParseMove(line, boards)
			}
			if err == nil {
				err = checkBoards(boards)
			}
			if err == nil {
				if cap(dirs) < len(boards) {
					dirs = make([]engine.Dir, len(boards))
				}
				dirs = dirs[:len(boards)]
				if nsets > 0 {
					err = sp.MovesIn(boards, sets, dirs)
				} else {
					err = p.Moves(boards, dirs)
				}
			}
			if err != nil {
				reply = append(reply, FormatError(err)...)
			} else {
				reply = AppendBest(reply, dirs)
			}
		case len(line) >= 3 && string(line[:3]) == "set":
			var xs []float64
			if nsets > 0 {
				var n int
				if n, xs, err = ParseSetIn(string(line), params, nsets); err == nil {
					given[n] = false // a refused set leaves the set without values
					if err = sp.SetIn(n, xs); err == nil {
						given[n] = true
					}
				}
			} else if xs, err = ParseSet(string(line), params); err == nil {
				err = p.Set(xs)
			}
			if err != nil {
				reply = append(reply, FormatError(err)...)
			} else {
				reply = append(reply, lineOK...)
			}
		default:
			reply = append(reply, FormatError(fmt.Errorf("unknown request %q (want set, move or quit)", clip(line)))...)
		}
		reply = append(reply, '\n')
		if _, err := w.Write(reply); err != nil {
			return fmt.Errorf("playerpool: serve: %w", err)
		}
		if err := w.Flush(); err != nil {
			return fmt.Errorf("playerpool: serve: %w", err)
		}
	}
}

// checkBoards rejects a board without a legal move: the protocol promises
// none comes, and a player has no move to give for it.
func checkBoards(boards []engine.Board) error {
	for i, b := range boards {
		if !b.CanMove() {
			return fmt.Errorf("board %d (%s) has no legal move", i+1, b.Hex())
		}
	}
	return nil
}

// readLine returns the next line without its "\n", valid until the next
// read. A last line without "\n" is a line; a line longer than the
// reader's buffer is an error rather than a truncation.
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	switch {
	case err == nil:
		return line[:len(line)-1], nil
	case errors.Is(err, bufio.ErrBufferFull):
		return nil, fmt.Errorf("%w: a line longer than %d bytes", ErrProtocol, r.Size())
	case errors.Is(err, io.EOF) && len(line) > 0:
		return line, nil
	}
	return nil, err
}
