package playerpool

import (
	"context"
	"errors"
	"fmt"

	"github.com/evotune/evotune/engine"
)

// What the compliance check advises: the fix of a failed point, chosen by
// the cause (the rule a line broke, a crash, a timeout, a refusal) rather
// than by the point that met it, and for a move request of several
// boards the board at fault, found by asking them again one at a time.

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
		return fmt.Sprintf("answer a move request of k boards with one best line of exactly k moves, in the order of the boards: read every board of the line (a tuning run sends up to %d, this check 16 and 7)", DefaultBatch)
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
