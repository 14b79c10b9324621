package tunebench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/evotune/evotune/engine/stats"
	"github.com/evotune/evotune/internal/cputime"
	"github.com/evotune/evotune/tuner"
	"github.com/evotune/evotune/tuner/objective"
)

// RunPeer runs the optimizer o.Peer (a program and its arguments) on
// problem p, once per run seed of o, through the objective protocol
// (package objective) on the program's stdin and stdout, and judges it as
// RunProblem judges the tuner:
//
//   - Its CPU is this process's, held-out games left out, plus the
//     program's own (and its children's, once it has waited for them):
//     read live from /proc on Linux, and exactly when it exits everywhere.
//   - At the cadence of the problem's validations (the games the tuner
//     plays between two: population × games × validation.every), an answer
//     asks the program for its recommendation, which is played on the
//     held-out games outside the clock: a Point, its Generation counting
//     the program's requests so far.
//   - Once the budget is spent (or, without Full, the target met), every
//     request is answered {"stop": ...}; the program then sends its final
//     recommendation ({"recommend": ..., "final": true}), which is judged
//     too, and exits.
//   - Requests for held-out games are refused, so that a program cannot
//     tune on the games it is judged on.
//
// The first line gives the program the run seed and the budget.
func RunPeer(ctx context.Context, p Problem, o Options) (Result, error) {
	if len(o.Peer) == 0 {
		return Result{}, errors.New("tunebench: no peer command")
	}
	b, seeds := newBench(p, o)
	res := b.result()
	res.Peer = strings.Join(o.Peer, " ")
	for _, seed := range seeds {
		run, err := b.runPeer(ctx, seed)
		if err != nil {
			return res, fmt.Errorf("tunebench: %s, peer %s, run seed %d: %w", p.Name, o.Peer[0], seed, err)
		}
		res.Runs = append(res.Runs, run)
	}
	res.Start = stats.Summarize(b.start).Mean
	res.summarize()
	return res, nil
}

// peerRun is one run of a peer in progress.
type peerRun struct {
	b       *bench
	t       *tuner.Tuner
	heldOut map[uint64]bool
	cadence int64

	base     time.Duration // this process's CPU when the run began
	excluded time.Duration // this process's CPU on held-out games since
	peerCPU  func() time.Duration

	run            Run
	games, last    int64
	evals          int
	asked, final   bool
	latest, judged []float64
	stopping       string
}

// used is the run's CPU so far: this process's outside held-out games and
// the peer's.
func (r *peerRun) used() time.Duration {
	now, _ := cputime.Process()
	return now - r.base - r.excluded + r.peerCPU()
}

func (b *bench) runPeer(ctx context.Context, seed uint64) (Run, error) {
	cfg, err := b.config(seed)
	if err != nil {
		return Run{}, err
	}
	pool := tuner.NewLocalPool(cfg.Workers)
	t, err := tuner.New(cfg, tuner.Options{Pool: pool})
	if err != nil {
		return Run{}, err
	}
	obj, err := objective.New(b.p.Name, cfg, nil, pool)
	if err != nil {
		return Run{}, err
	}
	if b.start == nil {
		if b.start, err = b.measure(ctx, t, obj.Start); err != nil {
			return Run{}, err
		}
	}
	r := &peerRun{b: b, t: t, run: Run{Seed: seed}, heldOut: map[uint64]bool{}}
	for _, s := range b.seeds {
		r.heldOut[s] = true
	}
	// The games the tuner plays from one validation to the next, its
	// validation games left out: a peer's recommendation is judged as
	// often, in games, as the tuner's.
	r.cadence = int64(t.Lambda() * t.Games() * cfg.Validation.Every)
	cmd := exec.CommandContext(ctx, b.o.Peer[0], b.o.Peer[1:]...)
	cmd.Stderr = b.o.PeerStderr
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return Run{}, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return Run{}, err
	}
	r.base, _ = cputime.Process()
	if err := cmd.Start(); err != nil {
		return Run{}, fmt.Errorf("peer: %w", err)
	}
	pid := cmd.Process.Pid
	r.peerCPU = func() time.Duration { return procCPU(pid) }
	srv := &objective.Server{
		P:         obj,
		Budget:    b.p.Budget.Seconds(),
		Admit:     r.admit,
		Answered:  r.answered,
		Recommend: func(v []float64, final bool) error { return r.recommend(ctx, v, final) },
	}
	serr := srv.Serve(ctx, out, in)
	in.Close()
	werr := cmd.Wait()
	if serr != nil {
		return Run{}, serr
	}
	if werr != nil {
		return Run{}, fmt.Errorf("peer %s: %w", b.o.Peer[0], werr)
	}
	exitCPU := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if !r.final && r.stopping != "target" {
		// The peer ended on its own: its last recommendation, at the CPU it
		// ended with, is its result.
		if r.latest == nil {
			return Run{}, errors.New("the peer exited without recommending anything")
		}
		r.peerCPU = func() time.Duration { return exitCPU }
		if err := r.judge(ctx, r.latest); err != nil {
			return Run{}, err
		}
		r.run.Stop = cmp.Or(r.stopping, "peer")
	}
	if len(r.run.Points) == 0 {
		return Run{}, errors.New("the peer was never judged")
	}
	r.run.Final = r.run.Points[len(r.run.Points)-1]
	if r.run.Stop == "" {
		r.run.Stop = r.stopping
	}
	return r.run, nil
}

// admit refuses held-out seeds and stops the peer at its budget or, without
// Full, at the target.
func (r *peerRun) admit(seeds []uint64) (string, error) {
	for i, s := range seeds {
		if r.heldOut[s] {
			return "", fmt.Errorf("game %d: seed %d is one of tunebench's held-out games; ask for others", i, s)
		}
	}
	switch {
	case r.run.Reached != nil && !r.b.o.Full:
		r.stopping = "target"
		return "target met: send your final recommendation", nil
	case r.b.o.Short && r.games >= 2*r.cadence:
		// Two generations' games, as a short run of the tuner plays.
		r.stopping = "budget"
		return "short run over: send your final recommendation", nil
	case r.used() >= r.b.p.Budget:
		r.stopping = "budget"
		return fmt.Sprintf("budget spent (%.0f CPU s): send your final recommendation", r.b.p.Budget.Seconds()), nil
	}
	return "", nil
}

// answered counts the games and asks for a recommendation once a
// validation's worth of games has been played since the last.
func (r *peerRun) answered(games int, _ time.Duration) bool {
	r.games += int64(games)
	r.evals++
	if r.games-r.last >= r.cadence {
		r.last = r.games
		r.asked = true
		return true
	}
	return false
}

// recommend judges a recommendation the peer was asked for, and its final
// one; others are kept as its latest.
func (r *peerRun) recommend(ctx context.Context, v []float64, final bool) error {
	r.latest = v
	switch {
	case final && r.stopping == "target":
		r.final = true
		return nil // the run ended at the point that met the target
	case final:
		r.final = true
	case !r.asked:
		return nil
	}
	r.asked = false
	return r.judge(ctx, v)
}

// judge plays v on the held-out games outside the clock and adds its point.
func (r *peerRun) judge(ctx context.Context, v []float64) error {
	b := r.b
	pt := Point{Generation: r.evals, Games: r.games, CPU: r.used().Seconds()}
	n := len(r.run.Points)
	if n > 0 && slices.Equal(r.judged, v) {
		prev := r.run.Points[n-1]
		pt.Mean, pt.Ratio, pt.RatioCI95 = prev.Mean, prev.Ratio, prev.RatioCI95
	} else {
		before, _ := cputime.Process()
		err := b.judge(ctx, r.t, v, &pt)
		after, _ := cputime.Process()
		r.excluded += after - before
		if err != nil {
			return err
		}
		r.judged = v
	}
	r.run.Points = append(r.run.Points, pt)
	if b.o.Progress != nil {
		b.o.Progress(b.p.Name, r.run.Seed, pt)
	}
	if r.run.Reached == nil && pt.Ratio >= b.p.Target {
		r.run.Reached = &pt // a copy: Points may grow
	}
	return nil
}

// procCPU reads a live process's CPU time, its own and that of the
// children it has waited for, from /proc (Linux; 0 elsewhere, or once it
// has exited: the exit's figures then come from the process state). The
// clock ticks are 100 a second on every Linux that matters (USER_HZ).
func procCPU(pid int) time.Duration {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(data)
	// The command name, in parentheses, may hold spaces; the fields
	// counted from 3 (state) follow its closing one.
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 15 {
		return 0
	}
	var ticks int64
	for _, k := range []int{11, 12, 13, 14} { // utime, stime, cutime, cstime
		n, err := strconv.ParseInt(f[k], 10, 64)
		if err != nil {
			return 0
		}
		ticks += n
	}
	return time.Duration(ticks) * (time.Second / 100)
}
