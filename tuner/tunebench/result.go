package tunebench

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/evotune/evotune/engine/stats"
)

// A Point is a run's recommended weights at one moment, measured on the
// held-out games.
type Point struct {
	// Grid is the grid line the point stands for, in games (a multiple
	// of Result.Grid): the recommendation when the run had first played
	// at least that many games. 0 (omitted) for a run's end point, where
	// it ended between two lines.
	Grid int64 `json:"grid,omitempty"`
	// Generation counts the tuner's completed generations, or a peer's
	// requests for games.
	Generation int `json:"generation"`
	// Recommended is, for the tuner, the generation whose validated mean
	// the recommended weights are (0: the start), when that is not
	// Generation; nil for a peer.
	Recommended *int `json:"recommended,omitempty"`
	// Games counts the games the optimizer had played (the tuner's tuning
	// and validation games, a peer's requests; never the held-out
	// games): at least Grid. For the tuner it is the same for the same
	// run seed, every time.
	Games int64 `json:"games"`
	// CPU is the run's CPU time so far, in seconds, the held-out
	// measurements left out.
	CPU float64 `json:"cpu_s"`
	// Mean is the recommended weights' mean score on the held-out games;
	// Ratio its ratio to the start's, paired by seed, with its 95%
	// interval.
	Mean      float64    `json:"mean"`
	Ratio     float64    `json:"ratio"`
	RatioCI95 [2]float64 `json:"ratio_ci95"`
}

// A Run is one run seed's run of a problem.
type Run struct {
	Seed uint64 `json:"seed"`
	// Reached is the first point that met the target, nil if none did.
	Reached *Point `json:"reached"`
	// Final is the last point: the strength the run ended with.
	Final Point `json:"final"`
	// Max is the run's best point, the first of those with the highest
	// held-out ratio (Final included); Drop is its ratio less Final's:
	// how far below the best it passed the run ended.
	Max  Point   `json:"max"`
	Drop float64 `json:"drop"`
	// Stop says why the run ended: "target", "budget", "peer" (a peer
	// that ended on its own), or the tuner's own reason (say, its
	// optimizer converged).
	Stop string `json:"stop"`
	// Points are the grid's points, in order, then the end point when
	// the run ended off the grid.
	Points []Point `json:"points"`
}

// A Result is one tuner's runs of a problem and their summary: a row of
// the benchmark's table.
type Result struct {
	Problem string `json:"problem"`
	// Config names the file the tuner settings came from when they are not
	// the problem's own (Problem.Text); "" for the problem's.
	Config string `json:"config,omitempty"`
	// Peer is the optimizer's command when a peer, not the tuner, ran
	// (RunPeer); a peer's points count its requests, not generations.
	Peer string `json:"peer,omitempty"`
	// Command is the command line that produced the result, when the
	// caller records it (evotune tunebench does).
	Command string  `json:"command,omitempty"`
	Target  float64 `json:"target"`
	HeldOut int     `json:"held_out_games"`
	// Budget is the tuning CPU budget of a run, in seconds; BudgetGames
	// its budget in games (0: none).
	Budget      float64 `json:"budget_cpu_s"`
	BudgetGames int64   `json:"budget_games,omitempty"`
	// Grid is the games between two grid lines: where every run, of the
	// tuner or a peer, is judged.
	Grid int64 `json:"grid_games"`
	// Cell names the problem's cell the row ran at (Cell.Name, Options.Cells):
	// its budgets and grid are the cell's (its Full true). "" for a row of
	// budgets given otherwise, and for results written before cells: the
	// tables then take the cell their budgets say, if any.
	Cell string `json:"cell,omitempty"`
	// Full and Short are the options the runs had (Options.Full,
	// Options.Short).
	Full  bool `json:"full"`
	Short bool `json:"short,omitempty"`
	// Block is the held-out games' block and the kind of run seeds the
	// row was played on: Development (results of before the field was
	// recorded are read as such) or Confirmation (Options.Confirm).
	Block string `json:"block"`
	// RunSeeds are the run seeds the row was to play (Runs holds those it
	// finished).
	RunSeeds []uint64 `json:"run_seeds"`
	// Error says why the row failed (a peer that crashed or broke a limit,
	// a tuner's error) at the run seed after its last run; "" when it did
	// not. A failed row's figures are its finished runs'.
	Error string `json:"error,omitempty"`
	// Start is the starting weights' mean score on the held-out games.
	Start   float64 `json:"start_mean"`
	Runs    []Run   `json:"runs"`
	Reached int     `json:"reached"`
	// MedianCPU and MedianGames are the medians over the run seeds of the
	// tuning CPU seconds and games to the target, a run that did not reach
	// it counting as infinite: nil when the median run did not reach it.
	MedianCPU   *float64 `json:"median_cpu_s"`
	MedianGames *float64 `json:"median_games"`
	// MedianFinal and WorstFinal are the median and the lowest of the
	// runs' final ratios; WorstDrop the largest of their drops from the
	// best point they passed (Run.Drop).
	MedianFinal float64 `json:"median_final_ratio"`
	WorstFinal  float64 `json:"worst_final_ratio"`
	WorstDrop   float64 `json:"worst_drop"`

	// err is the row's failure as it happened, for errors.Is (Err).
	err error
	// unfinished marks a row made of the run seeds' files of a benchmark
	// that had not ended it (ReadDir).
	unfinished bool
}

// Err returns the row's failure: nil when it did not fail. On a result read
// back it has Error's text only.
func (r *Result) Err() error {
	switch {
	case r.err != nil:
		return r.err
	case r.Error != "":
		return errors.New(r.Error)
	}
	return nil
}

// fail records the row's failure.
func (r *Result) fail(err error) { r.err, r.Error = err, err.Error() }

// check checks a result read back: every run has its points, the fields
// written since the block was recorded are filled in for older ones, and
// the summary is computed again (summarize).
func (r *Result) check() error {
	for k, run := range r.Runs {
		if len(run.Points) == 0 {
			return fmt.Errorf("%s, %s, run seed %d (run %d): no points", r.Problem, r.Name(), run.Seed, k+1)
		}
	}
	switch r.Block {
	case "":
		r.Block = Development
	case Development, Confirmation:
	default:
		return fmt.Errorf("%s, %s: block %q: want %s or %s", r.Problem, r.Name(), r.Block, Development, Confirmation)
	}
	if r.RunSeeds == nil {
		for _, run := range r.Runs {
			r.RunSeeds = append(r.RunSeeds, run.Seed)
		}
	}
	r.summarize()
	return nil
}

// Name names the result's tuner in a table: the peer's command,
// "evotune, FILE" for tuner settings of one's own, or "evotune".
func (r *Result) Name() string {
	switch {
	case r.Peer != "":
		return r.Peer
	case r.Config != "":
		return "evotune, " + r.Config
	}
	return "evotune"
}

// summarize fills the runs' best points and the result's counts, medians
// and worst figures from the runs' points; it may be called again (on a
// result read back from JSON, say) and gives the same figures.
func (r *Result) summarize() {
	n := len(r.Runs)
	cpu, games, final := make([]float64, n), make([]float64, n), make([]float64, n)
	r.Reached, r.WorstFinal, r.WorstDrop = 0, math.Inf(1), 0
	for i := range r.Runs {
		run := &r.Runs[i]
		run.best()
		cpu[i], games[i] = math.Inf(1), math.Inf(1)
		if run.Reached != nil {
			r.Reached++
			cpu[i], games[i] = run.Reached.CPU, float64(run.Reached.Games)
		}
		final[i] = run.Final.Ratio
		r.WorstFinal = min(r.WorstFinal, run.Final.Ratio)
		r.WorstDrop = max(r.WorstDrop, run.Drop)
	}
	r.MedianCPU, r.MedianGames = finite(stats.Median(cpu)), finite(stats.Median(games))
	r.MedianFinal = stats.Median(final)
	if n == 0 {
		// A row that failed at its first run seed: no figures.
		r.WorstFinal, r.MedianCPU, r.MedianGames = 0, nil, nil
	}
}

// best sets the run's Max and Drop from its points and final.
func (run *Run) best() {
	run.Max = run.Final
	for i, p := range run.Points {
		if i == 0 || p.Ratio > run.Max.Ratio {
			run.Max = p
		}
	}
	if run.Final.Ratio > run.Max.Ratio {
		run.Max = run.Final
	}
	run.Drop = run.Max.Ratio - run.Final.Ratio
}

// finite returns a pointer to x, or nil for an infinite or NaN x.
func finite(x float64) *float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return nil
	}
	return &x
}

// weightsKey is a vector's exact value as a map key: identical weights
// play identical held-out games.
func weightsKey(w []float64) string {
	var b strings.Builder
	for _, x := range w {
		bits := math.Float64bits(x)
		for range 8 {
			b.WriteByte(byte(bits))
			bits >>= 8
		}
	}
	return b.String()
}
