package proctree

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/evotune/evotune/internal/cputime"
)

// childEnv set makes the test binary a child of the tests instead of a
// test run: real processes, without a binary of their own.
const childEnv = "PROCTREE_TEST_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(child(strings.Fields(mode)))
	}
	os.Exit(m.Run())
}

// childCommand returns the command that runs the test binary as the child
// of mode and its arguments, and sets childEnv for it through the
// environment the tests' children inherit.
func childCommand(t testing.TB, mode ...string) []string {
	t.Setenv(childEnv, strings.Join(mode, " "))
	return []string{os.Args[0]}
}

// child runs the child of a mode and returns its exit status. Modes:
//
//	sleep            sleeps an hour
//	tree FILE        starts "sleep" (which shares its pipes), appends
//	                 "PID CHILDPID" to FILE, sleeps
//	orphan FILE      as tree, then exits at once, leaving its child
//	spin D           burns D of CPU, then exits
//	spintree D       runs "spin D" to its end, burns D itself, says
//	                 "spun" on stdout, then exits when its input closes
//	flood KB         writes KB KiB on stderr without a newline, then
//	                 exits 3
//	echo             copies each line of its input to its output
//	hold FILE        starts "tree FILE" as evotune starts a tree, then
//	                 sleeps: to be killed with kill -9
func child(args []string) int {
	forever := func() int {
		time.Sleep(time.Hour)
		return 0
	}
	spawn := func(file string) {
		c := exec.Command(os.Args[0])
		c.Env = append(os.Environ(), childEnv+"=sleep")
		c.Stdout, c.Stderr = os.Stdout, os.Stderr
		if err := c.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(10)
		}
		f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			os.Exit(11)
		}
		fmt.Fprintf(f, "%d %d\n", os.Getpid(), c.Process.Pid)
		f.Close()
	}
	switch args[0] {
	case "sleep":
		return forever()
	case "tree":
		spawn(args[1])
		return forever()
	case "orphan":
		spawn(args[1])
		return 0
	case "spin":
		d, _ := time.ParseDuration(args[1])
		spin(d)
		return 0
	case "spintree":
		c := exec.Command(os.Args[0])
		c.Env = append(os.Environ(), childEnv+"=spin "+args[1])
		if err := c.Run(); err != nil {
			return 12
		}
		d, _ := time.ParseDuration(args[1])
		spin(d)
		fmt.Println("spun")
		io.Copy(io.Discard, os.Stdin)
		return 0
	case "flood":
		var kb int
		fmt.Sscan(args[1], &kb)
		chunk := bytes.Repeat([]byte("flood "), 1<<10/6)
		for n := 0; n < kb<<10; n += len(chunk) {
			os.Stderr.Write(chunk)
		}
		return 3
	case "echo":
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			fmt.Println(in.Text())
		}
		return 0
	case "hold":
		os.Setenv(childEnv, "tree "+args[1])
		if _, err := Start([]string{os.Args[0]}, Config{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 13
		}
		return forever()
	}
	fmt.Fprintf(os.Stderr, "unknown child mode %q\n", args)
	return 2
}

// spin burns d of this process's CPU.
func spin(d time.Duration) {
	start, err := cputime.Process()
	if err != nil {
		return
	}
	for now := start; now-start < d; now, _ = cputime.Process() {
	}
}
