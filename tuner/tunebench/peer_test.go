package tunebench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/evotune/evotune/internal/cputime"
	"github.com/evotune/evotune/tuner/objective"
)

// TestMain lets the test binary stand in for a peer optimizer: with
// TUNEBENCH_PEER set it speaks the objective protocol as that mode says.
func TestMain(m *testing.M) {
	if mode := os.Getenv("TUNEBENCH_PEER"); mode != "" {
		os.Exit(testPeer(mode))
	}
	os.Exit(m.Run())
}

// peerSpin is the CPU the "spin" peer burns before its first request, so
// that the test can see the peer's CPU counted.
const peerSpin = 300 * time.Millisecond

// testPeer is a peer optimizer that evaluates its start, shifted a little
// each time, on common seeds, and recommends its latest point. Modes:
// "good"; "spin" (burns peerSpin of CPU first); "heldout" (asks once for a
// held-out game, then behaves); "crash" (exits 3 after the first line);
// "quit" (ends on its own after 4 requests, without a final word).
func testPeer(mode string) int {
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
	if json.Unmarshal(line, &hello) != nil || hello.Budget <= 0 {
		return 6
	}
	switch mode {
	case "crash":
		return 3
	case "spin":
		start, _ := cputime.Process()
		for now := start; now-start < peerSpin; now, _ = cputime.Process() {
		}
	case "heldout":
		params := map[string]float64{}
		for _, q := range hello.Params {
			params[q.Name] = q.Start
		}
		a := send(map[string]any{"id": 0, "params": params, "seeds": []uint64{HeldOutSeed(1)}})
		if e, _ := a["error"].(string); !strings.Contains(e, "held-out") {
			return 7
		}
	}
	point := func(k int) map[string]float64 {
		params := map[string]float64{}
		for _, q := range hello.Params {
			params[q.Name] = q.Start + 0.01*float64(k%3)*q.Scale
		}
		return params
	}
	for k := 1; ; k++ {
		a := send(map[string]any{"id": k, "params": point(k), "games": hello.Games, "first": 0})
		if _, ok := a["stop"]; ok {
			send(map[string]any{"recommend": point(k), "final": true})
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
			// A short run stops after two generations' games (2 × 4
			// candidates × 4 games): requests of 4 games, answers 4 and 8
			// ask for a recommendation, and the stop brings the final one.
			if run.Stop != "budget" || len(run.Points) != 3 || run.Final.Games != 32 || run.Final.Generation != 8 {
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
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc: a peer's CPU is read only when it exits")
	}
	p, _ := Lookup("standard-3")
	r, err := RunPeer(context.Background(), p, peerOptions(t, "spin"))
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range r.Runs {
		if got := run.Points[0].CPU; got < peerSpin.Seconds() {
			t.Errorf("seed %d: %.3f CPU s at the first point, less than the %v the peer spun", run.Seed, got, peerSpin)
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
