package tunebench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

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
//     program's own and its children's (its process group's, read live
//     where the system allows: /proc on Linux, the Job object on
//     Windows), and, once it has exited, its exit figure (the rusage of
//     the reaped process and the children it waited for) where that is
//     more.
//   - Its games are the games it asked for. At every grid line they pass,
//     the answer asks for its recommendation, which is played on the
//     held-out games outside the clock: a Point, its Generation counting
//     the program's requests so far. A request for games before that
//     recommendation is refused.
//   - A request that would take the run past a budget is answered
//     {"stop": ...}: in games, exactly; in CPU, when it is spent or the
//     request's games would take more than remains at the run's CPU per
//     game so far. The same answer comes at the target without Full.
//     The program then sends its final recommendation ({"recommend": ...,
//     "final": true}), which is judged too, and exits.
//   - Requests for held-out games, of either block (HeldOutSeed,
//     ConfirmSeed), are refused, so that a program cannot tune on the
//     games it is judged on.
//   - The program runs under PeerLimits: its own process group, which
//     ctx's end kills at once; an idle limit on each line; a CPU watchdog;
//     caps on what it sends and logs; a grace after stop and after its
//     final line, then its input closed and its group killed. A program
//     that breaks a limit ends its row with an error that names it (in
//     Bench, the next row runs).
//
// The first line gives the program the run seed and the budgets.
func RunPeer(ctx context.Context, p Problem, o Options) (Result, error) {
	if len(o.Peer) == 0 {
		return Result{}, errors.New("tunebench: no peer command")
	}
	if err := cpuReadable(); err != nil {
		return Result{}, fmt.Errorf("tunebench: %w", err)
	}
	return runAlone(ctx, p, o)
}

// peerRun is one run of a peer in progress.
type peerRun struct {
	b       *bench
	j       *judge
	proc    *peerProc
	heldOut map[uint64]bool

	base    time.Duration // this process's CPU when the run began
	exitCPU time.Duration // the peer's CPU once it has exited; 0 before

	games        int64
	gameCPU      time.Duration // this process's CPU on the peer's games
	evals        int
	asked, final bool
	latest       []float64
	stopping     string
	endPeerCPU   time.Duration // the peer's CPU in its final point
}

// clock is the run's CPU so far, this process's outside held-out games and
// the peer's, and the peer's part of it.
func (r *peerRun) clock() (used, peer time.Duration) {
	now, _ := cputime.Process()
	peer = r.exitCPU
	if peer == 0 {
		peer, _ = r.proc.cpuNow()
	}
	return now - r.base - r.j.heldOutCPU + peer, peer
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
	if err := b.measureStart(ctx, t, obj.Start); err != nil {
		return Run{}, err
	}
	r := &peerRun{b: b, j: newJudge(b, t, seed, obj.Start), heldOut: map[uint64]bool{}}
	// Both blocks, whichever the run is judged on: a peer tunes on
	// neither, as the tuner's games are proven off both (checkDisjoint).
	for _, block := range []string{Development, Confirmation} {
		for _, s := range heldOutSeeds(block, b.p.HeldOut) {
			r.heldOut[s] = true
		}
	}
	stderr := b.o.PeerStderr
	if stderr == nil {
		stderr = os.Stderr
	}
	r.base, _ = cputime.Process()
	lim := b.o.PeerLimits.resolved(b.p.Budget)
	if r.proc, err = startPeer(ctx, b.o.Peer, stderr, lim, b.p.Budget); err != nil {
		return Run{}, fmt.Errorf("peer: %w", err)
	}
	srv := &objective.Server{
		P:           obj,
		Budget:      b.p.Budget.Seconds(),
		BudgetGames: b.budgetGames,
		Admit:       r.admit,
		Answered:    r.answered,
		Recommend:   func(v []float64, final bool) error { return r.recommend(ctx, v, final) },
	}
	serr := srv.Serve(ctx, r.proc, r.proc)
	exitCPU, werr, why := r.proc.finish()
	switch {
	case why != nil && ctx.Err() != nil:
		return Run{}, ctx.Err()
	case why != nil && !(r.final && errors.Is(why, ErrPeerNoFinal)):
		// A peer that sent its final word and then did not exit in time
		// was killed, its result kept; any other limit is the peer's bug.
		return Run{}, fmt.Errorf("%w %s", why, r.proc.describe())
	case werr != nil:
		return Run{}, fmt.Errorf("peer %s: %v %s", b.o.Peer[0], werr, r.proc.describe())
	case serr != nil && why == nil:
		return Run{}, serr
	}
	r.exitCPU = exitCPU
	if !r.final && r.stopping != "target" {
		// The peer ended on its own: its latest recommendation, at the CPU
		// it ended with, is its result.
		if r.latest == nil {
			return Run{}, fmt.Errorf("the peer exited without recommending anything %s", r.proc.describe())
		}
		used, _ := r.clock()
		if err := r.j.end(ctx, Point{Generation: r.evals, Games: r.games, CPU: used.Seconds()}, r.latest); err != nil {
			return Run{}, err
		}
	} else if r.final && r.stopping != "target" && exitCPU > r.endPeerCPU {
		// The final point was judged before the peer exited: its exit
		// figure counts what the live one could not see (off Linux and
		// Windows, all of it; children it reaped after, or never).
		r.j.addCPU(exitCPU - r.endPeerCPU)
	}
	return r.j.done(cmp.Or(r.stopping, "peer"))
}

// admit refuses held-out seeds and games before an asked-for
// recommendation, and stops the peer at the target (without Full), at
// its final line, or at a budget: a request that would pass one is not
// played.
func (r *peerRun) admit(seeds []uint64) (string, error) {
	for i, s := range seeds {
		if r.heldOut[s] {
			return "", fmt.Errorf("game %d: seed %d is one of tunebench's held-out games; ask for others", i, s)
		}
	}
	if r.asked {
		return "", errors.New(`the last answer asked for your recommendation: send {"recommend":{...}} before asking for more games`)
	}
	b, n := r.b, int64(len(seeds))
	stop := ""
	switch {
	case r.j.reachedStop():
		r.stopping = "target"
		stop = "target met: send your final recommendation"
	case r.final:
		stop = "you sent your final recommendation: exit"
	case b.budgetGames > 0 && r.games+n > b.budgetGames:
		stop = fmt.Sprintf("budget: %d of the %d games played, and this request's %d would pass it: send your final recommendation",
			r.games, b.budgetGames, n)
	default:
		used, _ := r.clock()
		left := b.p.Budget - used
		if left <= 0 {
			stop = fmt.Sprintf("budget spent (%.0f CPU s): send your final recommendation", b.p.Budget.Seconds())
		} else if need := r.cost(n); need > left {
			stop = fmt.Sprintf("budget: this request's %d games would take about %.1f CPU s, and %.1f of the %.0f remain: send your final recommendation",
				n, need.Seconds(), left.Seconds(), b.p.Budget.Seconds())
		}
	}
	if stop != "" {
		r.stopping = cmp.Or(r.stopping, "budget")
		r.proc.stopping()
	}
	return stop, nil
}

// cost estimates the CPU n games will take: at the run's CPU per game so
// far, or before its first answer, at the start's on the held-out games.
func (r *peerRun) cost(n int64) time.Duration {
	per := float64(r.b.startCPU) / float64(len(r.b.seeds))
	if r.games > 0 {
		per = float64(r.gameCPU) / float64(r.games)
	}
	return time.Duration(per * float64(n))
}

// answered counts the games and asks for a recommendation once they pass
// the next grid line.
func (r *peerRun) answered(games int, cpu time.Duration) bool {
	r.games += int64(games)
	r.gameCPU += cpu
	r.evals++
	r.proc.played()
	if r.j.crossed(r.games) {
		r.asked = true
	}
	return r.asked
}

// recommend judges a recommendation the peer was asked for on the grid,
// and its final one; others are kept as its latest.
func (r *peerRun) recommend(ctx context.Context, v []float64, final bool) error {
	r.latest = v
	if r.asked {
		r.asked = false
		used, _ := r.clock()
		if err := r.j.grid(ctx, Point{Generation: r.evals, Games: r.games, CPU: used.Seconds()}, v); err != nil {
			return err
		}
	}
	if !final {
		return nil
	}
	r.final = true
	r.proc.stopping() // the grace to exit
	if r.stopping == "target" {
		return nil // the run ended at the point that met the target
	}
	used, peer := r.clock()
	r.endPeerCPU = peer
	return r.j.end(ctx, Point{Generation: r.evals, Games: r.games, CPU: used.Seconds()}, v)
}

// PeersSupported reports whether peers can run here: an error, naming the
// system, where a peer's CPU can be read neither live nor at its exit.
func PeersSupported() error { return cpuReadable() }
