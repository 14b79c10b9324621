package playerpool

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

// testPlayerFlag, first on the test binary's command line, makes it a
// player instead of a test run: the pool's tests start real child
// processes, well-behaved or not, without a binary of their own.
const testPlayerFlag = "-evotune-test-player"

// testProtocolEnv set to 1 makes the test player one of version 1, and
// to "2 N" one of version 2 holding N sets; unset or 2, it speaks version
// 2 with DefaultSets, as evotune player does.
const testProtocolEnv = "EVOTUNE_TEST_PLAYER_PROTOCOL"

func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == testPlayerFlag {
		os.Exit(testPlayer(os.Args[2], os.Args[3:]))
	}
	os.Exit(m.Run())
}

// playerCommand returns the command that runs the test binary as the
// player of the given mode.
func playerCommand(mode string, args ...string) []string {
	return append([]string{os.Args[0], testPlayerFlag, mode}, args...)
}

// standardSearch is play's search at depth plies: play --eval standard
// --depth N.
func standardSearch(depth int) engine.SearchConfig {
	cfg := engine.SearchConfig{Algorithm: engine.AlgorithmExpectimax, Depth: depth, Width: 8}.WithPlayDefaults()
	cfg.LossValue = engine.DefaultLossValue
	return cfg
}

// misbehaving wraps the built-in player with a fault injected into Moves.
type misbehaving struct {
	*SearchPlayer
	requests int
	fault    func(n int, boards []engine.Board, dst []engine.Dir) // called after the honest moves
}

func (m *misbehaving) Moves(boards []engine.Board, dst []engine.Dir) error {
	if err := m.SearchPlayer.Moves(boards, dst); err != nil {
		return err
	}
	m.requests++
	m.fault(m.requests, boards, dst)
	return nil
}

func (m *misbehaving) MovesIn(boards []engine.Board, sets []uint8, dst []engine.Dir) error {
	if err := m.SearchPlayer.MovesIn(boards, sets, dst); err != nil {
		return err
	}
	m.requests++
	m.fault(m.requests, boards, dst)
	return nil
}

// testPlayer runs the player of a mode on standard input and output and
// returns its exit status. Modes: serve [DEPTH] (the built-in standard
// player, 2 plies by default, as every other mode), crash-once FILE (crashes at its 20th move
// request unless FILE exists, creating it), crash-always, crash-start,
// hang, hang-start, mute (never answers a move request), sets-ignored (version 2, every board under set 1), garbage, illegal, nondeterministic, comments, set-error, the bad
// declarations decl-minmax, decl-nan and decl-dup, and the misbehaving
// players of badPlayer.
func testPlayer(mode string, args []string) int {
	if code, ok := badPlayer(mode, args); ok {
		return code
	}
	depth := 2
	if mode == "serve" && len(args) > 0 {
		depth, _ = strconv.Atoi(args[0])
	}
	sp, err := NewSearchPlayer(must(eval.Set("standard")), standardSearch(depth), nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	out := bufio.NewWriter(os.Stdout)
	// raw is a scripted player: its handshake after the hello, then one
	// reply per request, then silence.
	raw := func(handshake []string, replies ...string) int {
		in := bufio.NewScanner(os.Stdin)
		if !in.Scan() {
			return 0
		}
		for _, l := range handshake {
			fmt.Fprintln(out, l)
		}
		out.Flush()
		for _, l := range replies {
			if !in.Scan() {
				return 0
			}
			fmt.Fprintln(out, l)
			out.Flush()
		}
		for in.Scan() {
		}
		return 0
	}
	var p Player = sp
	switch mode {
	case "serve":
	case "crash-once":
		p = &misbehaving{SearchPlayer: sp, fault: func(n int, _ []engine.Board, _ []engine.Dir) {
			if _, err := os.Stat(args[0]); n == 20 && err != nil {
				os.WriteFile(args[0], nil, 0o644)
				fmt.Fprintln(os.Stderr, "crashing once, on purpose")
				os.Exit(3)
			}
		}}
	case "crash-always":
		p = &misbehaving{SearchPlayer: sp, fault: func(n int, _ []engine.Board, _ []engine.Dir) {
			if n == 5 {
				fmt.Fprintln(os.Stderr, "crashing again, on purpose")
				os.Exit(3)
			}
		}}
	case "crash-start":
		fmt.Fprintln(os.Stderr, "cannot load my tables")
		return 4
	case "hang":
		p = &misbehaving{SearchPlayer: sp, fault: func(n int, _ []engine.Board, _ []engine.Dir) {
			if n == 3 {
				fmt.Fprintln(os.Stderr, "thinking very hard")
				time.Sleep(time.Hour)
			}
		}}
	case "hang-start":
		time.Sleep(time.Hour)
	case "mute":
		p = &misbehaving{SearchPlayer: sp, fault: func(int, []engine.Board, []engine.Dir) {
			fmt.Fprintln(os.Stderr, "never answering")
			time.Sleep(time.Hour)
		}}
	case "illegal":
		p = &misbehaving{SearchPlayer: sp, fault: func(_ int, boards []engine.Board, dst []engine.Dir) {
			for i, b := range boards {
				for _, d := range engine.Dirs {
					if _, _, ok := b.Move(d); !ok {
						dst[i] = d
					}
				}
			}
		}}
	case "nondeterministic":
		p = &misbehaving{SearchPlayer: sp, fault: func(n int, boards []engine.Board, dst []engine.Dir) {
			if n%2 == 0 { // every other request, another legal move on its first board
				for _, d := range engine.Dirs {
					if _, _, ok := boards[0].Move(d); ok && d != dst[0] {
						dst[0] = d
						break
					}
				}
			}
		}}
	case "comments":
		p = &misbehaving{SearchPlayer: sp, fault: func(n int, _ []engine.Board, _ []engine.Dir) {
			fmt.Fprintf(out, "# request %d\n", n)
			out.Flush()
			fmt.Fprintf(os.Stderr, "stderr line %d\n", n)
		}}
	case "sets-ignored":
		p = ignoreSets{sp}
	case "garbage":
		return raw([]string{"id garbage 1", "ready"}, "ok", "bestest move ever")
	case "set-error":
		return raw([]string{"id refuser 1", "param x float 1 0 2", "ready"}, "error x is not to my taste")
	case "decl-minmax":
		return raw([]string{"id bad 1", "param x float 1 2 0", "ready"})
	case "decl-nan":
		return raw([]string{"id bad 1", "param x float NaN 0 2", "ready"})
	case "decl-dup":
		return raw([]string{"id bad 1", "param x float 1 0 2", "param x int 1 0 2", "ready"})
	default:
		if q, ok := failureModes(mode, args, sp); ok {
			p = q
			break
		}
		fmt.Fprintf(os.Stderr, "unknown test player mode %q\n", mode)
		return 2
	}
	switch v := os.Getenv(testProtocolEnv); {
	case v == "1":
		p = VersionOne(p)
	case v != "" && v != "2":
		// "2 N": a player of version 2 holding N sets.
		n, _ := strconv.Atoi(strings.TrimPrefix(v, "2 "))
		p = fewSets{p.(SetsPlayer), n}
	}
	if err := Serve(context.Background(), os.Stdin, os.Stdout, p); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// ignoreSets is a player of version 2 that plays every board under set 1.
type ignoreSets struct{ *SearchPlayer }

func (p ignoreSets) MovesIn(boards []engine.Board, sets []uint8, dst []engine.Dir) error {
	ones := make([]uint8, len(sets))
	for i := range ones {
		ones[i] = 1
	}
	return p.SearchPlayer.MovesIn(boards, ones, dst)
}

// fewSets is a player of version 2 that declares fewer sets than it can
// hold.
type fewSets struct {
	SetsPlayer
	n int
}

func (f fewSets) Sets() int { return f.n }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// failureModes are the players of the failure-accounting tests (pool_test.go):
//
//   - crash-on-board HEX crashes whenever a request holds that board;
//   - crash-some DIR N: the i-th process started (counted by files in DIR)
//     crashes at its request 3+4i if i < N, so N crashes in all;
//   - restart-fails DIR N: the first process crashes at its 5th request,
//     the next N exit before their handshake, the others play.
func failureModes(mode string, args []string, sp *SearchPlayer) (Player, bool) {
	nth := func(dir string) int { // this process's number, from 0
		es, _ := os.ReadDir(dir)
		os.WriteFile(filepath.Join(dir, fmt.Sprint(len(es))), nil, 0o644)
		return len(es)
	}
	switch mode {
	case "crash-on-board":
		return &misbehaving{SearchPlayer: sp, fault: func(_ int, boards []engine.Board, _ []engine.Dir) {
			for _, b := range boards {
				if b.Hex() == args[0] {
					fmt.Fprintln(os.Stderr, "crashing on", args[0])
					os.Exit(3)
				}
			}
		}}, true
	case "crash-some":
		i := nth(args[0])
		n, _ := strconv.Atoi(args[1])
		return &misbehaving{SearchPlayer: sp, fault: func(r int, _ []engine.Board, _ []engine.Dir) {
			if i < n && r == 3+4*i {
				fmt.Fprintln(os.Stderr, "crashing now and then")
				os.Exit(3)
			}
		}}, true
	case "restart-fails":
		i := nth(args[0])
		n, _ := strconv.Atoi(args[1])
		if i > 0 && i <= n {
			fmt.Fprintln(os.Stderr, "cannot start again")
			os.Exit(4)
		}
		return &misbehaving{SearchPlayer: sp, fault: func(r int, _ []engine.Board, _ []engine.Dir) {
			if i == 0 && r == 5 {
				fmt.Fprintln(os.Stderr, "crashing first")
				os.Exit(3)
			}
		}}, true
	}
	return nil, false
}
