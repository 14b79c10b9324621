package tunebench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/evotune/evotune/internal/cputime"
	"github.com/evotune/evotune/tuner/objective"
)

// TestMain lets the test binary stand in for a peer optimizer: with
// TUNEBENCH_PEER set it speaks the objective protocol as that mode says
// ("args": as its first argument says, so that the rows of one benchmark
// can differ).
func TestMain(m *testing.M) {
	if mode := os.Getenv("TUNEBENCH_PEER"); mode != "" {
		if mode == "args" && len(os.Args) > 1 {
			mode = os.Args[1]
		}
		os.Exit(testPeer(mode))
	}
	os.Exit(m.Run())
}

// peerSpin is the CPU the "spin" peer burns before its first request, so
// that the test can see the peer's CPU counted.
const peerSpin = 300 * time.Millisecond

// spin burns d of this process's CPU.
func spin(d time.Duration) {
	start, _ := cputime.Process()
	for now := start; now-start < d; now, _ = cputime.Process() {
	}
}

// testPeer is a peer optimizer that evaluates its start, shifted a little
// each time, on common seeds, and recommends its latest point; with
// TUNEBENCH_PIDS set it first appends its pid to that file. Modes that
// behave: "good"; "spin" (burns peerSpin of CPU first); "heldout" (asks
// for a held-out game of each block, then behaves); "quit" (ends on its own after 4
// requests, without a final word); "big" (asks for 100,000 games at once);
// "spinexit" (burns peerSpin of CPU after its final line, then exits);
// "linger" (does not exit after its final line). Modes that do not: "crash"
// (exits 3 after the first line); "hang" (reads the first line, then
// waits); "fork" (starts a child peer in mode "hang", then waits);
// "loop" (burns CPU without end); "flood" (sends garbage lines without
// end, reading the answers); "longline" (one line without end);
// "stderr" (writes its stderr without end, then hangs); "nofinal" (asks
// for games again after the stop); "silent" (says nothing after the
// stop, and stays).
func testPeer(mode string) int {
	if f := os.Getenv("TUNEBENCH_PIDS"); f != "" {
		pids, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return 9
		}
		fmt.Fprintln(pids, os.Getpid())
		pids.Close()
	}
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	read := func() map[string]any {
		line, err := in.ReadBytes('\n')
		if err != nil {
			os.Exit(4)
		}
		var m map[string]any
		if json.Unmarshal(line, &m) != nil {
			os.Exit(5)
		}
		return m
	}
	send := func(v any) map[string]any {
		data, _ := json.Marshal(v)
		out.Write(append(data, '\n'))
		out.Flush()
		return read()
	}
	var hello objective.Hello
	line, _ := in.ReadBytes('\n')
	if json.Unmarshal(line, &hello) != nil || hello.Budget <= 0 || hello.BudgetGames <= 0 {
		return 6
	}
	forever := func() int {
		for {
			time.Sleep(time.Hour)
		}
	}
	switch mode {
	case "crash":
		return 3
	case "hang":
		return forever()
	case "fork":
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), "TUNEBENCH_PEER=hang")
		child.Stdin = strings.NewReader(string(line))
		if child.Start() != nil {
			return 10
		}
		return forever()
	case "loop":
		for {
			spin(time.Second)
		}
	case "flood":
		go io.Copy(io.Discard, in)
		for {
			out.WriteString("not json\n")
		}
	case "longline":
		go io.Copy(io.Discard, in)
		for {
			out.WriteString("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")
		}
	case "stderr":
		for range 100_000 {
			os.Stderr.WriteString("a line of the peer's log, again and again\n")
		}
		return forever()
	case "spin":
		spin(peerSpin)
	case "heldout":
		params := map[string]float64{}
		for _, q := range hello.Params {
			params[q.Name] = q.Start
		}
		// A held-out game of either block, whichever the run is judged on.
		for _, seed := range []uint64{HeldOutSeed(1), ConfirmSeed(2)} {
			a := send(map[string]any{"id": 0, "params": params, "seeds": []uint64{seed}})
			if e, _ := a["error"].(string); !strings.Contains(e, "held-out") {
				return 7
			}
		}
	}
	point := func(k int) map[string]float64 {
		params := map[string]float64{}
		for _, q := range hello.Params {
			params[q.Name] = q.Start + 0.01*float64(k%3)*q.Scale
		}
		return params
	}
	games := hello.Games
	if mode == "big" {
		games = objective.MaxGames
	}
	for k := 1; ; k++ {
		a := send(map[string]any{"id": k, "params": point(k), "games": games, "first": 0})
		if _, ok := a["stop"]; ok {
			switch mode {
			case "nofinal":
				for {
					send(map[string]any{"id": k, "params": point(k), "games": games, "first": 0})
				}
			case "silent":
				return forever()
			}
			send(map[string]any{"recommend": point(k), "final": true})
			switch mode {
			case "spinexit":
				spin(peerSpin)
			case "linger":
				return forever()
			}
			return 0
		}
		if _, ok := a["scores"]; !ok {
			return 8
		}
		if a["recommend"] == true {
			send(map[string]any{"recommend": point(k)})
		}
		if mode == "quit" && k == 4 {
			send(map[string]any{"recommend": point(k)})
			return 0
		}
	}
}

func peerOptions(t *testing.T, mode string) Options {
	t.Setenv("TUNEBENCH_PEER", mode)
	return Options{Short: true, Seeds: []uint64{1, 2}, Workers: 1, Full: true, Peer: []string{os.Args[0]}}
}

func TestPeerRuns(t *testing.T) {
	ctx := context.Background()
	p, _ := Lookup("nneonneo-cap1")
	var first []Run
	for _, mode := range []string{"good", "heldout", "good"} {
		r, err := RunPeer(ctx, p, peerOptions(t, mode))
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if r.Peer != os.Args[0] || len(r.Runs) != 2 {
			t.Fatalf("%s: peer %q, %d runs", mode, r.Peer, len(r.Runs))
		}
		for _, run := range r.Runs {
			// A short run stops at 120 games: requests of 4 games, every
			// fifth answer asks for a recommendation (a grid of 20
			// games), and the stop brings the final one, a point of its
			// own (its weights are not the sixth point's).
			if run.Stop != "budget" || len(run.Points) != 7 || run.Final.Games != 120 || run.Final.Generation != 30 || run.Final.Grid != 0 || run.Points[5].Grid != 120 {
				t.Errorf("%s, seed %d: stop %q, points %+v", mode, run.Seed, run.Stop, run.Points)
			}
		}
		if first == nil {
			first = r.Runs
			continue
		}
		for i := range first {
			if got, want := withoutCPU(r.Runs[i]), withoutCPU(first[i]); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s, seed %d: points %v, first run's %v", mode, first[i].Seed, got, want)
			}
		}
	}
}

func TestPeerCPUCounts(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "windows" {
		t.Skip("no live CPU of a peer here: it is read when the peer exits")
	}
	p, _ := Lookup("standard-3")
	r, err := RunPeer(context.Background(), p, peerOptions(t, "spin"))
	if err != nil {
		t.Fatal(err)
	}
	// The peer stops spinning on its own precise reading (getrusage);
	// the benchmark reads it from /proc, in ticks of 10 ms, so a few
	// ticks of slack (it read 0.299 s once on a busy machine).
	want := peerSpin - 30*time.Millisecond
	for _, run := range r.Runs {
		if got := run.Points[0].CPU; got < want.Seconds() {
			t.Errorf("seed %d: %.3f CPU s at the first point, less than the %v the peer spun (%v with the slack of /proc's ticks)", run.Seed, got, peerSpin, want)
		}
	}
}

func TestPeerFailures(t *testing.T) {
	p, _ := Lookup("standard-3")
	if _, err := RunPeer(context.Background(), p, peerOptions(t, "crash")); err == nil || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("a peer that exits 3: %v", err)
	}
	r, err := RunPeer(context.Background(), p, peerOptions(t, "quit"))
	if err != nil {
		t.Fatalf("a peer that ends on its own: %v", err)
	}
	for _, run := range r.Runs {
		if run.Stop != "peer" || run.Final.Generation != 4 {
			t.Errorf("a peer that ends on its own after 4 requests: stop %q, final %+v", run.Stop, run.Final)
		}
	}
}

// fakeProc is a peerProc without a process, for admit's tests.
func fakeProc(t *testing.T) *peerProc {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &peerProc{in: w, out: r, lim: PeerLimits{}.resolved(time.Minute), afterStop: -1}
	t.Cleanup(func() {
		p.mu.Lock()
		if p.grace != nil {
			p.grace.Stop()
		}
		p.mu.Unlock()
		p.end(nil)
		r.Close()
		w.Close()
	})
	return p
}

// TestPeerBudgetCut checks admit's refusals: a request that would pass
// the budget in games, or in CPU at the run's cost per game (the start's
// before the run's own first answer), is answered stop, not played.
func TestPeerBudgetCut(t *testing.T) {
	b := &bench{p: Problem{Budget: 10 * time.Second, Target: 2}, seeds: make([]uint64, 1000), startCPU: time.Second}
	newRun := func() *peerRun {
		r := &peerRun{b: b, j: &judge{b: b}, proc: fakeProc(t), heldOut: map[uint64]bool{7: true}}
		r.base, _ = cputime.Process()
		return r
	}

	r := newRun()
	// The start cost 1 ms a game: 100,000 games would take 100 CPU s.
	if stop, err := r.admit(make([]uint64, 100_000)); err != nil || !strings.Contains(stop, "would take about 100.0 CPU s") {
		t.Errorf("100,000 games on a budget of 10 CPU s: stop %q, error %v", stop, err)
	}
	if r.stopping != "budget" || r.proc.afterStop != 0 {
		t.Errorf("after the stop: stopping %q, grace count %d", r.stopping, r.proc.afterStop)
	}

	r = newRun()
	if stop, err := r.admit(make([]uint64, 1000)); stop != "" || err != nil {
		t.Errorf("1,000 games (1 CPU s of 10): stop %q, error %v", stop, err)
	}
	// The run's own cost replaces the start's: 5 ms a game.
	r.games, r.gameCPU = 1000, 5*time.Second
	if stop, _ := r.admit(make([]uint64, 2000)); !strings.Contains(stop, "would take about 10.0 CPU s") {
		t.Errorf("2,000 games at 5 ms each: stop %q", stop)
	}

	b.budgetGames = 100
	r = newRun()
	r.games = 90
	if stop, err := r.admit(make([]uint64, 10)); stop != "" || err != nil {
		t.Errorf("10 games to the budget of 100: stop %q, error %v", stop, err)
	}
	if stop, _ := r.admit(make([]uint64, 11)); !strings.Contains(stop, "90 of the 100 games played, and this request's 11 would pass it") {
		t.Errorf("11 games past the budget: stop %q", stop)
	}

	r = newRun()
	if _, err := r.admit([]uint64{1, 7}); err == nil || !strings.Contains(err.Error(), "seed 7 is one of tunebench's held-out games") {
		t.Errorf("a held-out seed: %v", err)
	}
	r.asked = true
	if _, err := r.admit([]uint64{1}); err == nil || !strings.Contains(err.Error(), "asked for your recommendation") {
		t.Errorf("games before the recommendation asked for: %v", err)
	}
}

// TestPeerBudgetRuns runs peers into their budgets: a request of 100,000
// games is refused at once, and a budget in games stops a run exactly.
func TestPeerBudgetRuns(t *testing.T) {
	p, _ := Lookup("standard-3")
	o := peerOptions(t, "big")
	o.Seeds = []uint64{1}
	r, err := RunPeer(context.Background(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range r.Runs {
		if run.Stop != "budget" || len(run.Points) != 1 || run.Final.Games != 0 || run.Final.Grid != 0 {
			t.Errorf("seed %d: stop %q, points %+v; want one point at no games", run.Seed, run.Stop, run.Points)
		}
	}
	o = peerOptions(t, "good")
	o.Seeds, o.BudgetGames = []uint64{1}, 40 // requests of 4: the tenth brings it to 40, the eleventh is refused
	if r, err = RunPeer(context.Background(), p, o); err != nil {
		t.Fatal(err)
	}
	for _, run := range r.Runs {
		if run.Final.Games != 40 || run.Final.Generation != 10 || run.Points[1].Grid != 40 {
			t.Errorf("seed %d: points %+v; want the last at 40 games", run.Seed, run.Points)
		}
	}
}

// TestPeerExitCPU checks that CPU a peer spends after its final line,
// which no live reading saw, is added from its exit figure.
func TestPeerExitCPU(t *testing.T) {
	p, _ := Lookup("standard-3")
	o := peerOptions(t, "spinexit")
	o.Seeds = []uint64{1}
	r, err := RunPeer(context.Background(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range r.Runs {
		n := len(run.Points)
		if got := run.Final.CPU - run.Points[n-2].CPU; got < peerSpin.Seconds() {
			t.Errorf("seed %d: the final point is %.3f CPU s after the one before, less than the %v the peer spun after it", run.Seed, got, peerSpin)
		}
	}
}
