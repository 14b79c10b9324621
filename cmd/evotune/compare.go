package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/engine/stats"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/tuner/playerpool"
)

var compareCommand = &command{
	name:     "compare",
	synopsis: "A B [--search expectimax|beam|nneonneo] [--depth N] [--width K] [--params-a NAME=VALUE,...] [--params-b NAME=VALUE,...] [--games N] [--seed N] [--sprt H0,H1] [--workers N] [--json]",
	summary:  "play two players on the same seeds and tell whether one is better (A, B: weights files, eval:NAME or player:COMMAND)",
	setup:    setupCompare,
}

// Games a compare plays when --games is not given: a fixed count, or with
// --sprt the most it plays before giving up undecided.
const (
	compareGames     = 100
	compareSPRTGames = 1000
)

// compareSide is one player of a compare: an evaluator and the search it
// plays with.
type compareSide struct {
	arg  string // the operand as given
	desc string
	e    engine.Evaluator
	file *engine.SearchConfig // what its weights file records; nil for eval:NAME
	cfg  engine.SearchConfig
	x    *extPlayer // player:COMMAND; nil for the others
	pool *playerpool.Pool
}

func setupCompare(fs *flag.FlagSet) func(context.Context, []string, io.Writer, io.Writer) error {
	sf := addSearchFlags(fs, "for both players; if not given, each weights file's", "width")
	games := fs.Int("games", 0, fmt.Sprintf("games each player plays, on the same seeds (0 = %d; with --sprt the most to play, 0 = %d)", compareGames, compareSPRTGames))
	seed := fs.Uint64("seed", 1, "base seed; game i plays the seed derived from it and i, as in play")
	sprt := fs.String("sprt", "", "sequential test of H0 against H1, ratios of mean scores A/B with H0 < H1, e.g. 1.00,1.05: play in batches until it decides (α = β = 0.05)")
	workers := fs.Int("workers", 0, "parallel games (0 = one per core)")
	asJSON := fs.Bool("json", false, "print JSON instead of text")
	var params [2]string
	fs.StringVar(&params[0], "params-a", "", "when A is player:COMMAND or a params file: its parameters as `NAME=VALUE` pairs, separated by commas or blanks, after an optional set (the line export --format set prints); those left out keep their declared defaults (or the file's values)")
	fs.StringVar(&params[1], "params-b", "", "when B is player:COMMAND or a params file: its parameters as `NAME=VALUE` pairs, as --params-a")
	pf := addPlayerFlags(fs, false)
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if len(args) != 2 {
			return usagef("want two players A and B (weights files, eval:NAME or player:COMMAND), got %d argument(s)", len(args))
		}
		if err := pf.check(); err != nil {
			return err
		}
		switch {
		case *games < 0 || *games == 1:
			return usagef("flag --games: %d: want 0 (the default) or at least 2 games (an interval needs two)", *games)
		case *workers < 0:
			return usagef("flag --workers: %d: want 0 (one per core) or more", *workers)
		}
		var test *stats.SPRT
		if flagGiven(fs, "sprt") {
			s, err := parseSPRT(*sprt)
			if err != nil {
				return err
			}
			test = &s
		}
		var sides [2]*compareSide
		for i, arg := range args {
			label := "AB"[i : i+1]
			s, err := loadSide(ctx, arg, label, params[i], pf)
			if err != nil {
				return err
			}
			if s.x != nil {
				sides[i] = s
				s.pool = s.x.newPool(*workers)
				defer s.pool.Close()
				continue
			}
			// The flags the user gave apply to both players; the rest of
			// each search is what its weights file was tuned for.
			if s.cfg, err = sf.merge(s.file, fmt.Sprintf("player %s: %s", label, arg), false); err != nil {
				return err
			}
			sides[i] = s
		}
		if sides[0].x != nil && sides[1].x != nil {
			for _, name := range playerSearchFlags {
				if flagGiven(fs, name) {
					return usagef("flag --%s: A and B are external players, which search as they do", name)
				}
			}
		}
		n := *games
		if n == 0 {
			n = compareGames
			if test != nil {
				n = compareSPRTGames
			}
		}
		w := engine.Workers(*workers)
		var pb *bar
		if !*asJSON {
			pb = newBar(stderr, 2*n, "comparing", "games")
		}
		played, res, err := playPaired(ctx, sides, n, w, *seed, test, pb)
		pb.done()
		if err != nil {
			return err
		}
		a, b := res[0], res[1]
		c, err := stats.Compare(a, b)
		if err != nil {
			return err // the same seeds by construction: a bug, exit 1
		}
		var sr *stats.SPRTResult
		if test != nil {
			r := test.Test(stats.Scores(a), stats.Scores(b))
			sr = &r
		}
		if *asJSON {
			return writeCompareJSON(stdout, sides, c, sr)
		}
		writeCompareText(stdout, sides, *seed, played, c, sr)
		return nil
	}
}

// parseSPRT reads --sprt H0,H1.
func parseSPRT(v string) (stats.SPRT, error) {
	h0s, h1s, ok := strings.Cut(v, ",")
	h0, err0 := strconv.ParseFloat(strings.TrimSpace(h0s), 64)
	h1, err1 := strconv.ParseFloat(strings.TrimSpace(h1s), 64)
	s := stats.SPRT{H0: h0, H1: h1}
	if !ok || err0 != nil || err1 != nil || s.Validate() != nil {
		return s, usagef("flag --sprt: %q: want H0,H1, ratios of mean scores A/B with 0 < H0 < H1, e.g. 1.00,1.05", v)
	}
	return s, nil
}

// loadSide reads operand A or B: eval:NAME (a feature set's default weights),
// player:COMMAND (an external player, set with params) or a weights file
// (and the search it records).
func loadSide(ctx context.Context, arg, label, params string, pf *playerFlags) (*compareSide, error) {
	s := &compareSide{arg: arg}
	paramsFlag := "flag --params-" + strings.ToLower(label)
	if command, ok := strings.CutPrefix(arg, "player:"); ok {
		x, err := startExtPlayer(ctx, command, params, "player "+label, paramsFlag, pf)
		if err != nil {
			return nil, err
		}
		s.x, s.desc = x, x.describe()
		return s, nil
	}
	if file, ok, err := readParamsFile(arg); ok {
		// A tuned player's params file: its command, where it was tuned,
		// at its values.
		if err != nil {
			return nil, badInput(fmt.Errorf("player %s: %w", label, err))
		}
		x, err := startParamsFile(ctx, arg, file, nil, pf)
		if err != nil {
			return nil, err
		}
		if err := x.setParams(params, paramsFlag); err != nil {
			return nil, err
		}
		s.x, s.desc = x, x.describe()
		return s, nil
	}
	if params != "" {
		return nil, usagef("%s: the parameters of an external player, but %s is %s, not player:COMMAND or a params file", paramsFlag, label, arg)
	}
	if name, ok := strings.CutPrefix(arg, "eval:"); ok {
		e, err := eval.Lookup(name)
		if err != nil {
			return nil, usagef("player %s: unknown evaluator %q (want eval:%s)", label, name, strings.Join(eval.Names(), ", eval:"))
		}
		s.e, s.desc = e, name+" default weights"
		return s, nil
	}
	wf, err := eval.ReadWeightsFile(arg)
	if err != nil {
		return nil, badInput(fmt.Errorf("player %s: %w", label, err))
	}
	c, err := wf.Compile()
	if err != nil {
		return nil, badInput(fmt.Errorf("player %s: %s: %w", label, arg, err))
	}
	s.e, s.desc, s.file = c, wf.SetName+" weights", wf.Search
	return s, nil
}

// sprtBatch is how many games each player plays between two looks of the
// SPRT. The test's outcome does not depend on it (it stops at the first
// game where the LLR crosses a bound, looking at every game); it only sets
// how many games past that point are played for nothing, against how often
// the workers wait for the slowest game of a batch.
func sprtBatch(workers int) int { return max(20, 4*workers) }

// playPaired plays games 0..n-1 for both players on the same seeds; with an
// SPRT it plays in batches and stops once the test decides. It returns the
// number of games each player played and the results the statistics rest
// on (with an SPRT, those up to its decision).
func playPaired(ctx context.Context, sides [2]*compareSide, n, workers int, seed uint64, test *stats.SPRT, pb *bar) (int, [2][]engine.Result, error) {
	var res [2][]engine.Result
	batch := n
	if test != nil {
		batch = sprtBatch(workers)
	}
	for len(res[0]) < n {
		from, to := len(res[0]), min(n, len(res[0])+batch)
		for i, s := range sides {
			r, err := s.play(ctx, from, to, workers, seed, pb)
			if err != nil {
				return 0, res, err
			}
			res[i] = append(res[i], r...)
		}
		if test == nil {
			continue
		}
		if r := test.Test(stats.Scores(res[0]), stats.Scores(res[1])); r.Decision != stats.Undecided {
			played := len(res[0])
			return played, [2][]engine.Result{res[0][:r.Games], res[1][:r.Games]}, nil
		}
	}
	return len(res[0]), res, nil
}

// play plays games from..to-1 of base seed seed: an external player on its
// pool (of workers processes), the others on workers goroutines.
func (s *compareSide) play(ctx context.Context, from, to, workers int, seed uint64, pb *bar) ([]engine.Result, error) {
	if s.x != nil {
		return s.x.play(ctx, s.pool, gameSeeds(seed, from, to), 0, func() { pb.add(1) })
	}
	return engine.PlayGames(ctx, to-from, workers,
		func(j int) uint64 { return engine.GameSeed(seed, uint64(from+j)) },
		func() (engine.Player, error) { return engine.NewSearcher(s.e, s.cfg) },
		0, func(int, engine.Result) { pb.add(1) })
}

func describeSide(s *compareSide) string {
	if s.x != nil {
		return s.desc
	}
	return fmt.Sprintf("%s (%s), %s", s.arg, s.desc, s.cfg)
}

func writeCompareText(w io.Writer, sides [2]*compareSide, seed uint64, played int, c stats.Comparison, sr *stats.SPRTResult) {
	fmt.Fprintf(w, "A        %s\n", describeSide(sides[0]))
	fmt.Fprintf(w, "B        %s\n", describeSide(sides[1]))
	extra := ""
	if played > c.Games {
		extra = fmt.Sprintf(" (%d played; the test decided at %d)", played, c.Games)
	}
	fmt.Fprintf(w, "games    %d each, on the same seeds (base seed %d)%s\n", c.Games, seed, extra)
	fmt.Fprintf(w, "mean A   %.0f ± %.0f (95%% CI)\n", c.A.Mean, c.A.CI95)
	fmt.Fprintf(w, "mean B   %.0f ± %.0f (95%% CI)\n", c.B.Mean, c.B.CI95)
	fmt.Fprintf(w, "A - B    %.0f, 95%% CI [%.0f, %.0f] (paired by seed)\n", c.Diff, c.DiffCI95.Lo, c.DiffCI95.Hi)
	if math.IsNaN(c.RatioCI95.Lo) {
		fmt.Fprintf(w, "A / B    undefined (a mean score is 0)\n")
	} else {
		fmt.Fprintf(w, "A / B    %.3f, 95%% CI [%.3f, %.3f]\n", c.Ratio, c.RatioCI95.Lo, c.RatioCI95.Hi)
	}
	fmt.Fprintf(w, "W/L/T    %d/%d/%d (seeds where A scored more/less/the same)\n", c.Wins, c.Losses, c.Ties)
	label := "reach   "
	for _, r := range c.Reach {
		fmt.Fprintf(w, "%s %-5d A %s, B %s\n", label, r.Tile, percent(r.A), percent(r.B))
		label = "        "
	}
	if sr != nil {
		outcome := "undecided after " + strconv.Itoa(sr.Games) + " games (raise --games to go on)"
		if sr.Decision != stats.Undecided {
			outcome = fmt.Sprintf("%s after %d games: %s", sr.Decision, sr.Games, sr.Verdict())
		}
		fmt.Fprintf(w, "sprt     H0 %s, H1 %s (ratios A/B), α = β = 0.05: LLR %.2f, bounds [%.2f, %.2f]: %s\n",
			ratioText(sr.H0), ratioText(sr.H1), sr.LLR, sr.Bounds.Lo, sr.Bounds.Hi, outcome)
	}
	fmt.Fprintf(w, "verdict  %s\n", c.Verdict)
}

// ratioText writes a hypothesis as given, with at least two decimals
// (1 as 1.00, 1.025 as 1.025).
func ratioText(x float64) string {
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i < 0 {
		s += ".00"
	} else if len(s)-i < 3 {
		s += "0"
	}
	return s
}

func percent(r stats.Rate) string {
	return fmt.Sprintf("%.0f%% [%.0f%%, %.0f%%]", 100*r.Value(), 100*r.CI95.Lo, 100*r.CI95.Hi)
}

// jsonFloat writes NaN (an undefined ratio) as null and ±Inf (the LLR of
// players whose games do not differ) as ±MaxFloat64, which JSON can hold.
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	x := float64(f)
	switch {
	case math.IsNaN(x):
		return []byte("null"), nil
	case math.IsInf(x, 0):
		x = math.Copysign(math.MaxFloat64, x)
	}
	return json.Marshal(x)
}

type compareJSON struct {
	A         string       `json:"a"`
	B         string       `json:"b"`
	Games     int          `json:"games"`
	Depth     any          `json:"depth"` // plies; [A, B] when they differ; null for an external player
	MeanA     float64      `json:"mean_a"`
	MeanB     float64      `json:"mean_b"`
	Diff      float64      `json:"diff"`
	DiffCI95  [2]float64   `json:"diff_ci95"`
	Ratio     jsonFloat    `json:"ratio"`
	RatioCI95 [2]jsonFloat `json:"ratio_ci95"`
	Wins      int          `json:"wins"`
	Losses    int          `json:"losses"`
	Ties      int          `json:"ties"`
	Reach     reachPairs   `json:"reach"`
	SPRT      *sprtJSON    `json:"sprt,omitempty"`
	Verdict   string       `json:"verdict"`
	// PlayerA and PlayerB say which external player A or B is, if one is.
	PlayerA *playerJSON `json:"player_a,omitempty"`
	PlayerB *playerJSON `json:"player_b,omitempty"`
}

// depthJSON is a side's depth in compare's JSON: nil for an external
// player, whose search evotune does not know.
func depthJSON(s *compareSide) any {
	if s.x != nil {
		return nil
	}
	return s.cfg.Depth
}

type sprtJSON struct {
	H0      float64    `json:"h0"`
	H1      float64    `json:"h1"`
	LLR     jsonFloat  `json:"llr"`
	Bounds  [2]float64 `json:"bounds"`
	Verdict string     `json:"verdict"`
}

type reachPair struct {
	A    float64    `json:"a"`
	B    float64    `json:"b"`
	ACI  [2]float64 `json:"a_ci95"`
	BCI  [2]float64 `json:"b_ci95"`
	tile int
}

// reachPairs writes the reach rates as an object keyed by tile, in tile
// order (a map would sort "16384" before "2048").
type reachPairs []reachPair

func (rs reachPairs) MarshalJSON() ([]byte, error) {
	var sb strings.Builder
	sb.WriteByte('{')
	for i, r := range rs {
		v, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, "%q:%s", strconv.Itoa(r.tile), v)
	}
	sb.WriteByte('}')
	return []byte(sb.String()), nil
}

func writeCompareJSON(w io.Writer, sides [2]*compareSide, c stats.Comparison, sr *stats.SPRTResult) error {
	out := compareJSON{
		A: sides[0].arg, B: sides[1].arg, Games: c.Games, Depth: depthJSON(sides[0]),
		MeanA: c.A.Mean, MeanB: c.B.Mean,
		Diff: c.Diff, DiffCI95: [2]float64{c.DiffCI95.Lo, c.DiffCI95.Hi},
		Ratio: jsonFloat(c.Ratio), RatioCI95: [2]jsonFloat{jsonFloat(c.RatioCI95.Lo), jsonFloat(c.RatioCI95.Hi)},
		Wins: c.Wins, Losses: c.Losses, Ties: c.Ties, Reach: reachPairs{},
		Verdict: c.Verdict.String(),
	}
	if da, db := depthJSON(sides[0]), depthJSON(sides[1]); da != db {
		out.Depth = [2]any{da, db}
	}
	if x := sides[0].x; x != nil {
		out.PlayerA = x.json()
	}
	if x := sides[1].x; x != nil {
		out.PlayerB = x.json()
	}
	for _, r := range c.Reach {
		out.Reach = append(out.Reach, reachPair{
			A: r.A.Value(), B: r.B.Value(),
			ACI: [2]float64{r.A.CI95.Lo, r.A.CI95.Hi}, BCI: [2]float64{r.B.CI95.Lo, r.B.CI95.Hi},
			tile: r.Tile,
		})
	}
	if sr != nil {
		out.SPRT = &sprtJSON{H0: sr.H0, H1: sr.H1, LLR: jsonFloat(sr.LLR),
			Bounds: [2]float64{sr.Bounds.Lo, sr.Bounds.Hi}, Verdict: sr.Verdict().String()}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
