//go:build unix

package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/internal/golden"
	"github.com/evotune/evotune/tuner/playerpool"
)

// authorPlayer is a player written from the docs by an author who makes
// one of the mistakes real authors make, as fault says: crash-32768 (dies
// of SIGSEGV on a board with a 32768 tile), debug-line (a debug line on
// standard output before each answer), one-short (one move short when a
// request holds several boards), bad-default (declares a default outside
// its bounds), no-flush (never flushes standard output), hang-32768
// (never answers a board with a 32768 tile), error-32768 (answers error
// to a request with such a board), nondeterministic (another legal move on
// the first board of every other request), refuses-defaults (answers error
// to every set), accepts-all (answers ok to every set), no-quit (stays
// after quit). It plays the standard set at 1 ply otherwise.
func authorPlayer(fault string) int {
	search := engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: 1}.WithPlayDefaults()
	search.LossValue = engine.DefaultLossValue
	sp := must(playerpool.NewSearchPlayer(must(eval.Set("standard")), search, nil))
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	say := func(line string) {
		fmt.Fprintln(out, line)
		if fault != "no-flush" {
			out.Flush()
		}
	}
	big := func(boards []engine.Board) bool {
		for _, b := range boards {
			if b.MaxTile() == 32768 {
				return true
			}
		}
		return false
	}
	requests := 0
	for in.Scan() {
		line := in.Text()
		switch {
		case line == playerpool.Hello:
			say("id author 1")
			if fault == "bad-default" {
				say("param depth int 7 1 6")
			} else {
				say("param empty float 270 0 1000")
			}
			say("ready")
		case strings.HasPrefix(line, "set "):
			switch {
			case fault == "refuses-defaults":
				say("error cannot parse " + line)
			case fault == "accepts-all", line == "set empty=270":
				say("ok")
			default:
				say("error bad set")
			}
		case strings.HasPrefix(line, "move "):
			boards := must(playerpool.ParseMove([]byte(line), nil))
			switch {
			case fault == "crash-32768" && big(boards):
				fmt.Fprintln(os.Stderr, "rank 15: index out of my table")
				// Go's runtime would catch a SIGSEGV sent to itself: a
				// shell, same pid, same pipes, sends the real thing.
				syscall.Exec("/bin/sh", []string{"sh", "-c", "kill -SEGV $$"}, nil)
			case fault == "hang-32768" && big(boards):
				fmt.Fprintln(os.Stderr, "searching...")
				time.Sleep(time.Hour)
			case fault == "debug-line":
				say(fmt.Sprintf("searched %d boards", len(boards)))
			case fault == "error-32768" && big(boards):
				say("error no table for this board")
				continue
			}
			requests++
			dirs := make([]engine.Dir, len(boards))
			sp.Moves(boards, dirs)
			if fault == "nondeterministic" && requests%2 == 0 {
				// A tie-break from a counter: another legal move on the
				// request's first board.
				for _, d := range engine.Dirs {
					if _, _, ok := boards[0].Move(d); ok && d != dirs[0] {
						dirs[0] = d
						break
					}
				}
			}
			if fault == "one-short" && len(dirs) > 1 {
				dirs = dirs[:len(dirs)-1]
			}
			say(string(playerpool.AppendBest(nil, dirs)))
		case line == "quit":
			if fault == "no-quit" {
				time.Sleep(time.Hour)
			}
			return 0
		}
	}
	return 0
}

// TestCheckPlayerCauses: check --player on each author's mistake: the FAIL
// line says what the player did, and the line under it the fix of that
// cause (golden but for timings: docs/players.md quotes it). The player
// that crashes on a 32768 tile is named with a board that holds one;
// --player-timeouts 0.1 makes the limits 1 s, and the fixes say so.
func TestCheckPlayerCauses(t *testing.T) {
	var all strings.Builder
	for _, fault := range []string{"crash-32768", "hang-32768", "debug-line", "one-short", "bad-default", "no-flush", "refuses-defaults", "error-32768", "nondeterministic", "accepts-all", "no-quit"} {
		cmd := strings.Join(quoteAll(badPlayerCommand("author", fault)), " ")
		code, out, errs := runCLI(t, "check", "--player", cmd, "--player-timeouts", "0.1")
		if code != exitFailure || !strings.Contains(errs, "compliance points failed") {
			t.Errorf("%s: exit %d, want 1\n%s\n%s", fault, code, out, errs)
		}
		out = maskTimings(strings.ReplaceAll(out, cmd, "$PLAYER"))
		// The test binary's path and pid, in quoted commands and logs.
		out = strings.ReplaceAll(out, badPlayerCommand("author", fault)[0], "$BINARY")
		fmt.Fprintf(&all, "$ evotune check --player '%s' --player-timeouts 0.1\n%s\n", fault, out)
		if strings.Contains(out, "10 s") || strings.Contains(out, "10s") {
			t.Errorf("%s: a message says 10 s under --player-timeouts 0.1:\n%s", fault, out)
		}
		if fault == "crash-32768" {
			b, ok := failedBoard(out)
			if !ok || b.MaxTile() != 32768 {
				t.Errorf("crash on a 32768 tile: the FAIL line names board %v (found %v), want one with a 32768 tile:\n%s", b, ok, out)
			}
		}
	}
	golden.Check(t, "testdata/check_player_causes.golden", []byte(all.String()))
}

// failedBoard returns the board a FAIL line names alone ("move for
// 0x...;").
func failedBoard(out string) (engine.Board, bool) {
	_, rest, ok := strings.Cut(out, "while answering move for ")
	if !ok || len(rest) < 19 || rest[18] != ';' {
		return 0, false
	}
	b, err := engine.ParseBoard(rest[:18])
	return b, err == nil
}
