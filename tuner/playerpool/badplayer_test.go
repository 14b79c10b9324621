package playerpool

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

// badPlayer runs the misbehaving players of the tests of the limits, each
// doing one thing wrong (the rest as the built-in player at 2 plies), and
// reports whether mode is one of them:
//
//	trickle          a param line every 0.5 s, never ready
//	param-flood      param lines as fast as it can, never ready
//	param-dup        x declared twice, then silence
//	long-line        a line of 1 GB, no newline
//	stderr-flood KB then  KB KiB on standard error without a newline, then
//	                 "crash" (exit 3) or "serve"
//	ignore-quit      serves, and stays after quit
//	stop-reading     answers set and two move requests, then reads nothing
//	                 more and sleeps
//	crlf             serves with lines ending in \r\n
//	segv-32768       serves, and dies of SIGSEGV on a board with a 32768
//	spawn FILE WHEN  starts a child that sleeps, appends "PID CHILDPID" to
//	                 FILE, then WHEN: serve, hang (at its 3rd move request)
//	                 or crash (exit 3 at its 3rd move request)
//	sleeper          sleeps an hour: spawn's child
func badPlayer(mode string, args []string) (int, bool) {
	out := bufio.NewWriter(os.Stdout)
	in := bufio.NewReader(os.Stdin)
	hello := func() bool {
		_, err := in.ReadString('\n')
		return err == nil
	}
	serve := func(p Player, w io.Writer) int {
		if err := Serve(context.Background(), in, w, p); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	sp := func() *SearchPlayer {
		return must(NewSearchPlayer(must(eval.Set("standard")), standardSearch(2), nil))
	}
	switch mode {
	case "trickle":
		hello()
		fmt.Fprintln(out, "id trickle 1")
		out.Flush()
		for i := 0; i < MaxParams; i++ {
			time.Sleep(500 * time.Millisecond)
			fmt.Fprintf(out, "param p%d float 1 0 2\n", i)
			out.Flush()
		}
		time.Sleep(time.Hour)
		return 0, true
	case "param-flood":
		hello()
		fmt.Fprintln(out, "id flood 1")
		for i := 0; ; i++ {
			if _, err := fmt.Fprintf(out, "param p%d float 1 0 2\n", i); err != nil {
				return 1, true
			}
		}
	case "param-dup":
		hello()
		fmt.Fprint(out, "id dup 1\nparam x float 1 0 2\nparam y float 1 0 2\nparam x int 1 0 2\n")
		out.Flush()
		time.Sleep(time.Hour)
		return 0, true
	case "long-line":
		hello()
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		out.WriteString("id ")
		for range (1 << 30) / len(chunk) {
			if _, err := out.Write(chunk); err != nil {
				return 1, true
			}
		}
		out.Flush()
		return 0, true
	case "stderr-flood":
		kb, _ := strconv.Atoi(args[0])
		chunk := bytes.Repeat([]byte("flood "), 1<<10/6)
		for n := 0; n < kb<<10; n += len(chunk) {
			os.Stderr.Write(chunk)
		}
		if args[1] == "crash" {
			hello()
			os.Exit(3)
		}
		return serve(sp(), os.Stdout), true
	case "ignore-quit":
		code := serve(sp(), os.Stdout)
		time.Sleep(time.Hour)
		return code, true
	case "stop-reading":
		hello()
		fmt.Fprint(out, "id deaf 1\nparam x float 1 0 2\nready\n")
		out.Flush()
		in.ReadString('\n') // set
		fmt.Fprintln(out, "ok")
		out.Flush()
		for range 2 {
			line, _ := in.ReadString('\n')
			boards, err := ParseMove(bytes.TrimSuffix([]byte(line), []byte("\n")), nil)
			if err != nil {
				return 2, true
			}
			dirs := make([]engine.Dir, len(boards))
			sp().Moves(boards, dirs)
			fmt.Fprintln(out, string(AppendBest(nil, dirs)))
			out.Flush()
		}
		time.Sleep(time.Hour)
		return 0, true
	case "crlf":
		return serve(sp(), crlfWriter{os.Stdout}), true
	case "segv-32768":
		return serve(&misbehaving{SearchPlayer: sp(), fault: func(_ int, boards []engine.Board, _ []engine.Dir) {
			for _, b := range boards {
				if b.MaxTile() >= 32768 {
					fmt.Fprintln(os.Stderr, "a 32768: my table has no room for it")
					segfault()
				}
			}
		}}, os.Stdout), true
	case "spawn":
		child := exec.Command(os.Args[0], testPlayerFlag, "sleeper")
		child.Stderr = os.Stderr // as a shell script's commands hold its pipes
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
		// One short append a start: the file lists every start's pids.
		f, err := os.OpenFile(args[0], os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
		fmt.Fprintf(f, "%d %d\n", os.Getpid(), child.Process.Pid)
		f.Close()
		var p Player = sp()
		switch args[1] {
		case "hang":
			p = &misbehaving{SearchPlayer: sp(), fault: func(n int, _ []engine.Board, _ []engine.Dir) {
				if n == 3 {
					time.Sleep(time.Hour)
				}
			}}
		case "crash":
			p = &misbehaving{SearchPlayer: sp(), fault: func(n int, _ []engine.Board, _ []engine.Dir) {
				if n == 3 {
					os.Exit(3)
				}
			}}
		}
		return serve(p, os.Stdout), true
	case "sleeper":
		time.Sleep(time.Hour)
		return 0, true
	}
	return 0, false
}

// crlfWriter ends lines with \r\n, as a player on Windows may.
type crlfWriter struct{ w io.Writer }

func (c crlfWriter) Write(b []byte) (int, error) {
	if _, err := c.w.Write(bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n"))); err != nil {
		return 0, err
	}
	return len(b), nil
}
