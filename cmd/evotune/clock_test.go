package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"
)

// clockConfig has generations of a few seconds (4 candidates × 120 games
// at 5 plies on 2 workers; 48 games at 3 plies under the race detector,
// which plays a game some 20 times slower), each game cut at 300 moves, so that a stop
// a couple of seconds in lands in the middle of a generation and loses
// only the few games in flight; its end costs little (4 validation games,
// no final race). Racing plays a generation in blocks, so that the first
// generation's games played beside the start's validation are one block,
// not the whole generation.
func clockConfig() string {
	depth, games := 5, 120
	if raceDetector {
		depth, games = 3, 48
	}
	return fmt.Sprintf(`name: clock
seed: 3
generations: 0
duration: 1h
features: standard
optimizer: {method: cmaes, population: 4}
search: {algorithm: expectimax, depth: %d}
fitness: {games: %d, max_moves: 300}
noise: {handling: false, racing: true}
validation: {games: 4, select: 0}
`, depth, games)
}

// spentProcess is what a process really spent, as the system counts it,
// and what it printed on its standard output.
type spentProcess struct {
	wall, cpu time.Duration
	stdout    string
}

// stopAfter runs the evotune command args as a child process, sends it
// sig once it has run for d (and handles Ctrl-C), and returns what it
// spent: the wall-clock time from before its start to after its exit, and
// its user and system CPU time.
func stopAfter(t *testing.T, d time.Duration, sig syscall.Signal, args ...string) spentProcess {
	t.Helper()
	began := time.Now()
	c := startChild(t, "", args...)
	c.waitReady()
	select {
	case <-c.done:
		t.Fatalf("%v: ended before the stop: %s", args, c.stderr.String())
	case <-time.After(time.Until(began.Add(d))):
	}
	c.cmd.Process.Signal(sig)
	code := c.exitCode()
	if want := map[syscall.Signal]int{syscall.SIGKILL: -1, syscall.SIGINT: exitInterrupted}[sig]; code != want {
		t.Fatalf("%v: exit %d after %v, want %d\n%s", args, code, sig, want, c.stderr.String())
	}
	ps := c.cmd.ProcessState
	return spentProcess{time.Since(began), ps.UserTime() + ps.SystemTime(), c.stdout.String()}
}

var spentRE = regexp.MustCompile(`is not more than the (\S+) .* has already spent`)

// spentSoFar asks evotune resume how much time the run in dir has spent,
// by offering it a duration it has spent: the refusal says.
func spentSoFar(t *testing.T, dir string) time.Duration {
	t.Helper()
	c := startChild(t, "", "resume", dir, "--duration", "1ms")
	if code := c.exitCode(); code != 2 {
		t.Fatalf("resume --duration 1ms: exit %d, want 2 (refused: the run has spent more than that)\n%s", code, c.stderr.String())
	}
	m := spentRE.FindStringSubmatch(c.stderr.String())
	if m == nil {
		t.Fatalf("resume --duration 1ms: %q says nothing of the time spent", c.stderr.String())
	}
	d, err := time.ParseDuration(m[1])
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestClockCountsStoppedProcesses stops a run three times in the middle
// of a generation, after a known time, with SIGKILL, SIGINT and SIGKILL
// (under -short twice), and checks the run's clock against what the
// processes really spent: after each stop, the time a resume counts as
// spent; at the end, which the run's own --duration reaches on that clock,
// history.jsonl's elapsed_s and cpu_s, and the report's wall time.
//
// What a stop may take from the count: the moments a process spends
// before it takes the run over (starting, reading the run; up to startup
// each, more under the race detector), and for a kill -9 the time since
// the clock's last journal line (at most half a second; a second is
// allowed): of CPU time, that second on each of the 2 workers.
func TestClockCountsStoppedProcesses(t *testing.T) {
	startup := 300 * time.Millisecond
	if raceDetector {
		startup = time.Second
	}
	stop := 2 * time.Second
	signals := []syscall.Signal{syscall.SIGKILL, syscall.SIGINT, syscall.SIGKILL}
	if testing.Short() {
		signals = signals[:2]
	}
	dir := filepath.Join(t.TempDir(), "run")
	cfg := writeConfig(t, clockConfig())

	var sum spentProcess
	var wallTol, cpuTol time.Duration
	for i, sig := range signals {
		args := []string{"resume", dir, "--workers", "2"}
		if i == 0 {
			args = []string{"tune", "--config", cfg, "--out", dir, "--workers", "2"}
		}
		p := stopAfter(t, stop, sig, args...)
		// The resume says where it goes on: the stop came mid-generation,
		// after games that the journal gives back.
		if i > 0 && !regexp.MustCompile(`(?m)^resumed   at generation \d+ \(\d+ done\)(, the start's validation first)?; \d+ finished games in the journal, taken instead of played again$`).MatchString(p.stdout) {
			t.Errorf("resume %d does not say where it goes on and what the journal gives back:\n%s", i, p.stdout)
		}
		sum.wall += p.wall
		sum.cpu += p.cpu
		wallTol += startup
		cpuTol += startup
		if sig == syscall.SIGKILL {
			wallTol += time.Second
			cpuTol += 2 * time.Second
		}
		spent := spentSoFar(t, dir)
		t.Logf("stop %d (%v): process %v wall %v CPU; processes so far %v wall; the run counts %v", i+1, sig, p.wall.Round(time.Millisecond), p.cpu.Round(time.Millisecond), sum.wall.Round(time.Millisecond), spent)
		if spent > sum.wall || spent < sum.wall-wallTol {
			t.Fatalf("after stop %d the run counts %v spent; its processes spent %v (want at most %v less)", i+1, spent, sum.wall, wallTol)
		}
	}

	// The run's own duration, a little past what it has spent: it stops
	// at the end of the first generation after that, on the clock that
	// counts every process.
	limit := spentSoFar(t, dir) + 2*time.Second
	had := len(historyLines(t, dir))
	began := time.Now()
	c := startChild(t, "", "resume", dir, "--workers", "2", "--duration", limit.String())
	if code := c.exitCode(); code != 0 {
		t.Fatalf("resume --duration %v: exit %d\n%s", limit, code, c.stderr.String())
	}
	sum.wall += time.Since(began)
	sum.cpu += c.cmd.ProcessState.UserTime() + c.cmd.ProcessState.SystemTime()
	wallTol += startup
	cpuTol += startup
	spent := spentSoFar(t, dir)
	t.Logf("end: processes %v wall, %v CPU; the run counts %v; --duration %v", sum.wall.Round(time.Millisecond), sum.cpu.Round(time.Millisecond), spent, limit)
	if spent > sum.wall || spent < sum.wall-wallTol {
		t.Errorf("at the end the run counts %v spent; its processes spent %v (want at most %v less)", spent, sum.wall, wallTol)
	}

	lines := historyLines(t, dir)
	if len(lines) == had {
		t.Fatalf("the last process ended no generation (it ran into its duration before):\n%s", c.stdout.String())
	}
	type line struct {
		Stop    string  `json:"stop"`
		Elapsed float64 `json:"elapsed_s"`
		CPU     float64 `json:"cpu_s"`
	}
	var last line
	jsonUnmarshal(t, lines[len(lines)-1], &last)
	elapsed, cpu := secondsOf(last.Elapsed), secondsOf(last.CPU)
	t.Logf("history: %d lines, the last written by the last process: elapsed_s %.3f cpu_s %.3f, stop %q", len(lines), last.Elapsed, last.CPU, last.Stop)
	if want := fmt.Sprintf("duration: %v spent", limit); last.Stop != want {
		t.Errorf("the run stopped for %q, want %q", last.Stop, want)
	}
	if elapsed < limit {
		t.Errorf("--duration %v: the run stopped with elapsed_s %.3f", limit, last.Elapsed)
	}
	for _, l := range lines[had : len(lines)-1] {
		var before line
		jsonUnmarshal(t, l, &before)
		if secondsOf(before.Elapsed) >= limit {
			t.Errorf("--duration %v: a generation ended at %.3f s and the run went on", limit, before.Elapsed)
		}
	}
	// (The run's end, its validation and files, comes after the last
	// line: at most a second here.)
	if elapsed > spent || elapsed < sum.wall-wallTol-time.Second {
		t.Errorf("elapsed_s %.3f; the processes spent %v (want at most %v less)", last.Elapsed, sum.wall, wallTol+time.Second)
	}
	if last.CPU > 0 && (cpu > sum.cpu || cpu < sum.cpu-cpuTol-2*time.Second) {
		t.Errorf("cpu_s %.3f; the processes spent %v CPU (want at most %v less)", last.CPU, sum.cpu, cpuTol+2*time.Second)
	}

	page := filepath.Join(t.TempDir(), "report.html")
	if code, _, errs := runCLI(t, "report", dir, "-o", page); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`<th>wall time</th><td>([^<]+)</td>`).FindSubmatch(html)
	if m == nil {
		t.Fatal("the report shows no wall time")
	}
	shown, err := time.ParseDuration(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	if d := shown - spent; d > time.Second || d < -time.Second {
		t.Errorf("the report shows %v of wall time; the run counts %v (want the same, to the second)", shown, spent)
	}
}

func secondsOf(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
