//go:build unix

package playerpool

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/internal/proctest"
	"github.com/evotune/evotune/tuner"
)

// limitOptions are short limits, so that each misbehaving player costs a
// second or two; the handshake's is long enough for a test binary to start
// on a loaded machine, unless a test wants it to pass.
func limitOptions(t *testing.T) Options {
	return Options{HandshakeTimeout: 20 * time.Second, MoveTimeout: 2 * time.Second, QuitTimeout: 300 * time.Millisecond, LogDir: t.TempDir()}
}

// allocated returns the bytes f allocated in this process.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// checkError checks that err is one line, an *Error of kind, saying each
// of says.
func checkError(t *testing.T, err error, kind error, says ...string) {
	t.Helper()
	var pe *Error
	if !errors.As(err, &pe) || !errors.Is(err, kind) {
		t.Fatalf("error %v (%T), want an *Error wrapping %v", err, err, kind)
	}
	msg := err.Error()
	if strings.ContainsAny(msg, "\n\r\x1b") {
		t.Errorf("error is not one printable line: %q", msg)
	}
	for _, s := range says {
		if !strings.Contains(msg, s) {
			t.Errorf("error does not say %q:\n%s", s, msg)
		}
	}
}

// logSize returns the size of the only log in dir.
func logSize(t *testing.T, dir string) int64 {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	if len(logs) != 1 {
		t.Fatalf("logs %v", logs)
	}
	fi, err := os.Stat(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestBadHandshakes: the handshake's limits, each driven by a player
// breaking it. The limit is one for the whole handshake (a param line
// every 0.5 s does not outlast it), at most MaxParams parameters, a
// duplicate refused when it arrives, a line of 1 GB refused after MaxLine
// bytes; each costs bounded memory and leaves no process.
func TestBadHandshakes(t *testing.T) {
	cases := []struct {
		mode  []string
		kind  error
		says  []string
		alloc uint64 // most bytes evotune may allocate
	}{
		// The handshake limit is 2 s for trickle and hang-start, which
		// must reach it, and 20 s for the others, which must fail first.
		{[]string{"trickle"}, ErrTimeout, []string{"did not finish its handshake within 2s", "lines received, no ready"}, 1 << 20},
		{[]string{"param-flood"}, ErrProtocol, []string{"declared more than 64 parameters"}, 4 << 20},
		{[]string{"param-dup"}, ErrProtocol, []string{"parameter x declared twice"}, 1 << 20},
		{[]string{"long-line"}, ErrProtocol, []string{"sent a line longer than 65536 bytes while answering the handshake"}, 4 << 20},
		{[]string{"hang-start"}, ErrTimeout, []string{"did not answer the handshake within 2s: it sent nothing (does it flush its standard output after each line?)", "is empty"}, 1 << 20},
		{[]string{"stderr-flood", "8192", "crash"}, ErrExited, []string{"exited (exit status 3) while answering the handshake", "ends: [evotune: this process wrote 1 MiB to its log; the rest of its output is discarded]"}, 4 << 20},
		{[]string{"stderr-flood", "200", "crash"}, ErrExited, []string{"exited (exit status 3) while answering the handshake", "ends: ...", "flood flood"}, 1 << 20},
	}
	for _, c := range cases {
		t.Run(c.mode[0], func(t *testing.T) {
			opts := limitOptions(t)
			if c.kind == ErrTimeout {
				opts.HandshakeTimeout = 2 * time.Second
			}
			logPath := filepath.Join(opts.LogDir, "probe.log")
			var p *Process
			var err error
			log := must(openLog(logPath))
			defer log.Close()
			n := allocated(func() {
				p, err = start(context.Background(), playerCommand(c.mode[0], c.mode[1:]...), log, opts, nil, "")
			})
			if err == nil {
				p.Close()
				t.Fatalf("the handshake passed")
			}
			checkError(t, err, c.kind, c.says...)
			if n > c.alloc {
				t.Errorf("%d bytes allocated, want at most %d", n, c.alloc)
			}
			if size := logSize(t, opts.LogDir); size > MaxProcessLog+1024 {
				t.Errorf("log of %d bytes, over the budget of %d", size, MaxProcessLog)
			}
		})
	}
}

// TestHandshakeCancel: a cancelled context ends a handshake being
// trickled at once, whatever the handshake limit.
func TestHandshakeCancel(t *testing.T) {
	opts := limitOptions(t)
	opts.HandshakeTimeout = time.Hour
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	_, err := Probe(ctx, playerCommand("trickle"), "", opts)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want the context's", err)
	}
	var pe *Error
	if errors.As(err, &pe) {
		t.Errorf("a cancellation is reported as the player's failure: %v", err)
	}
}

// openBad opens a test player of mode, set to its defaults.
func openBad(t *testing.T, opts Options, mode ...string) *Process {
	t.Helper()
	p, err := Open(context.Background(), playerCommand(mode[0], mode[1:]...), filepath.Join(opts.LogDir, "p.log"), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Set(p.Family().Defaults()); err != nil {
		p.Close()
		t.Fatal(err)
	}
	return p
}

// someBoards returns n boards with legal moves, the first few moves of a
// game.
func someBoards(n int) []engine.Board {
	g := engine.NewGame(1)
	boards := make([]engine.Board, n)
	for i := range boards {
		boards[i] = g.Board()
		if i < 20 {
			for _, d := range engine.Dirs {
				if g.Play(d) == nil {
					break
				}
			}
		}
	}
	return boards
}

// TestStopsReading: a player that stops reading its input cannot block
// evotune once the pipe is full: the move limit covers the write too.
func TestStopsReading(t *testing.T) {
	opts := limitOptions(t)
	opts.MoveTimeout = time.Second
	p := openBad(t, opts, "stop-reading")
	defer p.Close()
	boards := someBoards(8000) // 150 kB: more than the pipe and our buffer hold
	// Two requests answered (the first board alone, then 1999 more) set
	// the pace: the limit of the third is 1 s and 7999 times 4 times the
	// time per board of the second.
	if _, err := p.Moves(boards[:2000], nil); err != nil {
		t.Fatal(err)
	}
	_, err := p.Moves(boards, nil)
	checkError(t, err, ErrTimeout, "did not answer move for "+boards[0].Hex()+" (and 7999 more boards) within ")
}

// TestSegfaultNamesBoard: a player dying of SIGSEGV on a board says so,
// naming the board of the request and how many more there were.
func TestSegfaultNamesBoard(t *testing.T) {
	opts := limitOptions(t)
	p := openBad(t, opts, "segv-32768")
	defer p.Close()
	boards := someBoards(16)
	big := engine.Board(0x0000_0000_0000_000f) | boards[3]&^0xf // a 32768 in a corner
	boards[3] = big
	_, err := p.Moves(boards, nil)
	// The process's first request holds boards[0] alone (see Moves).
	checkError(t, err, ErrExited, "exited (signal: segmentation fault) while answering move for "+boards[1].Hex()+" (and 14 more boards)", "my table has no room for it")
}

// TestCRLF: a player ending its lines with \r\n plays the games of one
// ending them with \n.
func TestCRLF(t *testing.T) {
	seeds := testSeeds(2)
	want := inProcess(t, 2, seeds)
	fam := probe(t, playerCommand("crlf"))
	p := New(1, limitOptions(t))
	defer p.Close()
	got, err := playPool(t, p, fam, [][]float64{fam.Defaults()}, seeds)
	if err != nil {
		t.Fatal(err)
	}
	for i := range seeds {
		if got[0][i] != want[i] {
			t.Errorf("seed %d: %+v, want %+v", seeds[i], got[0][i], want[i])
		}
	}
}

// TestStderrFloodRecovered: a player writing 8 MiB on its standard error
// before its handshake plays its game; its log keeps the budget.
func TestStderrFloodRecovered(t *testing.T) {
	opts := limitOptions(t)
	cmd := playerCommand("stderr-flood", "8192", "serve")
	fam, err := Probe(context.Background(), cmd, "", opts)
	if err != nil {
		t.Fatal(err)
	}
	p := New(1, opts)
	var playErr error
	n := allocated(func() { _, playErr = playPool(t, p, fam, [][]float64{fam.Defaults()}, testSeeds(1)) })
	p.Close()
	if playErr != nil {
		t.Fatal(playErr)
	}
	if size := logSize(t, opts.LogDir); size > MaxProcessLog+1024 {
		t.Errorf("log of %d bytes, over the budget of %d", size, MaxProcessLog)
	}
	if n > 16<<20 {
		t.Errorf("%d bytes allocated for a game", n)
	}
}

// spawnPids returns the pids the spawn players listed in path, failing
// if there are none.
func spawnPids(t *testing.T, path string) []int {
	t.Helper()
	pids, err := proctest.ReadPids(path)
	if err != nil || len(pids) == 0 {
		t.Fatalf("no pids: %v", err)
	}
	return pids
}

// TestNoProcessLeft: a player that starts a child (which holds its
// standard error, as a shell script's commands do) leaves no process after
// Close, after a cancelled batch (at once, not at the move limit), after
// crashing, after hanging and after ignoring quit.
func TestNoProcessLeft(t *testing.T) {
	cases := []struct {
		name string
		when string
		move time.Duration // the move limit
		stop time.Duration // the batch is cancelled after this, if not 0
		kind error         // the batch's failure; nil: none
	}{
		{"close", "serve", 0, 0, nil},
		{"cancel", "hang", time.Hour, 700 * time.Millisecond, context.DeadlineExceeded},
		{"crash", "crash", 0, 0, ErrExited},
		{"hang", "hang", 300 * time.Millisecond, 0, ErrTimeout},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := limitOptions(t)
			if c.move > 0 {
				opts.MoveTimeout = c.move
			}
			opts.Batch = 2
			pidFile := filepath.Join(t.TempDir(), "pids")
			cmd := playerCommand("spawn", pidFile, c.when)
			fam := probe(t, cmd)
			ctx := context.Background()
			if c.stop > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, c.stop)
				defer cancel()
			}
			p := New(1, opts)
			seeds := testSeeds(2)
			results := [][]engine.Result{make([]engine.Result, len(seeds))}
			err := p.Play(ctx, &tuner.Batch{Players: fam, Vectors: [][]float64{fam.Defaults()}, Seeds: seeds, MaxMoves: 30}, results, nil)
			p.Close()
			switch {
			case c.kind == nil && err != nil:
				t.Errorf("play: %v", err)
			case c.kind != nil && !errors.Is(err, c.kind):
				t.Errorf("play: %v, want %v", err, c.kind)
			}
			proctest.WaitGone(t, spawnPids(t, pidFile)...)
		})
	}
}

// TestIgnoresQuit: a player that stays after quit is killed at the quit
// limit.
func TestIgnoresQuit(t *testing.T) {
	opts := limitOptions(t)
	cmd := playerCommand("ignore-quit")
	fam := probe(t, cmd)
	p := New(1, opts)
	if _, err := playPool(t, p, fam, [][]float64{fam.Defaults()}, testSeeds(1)); err != nil {
		t.Fatal(err)
	}
	pid := p.slots[0].proc.tree.Pid()
	p.Close()
	proctest.WaitGone(t, pid)
}

// TestLogAfresh: a pool's log starts afresh, marks where each process
// starts, and an error quotes the failing process's output only.
func TestLogAfresh(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "slot-1.log")
	os.WriteFile(path, []byte("a line of an earlier run\n"), 0o644)
	log := must(openLog(path))
	defer log.Close()
	opts := limitOptions(t)
	_, err := start(context.Background(), playerCommand("crash-start"), log, opts, nil, "")
	checkError(t, err, ErrExited, "ends: cannot load my tables")
	opts.HandshakeTimeout = 300 * time.Millisecond
	_, err = start(context.Background(), playerCommand("hang-start"), log, opts, nil, "")
	checkError(t, err, ErrTimeout, "is empty")
	b, _ := os.ReadFile(path)
	for _, s := range []string{"a line of an earlier run"} {
		if bytes.Contains(b, []byte(s)) {
			t.Errorf("the log still holds %q", s)
		}
	}
	for _, s := range []string{"player process 1", "cannot load my tables", "player process 2"} {
		if !bytes.Contains(b, []byte(s)) {
			t.Errorf("the log does not hold %q:\n%s", s, b)
		}
	}
}
