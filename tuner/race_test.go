package tuner

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evotune/evotune/checkpoints"
	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/engine/stats"
)

// raceConfig is smallConfig for ten generations of six candidates on a
// fixed four games each, the average of at most the last 5 means
// recommended (5 at the end of 10 generations: half of them, and 2 after
// 4), finalists finalists kept every two generations and races of sel
// games an entrant.
func raceConfig(t *testing.T, finalists, sel int) *Config {
	t.Helper()
	cfg := smallConfig(t)
	cfg.Generations = 10
	cfg.Optimizer.Population = 6
	cfg.Noise.Handling, cfg.Noise.Racing = false, false
	cfg.Validation.Every = 2
	cfg.Validation.Finalists = finalists
	cfg.Validation.Select = sel
	cfg.Validation.Average = 5
	return cfg
}

// window is the twin of the rule of averaged: the last average means, and
// those of the last averageShare of the played generations at most
// (rounded, one at least).
func window(played, average int) int {
	return min(average, max(1, int(math.Round(averageShare*float64(played)))))
}

// stepAll runs tu to its end from its start and returns its records.
func stepAll(t *testing.T, tu *Tuner) []Record {
	t.Helper()
	ctx := context.Background()
	if err := tu.ValidateStart(ctx); err != nil {
		t.Fatal(err)
	}
	var recs []Record
	for tu.Finished() == "" {
		rec, err := tu.Step(ctx, func() time.Duration { return 0 })
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	return recs
}

// slowRace is the race's obviously correct twin: every entrant plays every
// game of the race, and the blocks are looked at afterwards, as the race
// looks at them while it plays. It returns the games each entrant played
// (as the race would have played them), the winner and each entrant's
// fitness on its games.
func slowRace(m Metric, rs [][]engine.Result, n int) (played []int, winner int, fit []float64) {
	k := len(rs)
	out := make([]bool, k)
	played = make([]int, k)
	block := max(n/raceBlocks, 1)
	utility := func(i, upto int) []float64 {
		u := make([]float64, upto)
		for j := range upto {
			u[j] = m.utility(rs[i][j])
		}
		return u
	}
	leader := func(upto int) int {
		best, bestFit := -1, 0.0
		for i := range k {
			if f := m.Value(rs[i][:upto]); !out[i] && (best < 0 || f >= bestFit) {
				best, bestFit = i, f
			}
		}
		return best
	}
	left := k
	upto := 0
	for upto < n && left > 1 {
		upto = min(n, upto+block)
		for i := range k {
			if !out[i] {
				played[i] = upto
			}
		}
		if upto >= 2*block && upto < n {
			lead := leader(upto)
			for i := range k {
				if !out[i] && i != lead && stats.PairedT(utility(lead, upto), utility(i, upto)) > stats.PairedTCritical(upto, raceLevel) {
					out[i] = true
					left--
				}
			}
		}
	}
	end := 0
	for i := range k {
		if !out[i] {
			end = played[i]
		}
	}
	winner = leader(end)
	fit = make([]float64, k)
	for i := range k {
		fit[i] = m.Value(rs[i][:played[i]])
	}
	return played, winner, fit
}

// TestRace checks the final race against its slow twin: its entrants are
// the start, the finalists kept, the latest mean and the average of the
// last means (window: 5, of generations 6 to 10, half of 10, averaged in
// order as the test does it); each entrant's games,
// fitness and the winner are those of every entrant played on every game
// and the blocks judged afterwards; the winner is what the run validates,
// recommends and exports; the race's games are tuning seeds no other game
// of the run plays, counted with the run's.
func TestRace(t *testing.T) {
	ctx := context.Background()
	stopped, later := 0, 0
	for _, tc := range []struct {
		seed uint64
		pool func(cfg *Config) Pool
	}{
		{3, func(*Config) Pool { return NewLocalPool(2) }},
		{4, func(*Config) Pool { return NewLocalPool(2) }},
		{5, func(cfg *Config) Pool {
			return tiltPool{from: cfg.Init["monotonicity"], scale: 0.2 * cfg.Init["monotonicity"]}
		}},
		{6, func(*Config) Pool { return flatPool{} }},
	} {
		cfg := raceConfig(t, 2, 16)
		cfg.Seed = tc.seed
		rp := &recordingPool{p: tc.pool(cfg)}
		tu, err := New(cfg, Options{Pool: rp})
		if err != nil {
			t.Fatal(err)
		}
		if err := tu.ValidateStart(ctx); err != nil {
			t.Fatal(err)
		}
		means := map[int][]float64{0: tu.State().Start.Weights}
		var last Record
		var before State
		var from int // the first batch of the last step
		for tu.Finished() == "" {
			before, from = tu.State(), len(rp.batches)
			if last, err = tu.Step(ctx, func() time.Duration { return 0 }); err != nil {
				t.Fatal(err)
			}
			means[last.Generation] = last.Weights.Values
			if want := last.Generation%2 == 0; last.Finalist != want {
				t.Errorf("seed %d: generation %d: finalist %v, want %v", tc.seed, last.Generation, last.Finalist, want)
			}
		}
		r := last.Validation.Race
		if r == nil {
			t.Fatalf("seed %d: no race at the end", tc.seed)
		}
		var gens []int
		for _, e := range r.Entrants {
			gens = append(gens, e.Generation)
		}
		k := window(10, cfg.Validation.Average)
		if want := []int{0, 6, 8, 10, 10}; !slices.Equal(gens, want) || !r.Entrants[0].Start || r.Entrants[3].Average != 0 || r.Entrants[4].Average != k {
			t.Fatalf("seed %d: entrants %+v, want the start, the finalists 6 and 8, the latest mean and the average of %d means ending at 10: %v", tc.seed, r.Entrants, k, want)
		}
		avg := make([]float64, len(means[10]))
		for g := 10 - k + 1; g <= 10; g++ {
			for i, x := range means[g] {
				avg[i] += x
			}
		}
		for i := range avg {
			avg[i] /= float64(k)
		}
		vectors := [][]float64{means[0], means[6], means[8], means[10], avg}
		// The race's batches: those of the last step whose vectors are the
		// entrants', on the race's seeds.
		var race []Batch
		for _, b := range rp.batches[from:] {
			if len(b.Vectors) == len(gens) && slices.EqualFunc(b.Vectors, vectors, slices.Equal[[]float64]) {
				race = append(race, b)
			}
		}
		if len(race) == 0 {
			t.Fatalf("seed %d: no batch of the race found", tc.seed)
		}
		seeds := race[0].Seeds
		if len(seeds) != 16 {
			t.Fatalf("seed %d: a race on %d seeds, want 16", tc.seed, len(seeds))
		}
		// The slow twin: everything played on a fresh pool of the same kind.
		full := make([][]engine.Result, len(gens))
		for i := range full {
			full[i] = make([]engine.Result, len(seeds))
		}
		b := race[0]
		b.Jobs = nil
		if err := tc.pool(cfg).Play(ctx, &b, full, nil); err != nil {
			t.Fatal(err)
		}
		played, winner, fit := slowRace(tu.Metric(), full, len(seeds))
		end := played[winner]
		for i, e := range r.Entrants {
			if e.Stopped != (i != winner && (played[i] < end || played[i] == end && end < len(seeds))) {
				t.Errorf("seed %d: entrant %d stopped %v, played %d of the race's %d (%d seeds)", tc.seed, i, e.Stopped, played[i], end, len(seeds))
			}
			if e.Games != played[i] || e.Fitness != fit[i] {
				t.Errorf("seed %d: entrant %d (generation %d): %d games, fitness %v; the slow twin %d games, %v", tc.seed, i, e.Generation, e.Games, e.Fitness, played[i], fit[i])
			}
			if played[i] < len(seeds) {
				stopped++
			}
		}
		if r.Recommends != gens[winner] || r.Winner != winner {
			t.Errorf("seed %d: the race recommends generation %d (entrant %d), the slow twin %d (entrant %d)", tc.seed, r.Recommends, r.Winner, gens[winner], winner)
		}
		if winner != 4 {
			later++
		}
		st := tu.State()
		if st.Validated.Generation != r.Recommends || !slices.Equal(st.Validated.Weights, vectors[winner]) || tu.Recommended() != st.Validated {
			t.Errorf("seed %d: validated generation %d's, want the winner %d's", tc.seed, st.Validated.Generation, r.Recommends)
		}
		if wantAvg := map[bool]int{true: k}[winner == 4]; st.Validated.Average != wantAvg || last.Validation.Average != wantAvg {
			t.Errorf("seed %d: validated average %d, history %d; want %d", tc.seed, st.Validated.Average, last.Validation.Average, wantAvg)
		}
		if last.Validation.Generation != r.Recommends {
			t.Errorf("seed %d: the history's validation is of generation %d, want %d", tc.seed, last.Validation.Generation, r.Recommends)
		}
		// The step's games: the candidates', the race's and the
		// validation's (none where the start won: its figure is known),
		// every one counted.
		raced := 0
		for _, e := range r.Entrants {
			raced += e.Games
		}
		val := cfg.Validation.Games
		if winner == 0 {
			val = 0
			if !reflect.DeepEqual(st.Validated, withRace(st.Start, st.Validated)) {
				t.Errorf("seed %d: the start won, validated %+v, want the start's figure %+v", tc.seed, st.Validated, st.Start)
			}
		}
		if got, want := st.Games-before.Games, int64(last.Lambda*cfg.Fitness.Games+raced+val); got != want {
			t.Errorf("seed %d: the last step counted %d games, want %d", tc.seed, got, want)
		}
		if got := st.SeedCounter - before.SeedCounter; got != uint64(cfg.Fitness.Games) {
			t.Errorf("seed %d: the last step took %d tuning seeds, want the generation's %d (the race has seeds of its own)", tc.seed, got, cfg.Fitness.Games)
		}
		// The race's seeds: its own, which no other batch plays, and
		// neither tuning nor validation seeds.
		other := map[uint64]bool{}
		for k := range st.SeedCounter {
			other[TuningSeedAt(cfg.Seed, k)] = true
		}
		for j := range cfg.Validation.Games {
			other[ValidationSeed(cfg.Seed, j)] = true
		}
		for j, s := range seeds {
			if s != RaceSeed(cfg.Seed, 10, j) {
				t.Fatalf("seed %d: race game %d plays %d, want RaceSeed %d", tc.seed, j, s, RaceSeed(cfg.Seed, 10, j))
			}
			if other[s] {
				t.Fatalf("seed %d: race seed %d is a tuning or validation seed", tc.seed, s)
			}
		}
		for _, b := range rp.batches {
			if slices.Equal(b.Seeds, seeds) {
				continue
			}
			for _, s := range b.Seeds {
				if slices.Contains(seeds, s) {
					t.Fatalf("seed %d: race seed %d is played by another batch too", tc.seed, s)
				}
			}
		}
		wf, err := tu.WeightsFile()
		if err != nil {
			t.Fatal(err)
		}
		if wf.Provenance.Generation != r.Recommends {
			t.Errorf("seed %d: the weights file is generation %d's, want the winner %d", tc.seed, wf.Provenance.Generation, r.Recommends)
		}
	}
	if stopped == 0 {
		t.Error("no entrant stopped early in any race: the cases no longer test the stops")
	}
	t.Logf("%d entrants stopped early; %d races won by an entrant other than the average", stopped, later)
}

// TestRaceStopRule checks the rule that stops an entrant against the t
// table: the leader must beat it by a paired t above the one-sided 1%
// quantile with n - 1 degrees of freedom, so that a few games never stop
// it on a large statistic alone (|t| ≥ 3, the rule before, ignored them).
func TestRaceStopRule(t *testing.T) {
	tu, err := New(raceConfig(t, 3, 16), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// pair returns a leader's and a follower's games whose paired t is
	// about want over n games: differences alternating about their mean.
	pair := func(n int, want float64) [][]engine.Result {
		lead, other := make([]engine.Result, n), make([]engine.Result, n)
		const spread = 1000.0
		sd := spread * math.Sqrt(float64(n)/float64(n-1))
		d := want * sd / math.Sqrt(float64(n))
		for j := range n {
			dev := spread
			if j%2 == 1 {
				dev = -spread
			}
			base := 20000 + 100*j
			lead[j] = engine.Result{Score: base + int(math.Round(d+dev))}
			other[j] = engine.Result{Score: base}
		}
		return [][]engine.Result{lead, other}
	}
	for _, tc := range []struct {
		n    int
		t    float64
		stop bool
	}{
		{2, 10, false}, // df 1: the 1% quantile is 31.8
		{2, 40, true},
		{4, 4, false}, // df 3: 4.54
		{4, 5, true},
		{8, 2.9, false}, // df 7: 3.00
		{8, 3.1, true},
		{16, 2.5, false}, // df 15: 2.60
		{16, 2.7, true},
		{200, 2.3, false}, // df 199: 2.35
		{200, 2.4, true},
	} {
		rs := pair(tc.n, tc.t)
		got := stats.PairedT(utilities(rs[0]), utilities(rs[1]))
		alive := []bool{true, true}
		tu.dropBeaten(rs, alive, tc.n)
		if stopped := !alive[1]; stopped != tc.stop || !alive[0] {
			t.Errorf("%d games, t %.3f (critical %.3f): stopped %v, want %v; leader kept %v", tc.n, got, stats.PairedTCritical(tc.n, raceLevel), stopped, tc.stop, alive[0])
		}
	}
}

// withRace returns v as the validation of the race won by w: its figures,
// w's generation and race.
func withRace(v, w *Validation) *Validation {
	c := *v
	c.Generation, c.Race, c.Stage = w.Generation, w.Race, w.Stage
	return &c
}

// TestRaceTies: between entrants of equal fitness the later one leads and
// wins (it is tuned further), and an entrant equal to the leader game for
// game is never stopped (its paired t is undefined, not large).
func TestRaceTies(t *testing.T) {
	tu := mustNew(t, raceConfig(t, 3, 16))
	same := []engine.Result{{Score: 100}, {Score: 300}, {Score: 200}, {Score: 50}}
	other := []engine.Result{{Score: 300}, {Score: 100}, {Score: 50}, {Score: 200}} // the same mean
	rs := [][]engine.Result{same, other, same}
	alive := []bool{true, true, true}
	if got := tu.leader(rs, alive, 4); got != 2 {
		t.Errorf("leader among equal fitness: %d, want the last, 2", got)
	}
	tu.dropBeaten(rs, alive, 4)
	if !alive[0] || !alive[1] {
		t.Errorf("equal entrants stopped: %v", alive)
	}
}

func utilities(rs []engine.Result) []float64 {
	u := make([]float64, len(rs))
	for j, r := range rs {
		u[j] = float64(r.Score)
	}
	return u
}

// TestRaceFlat measures the race on noise alone: on a flat objective no
// entrant is better than another, so each should win about a third of the
// races of three, and an entrant stopped early is a false alarm. Each look
// at an entrant is a test at raceLevel, but the leader is the best of the
// three so far, which tilts every look against the others; the rate of
// entrants stopped is logged, with its bound: a tenth of them at most
// (measured under 0.04 at every length). At select 8 the blocks are single
// games, where the degrees of freedom matter most. The runs average no
// means (average 1), so that a race is of three entrants.
func TestRaceFlat(t *testing.T) {
	for _, sel := range []int{8, 16, 200} {
		wins := make([]int, 3)
		races, stopped := 0, 0
		for seed := uint64(1); seed <= 150; seed++ {
			cfg := raceConfig(t, 1, sel)
			cfg.Seed = seed
			cfg.Generations = 4
			cfg.Validation.Average = 1
			tu, err := New(cfg, Options{Pool: flatPool{}})
			if err != nil {
				t.Fatal(err)
			}
			recs := stepAll(t, tu)
			r := recs[len(recs)-1].Validation.Race
			if len(r.Entrants) != 3 {
				t.Fatalf("select %d, seed %d: %d entrants, want the start, generation 2 and the latest mean, 4", sel, seed, len(r.Entrants))
			}
			races++
			for i, e := range r.Entrants {
				if e.Generation == r.Recommends {
					wins[i]++
				}
				if e.Games < r.Games || e.Games < sel && r.Games == sel {
					stopped++
				}
			}
		}
		rate := float64(stopped) / float64(2*races) // two entrants a race can stop
		t.Logf("select %d: %d races of 3 on a flat objective; wins by entrant %v; %d entrants stopped early (%.3f of those that could be)", sel, races, wins, stopped, rate)
		sd := math.Sqrt(float64(races) / 3 * 2 / 3)
		for i, w := range wins {
			if math.Abs(float64(w)-float64(races)/3) > 4*sd {
				t.Errorf("select %d: entrant %d won %d of %d races, want %.0f ± %.0f", sel, i, w, races, float64(races)/3, 4*sd)
			}
		}
		if rate > 0.10 {
			t.Errorf("select %d: %.3f of the entrants stopped early on a flat objective, want at most 0.10", sel, rate)
		}
	}
}

// flatPool plays no game: a vector's score on a seed is drawn from one
// distribution whatever the vector (log-normal, coefficient of variation
// about 0.5, a game's), as a pure function of the vector and the seed: a
// flat objective with the noise of 2048.
type flatPool struct{}

func (flatPool) Play(_ context.Context, b *Batch, results [][]engine.Result, done GameDone) error {
	for _, j := range b.jobs() {
		seed := b.Seeds[j.Game]
		rng := rand.New(rand.NewPCG(Fingerprint(b.Vectors[j.Candidate]), seed))
		r := engine.Result{Seed: seed, Score: int(20000 * math.Exp(0.5*rng.NormFloat64())), MaxTile: 1024}
		results[j.Candidate][j.Game] = r
		if done != nil {
			done(j, r, false)
		}
	}
	return nil
}

// tiltPool is flatPool with a slope: a vector's scores are multiplied by
// e^((x_0 - from)/scale), the exponent within ±4, so that a point far up
// the slope beats one below it in few games.
type tiltPool struct{ from, scale float64 }

func (p tiltPool) Play(ctx context.Context, b *Batch, results [][]engine.Result, done GameDone) error {
	if err := (flatPool{}).Play(ctx, b, results, nil); err != nil {
		return err
	}
	for _, j := range b.jobs() {
		r := &results[j.Candidate][j.Game]
		r.Score = int(float64(r.Score) * math.Exp(min(max((b.Vectors[j.Candidate][0]-p.from)/p.scale, -4), 4)))
		if done != nil {
			done(j, *r, false)
		}
	}
	return nil
}

// TestRaceEndsEarly: on a steep slope the entrants far behind stop after
// the race's second block, and the race goes on only among those close to
// the leader.
func TestRaceEndsEarly(t *testing.T) {
	cfg := raceConfig(t, 2, 200)
	// The slope is steep along monotonicity (the first coordinate), and the
	// search climbs it: the start falls far behind the last means.
	tu, err := New(cfg, Options{Pool: tiltPool{from: cfg.Init["monotonicity"], scale: 0.05 * cfg.Init["monotonicity"]}})
	if err != nil {
		t.Fatal(err)
	}
	recs := stepAll(t, tu)
	r := recs[len(recs)-1].Validation.Race
	block := 200 / raceBlocks
	early := 0
	for _, e := range r.Entrants {
		if e.Games < r.Games {
			early++
			if e.Games%block != 0 || e.Games < 2*block {
				t.Errorf("generation %d stopped after %d games, want whole blocks of %d, two at least", e.Generation, e.Games, block)
			}
		}
	}
	if early == 0 {
		t.Fatalf("no entrant stopped early on a steep slope: %+v", r)
	}
	t.Logf("on a slope: %+v", r.Entrants)
}

// TestRaceNone: without a race (select 0) the average of the last means
// is recommended as it is, and so is the latest mean with average 1; by
// default the race is the start's against the average.
func TestRaceNone(t *testing.T) {
	cfg := raceConfig(t, 0, 0)
	recs := stepAll(t, mustNew(t, cfg))
	last := recs[len(recs)-1]
	k := window(10, cfg.Validation.Average)
	if last.Validation.Race != nil || last.Validation.Generation != 10 || last.Validation.Average != k {
		t.Errorf("select 0: race %+v, validated generation %d averaging %d; want none, 10 and %d (half of 10)", last.Validation.Race, last.Validation.Generation, last.Validation.Average, k)
	}
	for _, rec := range recs {
		if rec.Finalist {
			t.Errorf("no finalists: generation %d is a finalist", rec.Generation)
		}
	}
	cfg = raceConfig(t, 0, 0)
	cfg.Validation.Average = 1
	tu := mustNew(t, cfg)
	recs = stepAll(t, tu)
	if v := tu.State().Validated; !slices.Equal(v.Weights, recs[len(recs)-1].Weights.Values) || v.Average != 0 {
		t.Errorf("average 1: validated %v (average %d), want the latest mean %v", v.Weights, v.Average, recs[len(recs)-1].Weights.Values)
	}
	recs = stepAll(t, mustNew(t, raceConfig(t, 0, 16)))
	r := recs[len(recs)-1].Validation.Race
	if r == nil || len(r.Entrants) != 3 || !r.Entrants[0].Start || r.Entrants[1].Generation != 10 || r.Entrants[1].Average != 0 || r.Entrants[2].Generation != 10 || r.Entrants[2].Average != k {
		t.Errorf("the default race %+v, want the start, the latest mean and the average of generations %d to 10", r, 10-k+1)
	}
}

// TestAverage: the average is of the stage's last validation.average
// means, and of no more than the last half of its generations (rounded,
// one at least), and a held coordinate keeps its value exactly.
func TestAverage(t *testing.T) {
	ctx := context.Background()
	cfg := raceConfig(t, 0, 0)
	cfg.Generations = 0
	cfg.Validation.Average = 3
	tu := mustNew(t, cfg)
	if err := tu.ValidateStart(ctx); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tu.Recommendation(), tu.State().Start.Weights) {
		t.Errorf("before the first generation the recommendation is %v, want the start", tu.Recommendation())
	}
	var ms [][]float64
	ks := map[int]bool{}
	for g := 1; g <= 20; g++ {
		rec, err := tu.Step(ctx, func() time.Duration { return 0 })
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, rec.Weights.Values)
		k := min(3, max(1, int(math.Round(float64(g)/2))))
		ks[k] = true
		from := len(ms) - k
		want := make([]float64, len(rec.Weights.Values))
		for _, m := range ms[from:] {
			for i, x := range m {
				want[i] += x
			}
		}
		for i := range want {
			want[i] /= float64(len(ms) - from)
		}
		if got := tu.Recommendation(); !slices.Equal(got, want) {
			t.Errorf("generation %d: the recommendation %v, want the average of the last %d means %v", g, got, len(ms)-from, want)
		}
	}
	if len(ks) != 3 {
		t.Errorf("averaged %v means: the test no longer sees 1, 2 and 3", ks)
	}
	// A scale-invariant set holds its reference weight: the average keeps
	// it bit for bit.
	hcfg := raceConfig(t, 0, 0)
	hcfg.Generations = 0
	hcfg.Search.HeuristicOnly = true
	hcfg.Validation.Average = 3
	ht := mustNew(t, hcfg)
	if err := ht.ValidateStart(ctx); err != nil {
		t.Fatal(err)
	}
	for range 15 {
		if _, err := ht.Step(ctx, func() time.Duration { return 0 }); err != nil {
			t.Fatal(err)
		}
	}
	ref := ht.Set().ReferenceIndex()
	if got, want := ht.Recommendation()[ref], hcfg.Init[ht.Names()[ref]]; got != want {
		t.Errorf("the held reference weight averages to %v, want %v exactly", got, want)
	}
}

func mustNew(t *testing.T, cfg *Config) *Tuner {
	t.Helper()
	tu, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tu
}

// TestFinishWithin: a tuner told to finish within fewer games than its
// race's full length plays fewer games an entrant, half of
// validation.select at least, and FinishGames says so beforehand.
func TestFinishWithin(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		limit int64
		each  int // the games an entrant plays at most
	}{
		{1 << 40, 16},
		{4 + 6*12, 12},
		{4 + 6*9, 8}, // rounded down to whole blocks of 2, at least half
		{1, 8},
	} {
		cfg := raceConfig(t, 3, 16)
		cfg.Seed = 3
		cfg.Generations = 0
		tu := mustNew(t, cfg)
		// 7 generations: finalists at 2, 4 and 6, the latest mean and the
		// average of the last 4 (half of 7, rounded): with the start, 6
		// entrants.
		if err := tu.ValidateStart(ctx); err != nil {
			t.Fatal(err)
		}
		for range 7 {
			if _, err := tu.Step(ctx, func() time.Duration { return 0 }); err != nil {
				t.Fatal(err)
			}
		}
		least, most := tu.FinishGames()
		if want := int64(4 + 6*8); least != want {
			t.Errorf("FinishGames: least %d, want the validation's 4 and 8 games of 6 entrants", least)
		}
		if want := int64(4 + 6*16); most != want {
			t.Errorf("FinishGames: most %d, want %d", most, want)
		}
		rp := &recordingPool{p: tu.pool.p}
		tu.pool.p = rp
		if err := tu.FinishWithin(ctx, "budget", tc.limit); err != nil {
			t.Fatal(err)
		}
		r := tu.State().Validated.Race
		if len(rp.batches) == 0 || len(rp.batches[0].Seeds) != tc.each {
			t.Errorf("limit %d: the race played on %d seeds, want %d", tc.limit, len(rp.batches[0].Seeds), tc.each)
		}
		for _, e := range r.Entrants {
			if e.Games > tc.each {
				t.Errorf("limit %d: generation %d played %d games, want at most %d", tc.limit, e.Generation, e.Games, tc.each)
			}
		}
		if least, most := tu.FinishGames(); least != 0 || most != 0 {
			t.Errorf("after Finish: FinishGames %d, %d; want nothing left", least, most)
		}
	}
}

// TestRaceStages checks the race across a ladder: each stage ends with a
// race of its own start, finalists and latest mean (average 1: no average
// races); the next stage starts from the winner, and races its start (the
// winner, under its own validation search) at its end.
func TestRaceStages(t *testing.T) {
	yml := strings.Replace(ladderYAML, "validation: {games: 4}", "validation: {every: 1, games: 4, finalists: 2, select: 8, average: 1}", 1)
	for _, seed := range []string{"seed: 3", "seed: 4", "seed: 9"} {
		tu := mustNew(t, parseResolved(t, strings.Replace(yml, "seed: 3", seed, 1)))
		ctx := context.Background()
		if err := tu.ValidateStart(ctx); err != nil {
			t.Fatal(err)
		}
		var races []*RecordRace
		starts := []int{0}
		for tu.Finished() == "" {
			rec, err := tu.Step(ctx, func() time.Duration { return 0 })
			if err != nil {
				t.Fatal(err)
			}
			if rec.Validation == nil {
				continue
			}
			r := rec.Validation.Race
			races = append(races, r)
			g := rec.Generation
			if want := []int{starts[len(starts)-1], g - 2, g - 1, g}; len(r.Entrants) != 4 || !r.Entrants[0].Start || r.Entrants[3].Average != 0 ||
				r.Entrants[0].Generation != want[0] || r.Entrants[1].Generation != want[1] || r.Entrants[2].Generation != want[2] || r.Entrants[3].Generation != want[3] {
				t.Errorf("%s: the race after generation %d: %+v, want the start (of %d), finalists %d and %d, and the latest mean %d", seed, g, r.Entrants, want[0], want[1], want[2], want[3])
			}
			if rec.StageEnd != "" {
				st := tu.State()
				if !slices.Equal(st.StageStart, st.Validated.Weights) || st.Validated.Generation != r.Recommends {
					t.Errorf("%s: stage %d starts from %v, want the winner's (generation %d) %v", seed, st.Stage+1, st.StageStart, r.Recommends, st.Validated.Weights)
				}
				starts = append(starts, r.Recommends)
			}
		}
		if len(races) != 2 {
			t.Errorf("%s: %d races, want one a stage", seed, len(races))
		}
	}
}

// TestRaceDoubling: under spacing: doubling the finalists are the means at
// a stage's generations 1, 2, 4, 8 and on, counted from the stage's start,
// and the race takes the latest validation.finalists of them before its
// end: in one stage of 10 generations 2, 4 and 8; in a ladder of 3 and 6
// generations (average 1: no average races), 1 and 2, then the second
// stage's 2nd and 4th (5 and 7).
func TestRaceDoubling(t *testing.T) {
	cfg := raceConfig(t, 3, 16)
	cfg.Validation.Spacing = SpacingDoubling
	recs := stepAll(t, mustNew(t, cfg))
	for _, rec := range recs {
		if want := rec.Generation&(rec.Generation-1) == 0; rec.Finalist != want {
			t.Errorf("generation %d: finalist %v, want %v", rec.Generation, rec.Finalist, want)
		}
	}
	r := recs[len(recs)-1].Validation.Race
	var gens []int
	for _, e := range r.Entrants {
		gens = append(gens, e.Generation)
	}
	if want := []int{0, 2, 4, 8, 10, 10}; !slices.Equal(gens, want) {
		t.Errorf("entrants at %v, want %v: the start, the finalists 2, 4 and 8, the latest mean and the average", gens, want)
	}

	yml := strings.Replace(ladderYAML, "validation: {games: 4}", "validation: {spacing: doubling, games: 4, finalists: 2, select: 8, average: 1}", 1)
	tu := mustNew(t, parseResolved(t, yml))
	var races [][]int
	for _, rec := range stepAll(t, tu) {
		if rec.Validation == nil {
			continue
		}
		var gens []int
		for _, e := range rec.Validation.Race.Entrants {
			gens = append(gens, e.Generation)
		}
		races = append(races, gens)
	}
	if len(races) != 2 || !slices.Equal(races[0], []int{0, 1, 2, 3}) || !slices.Equal(races[1][1:], []int{5, 7, 9}) {
		t.Errorf("a ladder of 3 and 6 generations: races of %v, want [0 1 2 3] and [start 5 7 9]", races)
	}
}

// TestFinalistsBefore: the finalists a stage of g generations races are
// those its run keeps, counted as the race counts them, under both
// spacings; the description names the spacing.
func TestFinalistsBefore(t *testing.T) {
	for _, spacing := range []string{"", SpacingDoubling} {
		for _, k := range []int{1, 3, 5} {
			cfg := raceConfig(t, k, 16)
			if spacing == SpacingDoubling {
				// What Resolve leaves there, which doubling ignores.
				cfg.Validation.Spacing, cfg.Validation.Every = spacing, DefaultValidationEvery
			}
			recs := stepAll(t, mustNew(t, cfg))
			r := recs[len(recs)-1].Validation.Race
			// The start, the latest mean and the average race besides them.
			if got, want := cfg.Validation.FinalistsBefore(cfg.Generations), len(r.Entrants)-3; got != want {
				t.Errorf("spacing %q, %d finalists: FinalistsBefore(%d) = %d, the race had %d", spacing, k, cfg.Generations, got, want)
			}
		}
	}
	even := ValidationConfig{Finalists: 2, Every: 5}
	doubling := ValidationConfig{Finalists: 2, Spacing: SpacingDoubling}
	if got := even.FinalistSpacing(); got != "every 5 generations" {
		t.Errorf("even: %q", got)
	}
	if got := doubling.FinalistSpacing(); got != "at generations 1, 2, 4, 8, ..." {
		t.Errorf("doubling: %q", got)
	}
}

// TestRaceResume: a run killed anywhere, its final race included, and
// resumed ends with the uninterrupted run's bytes.
func TestRaceResume(t *testing.T) {
	// 10 generations of 6 × 4 games, the start's 4 and the race's at most
	// 4 × 16: cuts in the generations, in the race and in the last
	// validation.
	checkResumeExact(t, func() *Config { return raceConfig(t, 3, 16) }, [][]int64{{3}, {130}, {250}, {255, 40}, {300}})
}

// TestRaceResumesOldCheckpoints: a checkpoint of the rules the final race
// replaced (payload format 1: recommend race, best or last, a fallback,
// their state) resumes: its config loads without them, what it
// recommended is the run's validated mean and a finalist of its stage,
// and the run ends with a race that has it among its entrants.
func TestRaceResumesOldCheckpoints(t *testing.T) {
	ctx := context.Background()
	for _, rule := range []string{"recommend: race\n  select: 200\n  fallback: 0.05", "recommend: best\n  patience: 3", "recommend: last"} {
		cfg := raceConfig(t, 3, 16)
		cfg.Generations = 5 // so that generation 3 is among the last finalists
		tu := mustNew(t, cfg)
		if err := tu.ValidateStart(ctx); err != nil {
			t.Fatal(err)
		}
		for range 4 {
			if _, err := tu.Step(ctx, func() time.Duration { return 0 }); err != nil {
				t.Fatal(err)
			}
		}
		st := tu.State()
		// The old rule's recommendation: generation 3's mean, validated.
		old := *st.Start
		old.Generation, old.Weights = 3, slices.Clone(st.Finalists[0].Weights)
		var state map[string]any
		data, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &state); err != nil {
			t.Fatal(err)
		}
		delete(state, "finalists")
		delete(state, "means")
		state["validated"] = old
		switch {
		case strings.Contains(rule, "race"):
			state["incumbent"] = old
			state["fell_back_to"] = map[string]int{"generation": 1}
			state["fallbacks"] = 1
		case strings.Contains(rule, "best"):
			state["best"] = old
			state["stale"] = 2
		}
		yml := mustMarshalConfig(t, cfg)
		yml = strings.Replace(yml, "  finalists: 3\n", "", 1)
		yml = strings.Replace(yml, "  average: 5\n", "", 1)
		yml = strings.Replace(yml, "  select: 16\n", "  "+rule+"\n", 1)
		if !strings.Contains(yml, rule) {
			t.Fatalf("the old config was not written: %s", yml)
		}
		payload, err := json.Marshal(map[string]any{"format": 1, "config": yml, "state": state, "history_lines": 4})
		if err != nil {
			t.Fatal(err)
		}
		c := &checkpoints.Checkpoint{RulesVersion: engine.RulesVersion, Generation: st.Generation, Payload: payload}
		ocfg, ost, _, err := decodeCheckpoint(c, "old.ckpt")
		if err != nil {
			t.Fatalf("%s: %v", rule, err)
		}
		if ocfg.Validation.Finalists != 1 || ocfg.Validation.Average != 1 || ocfg.Validation.Recommend != "" || ocfg.Validation.Fallback != 0 {
			t.Errorf("%s: the old config resolves to %+v", rule, ocfg.Validation)
		}
		if rule == "recommend: last" {
			// Nothing but the latest validated mean: no finalist from it.
			if len(ost.Finalists) != 0 {
				t.Errorf("%s: finalists %+v, want none", rule, ost.Finalists)
			}
		} else if ost.Validated == nil || ost.Validated.Generation != 3 || len(ost.Finalists) != 1 || ost.Finalists[0].Generation != 3 {
			t.Fatalf("%s: restored validated %+v, finalists %+v; want generation 3's mean as both", rule, ost.Validated, ost.Finalists)
		}
		nt := mustNew(t, ocfg)
		if err := nt.Restore(ost); err != nil {
			t.Fatal(err)
		}
		var last Record
		for nt.Finished() == "" {
			if last, err = nt.Step(ctx, func() time.Duration { return 0 }); err != nil {
				t.Fatal(err)
			}
		}
		var gens []int
		for _, e := range last.Validation.Race.Entrants {
			gens = append(gens, e.Generation)
		}
		if rule != "recommend: last" && !slices.Contains(gens, 3) {
			t.Errorf("%s: the final race's entrants %v, want the old recommendation (generation 3) among them", rule, gens)
		}
	}
}

// TestRaceConfig checks the validation keys: the rules the final race
// replaced are refused with the reason, and so are settings that would
// change nothing.
func TestRaceConfig(t *testing.T) {
	for _, tc := range []struct{ yml, want string }{
		{"validation: {recommend: race}", `c.yaml:1: validation.recommend: "race": no longer a setting: every stage recommends the average of its last means`},
		{"validation: {recommend: best, patience: 2}", `validation.recommend: "best": no longer a setting`},
		{"validation: {patience: 2}", "validation.patience: 2: no longer a setting"},
		{"validation: {fallback: 0.05}", "validation.fallback: 0.05: no longer a setting"},
		{"validation: {average: 0}", "validation.average: 0: want 1 (the latest mean) to 1024"},
		{"validation: {average: 1025}", "validation.average: 1025: want 1"},
		{"validation: {finalists: 17}", "validation.finalists: 17: want 0 to 16 earlier means"},
		{"validation: {finalists: -1}", "validation.finalists: -1: want 0"},
		{"validation: {finalists: 2, select: 0}", "validation.finalists: 2 with select: 0: there is no race for them"},
		{"validation: {select: 1}", "validation.select: 1: want 0 (no race) or 2 to"},
		{"validation: {select: -4}", "validation.select: -4: want 0 (no race) or 2 to"},
		{"validation: {every: 3}", "validation.every: 3 without finalists"},
		{"validation: {finalists: 2, spacing: log}", `validation.spacing: "log": want even (every`},
		{"validation: {spacing: doubling}", "validation.spacing: doubling without finalists"},
		{"validation: {finalists: 2, spacing: doubling, every: 4}", "validation.every: 4 with spacing: doubling"},
		{"noise: {handling: false, games: [4, 16]}", "noise.games: [4 16] with handling: false"},
		{"noise: {handling: false, reevaluate: 2}", "noise.reevaluate: 2 with handling: false"},
		{"noise: {handling: false, block: 8}", "noise.block: 8 with handling and racing off"},
	} {
		_, err := ReadConfig([]byte(tc.yml+"\n"), "c.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.yml, err, tc.want)
		}
	}
	for _, yml := range []string{
		"validation: {finalists: 0}",
		"validation: {select: 0}",
		"validation: {select: 0, average: 1}",
		"validation: {finalists: 5, every: 3, select: 40, average: 8}",
		"validation: {finalists: 4, spacing: doubling}",
		"validation: {finalists: 4, spacing: even, every: 7}",
		"noise: {handling: false, racing: true, block: 8}",
		"noise: {handling: false}",
	} {
		cfg, err := ReadConfig([]byte(yml+"\n"), "c.yaml")
		if err != nil {
			t.Errorf("%s: %v", yml, err)
			continue
		}
		// The resolved config reads back as itself.
		back, err := ParseConfig([]byte(mustMarshalConfig(t, cfg)), "resolved.yaml")
		if err != nil {
			t.Fatalf("%s: resolved: %v", yml, err)
		}
		back.Resolve()
		if err := back.Validate(); err != nil || back.Validation.Finalists != cfg.Validation.Finalists || back.Validation.Select != cfg.Validation.Select || back.Validation.Average != cfg.Validation.Average || back.Validation.Spacing != cfg.Validation.Spacing || back.Validation.Every != cfg.Validation.Every || back.Noise.Racing != cfg.Noise.Racing {
			t.Errorf("%s: resolved reads back as %+v, %+v (%v); want %+v, %+v", yml, back.Validation, back.Noise, err, cfg.Validation, cfg.Noise)
		}
	}
	// Racing follows noise handling where the config leaves it out.
	for yml, want := range map[string]bool{"noise: {handling: false}": false, "noise: {}": true, "noise: {handling: false, racing: true}": true} {
		cfg, err := ReadConfig([]byte(yml+"\n"), "c.yaml")
		if err != nil || cfg.Noise.Racing != want {
			t.Errorf("%s: racing %v (%v), want %v", yml, cfg != nil && cfg.Noise.Racing, err, want)
		}
	}
}

// TestRacingFixedGames: racing on a fixed fitness.games, without noise
// handling, stops candidates that μ others beat, ranks them below every
// candidate that played on, and counts the games it played; the same run
// without racing plays the same first blocks.
func TestRacingFixedGames(t *testing.T) {
	ctx := context.Background()
	cfg := raceConfig(t, 0, 0)
	cfg.Fitness.Games = 32
	cfg.Noise.Racing, cfg.Noise.Block = true, 4
	pool := tiltPool{from: cfg.Init["monotonicity"], scale: 0.05 * cfg.Init["monotonicity"]}
	tu, err := New(cfg, Options{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	if err := tu.ValidateStart(ctx); err != nil {
		t.Fatal(err)
	}
	dropped := 0
	for range 4 {
		before := tu.State()
		rec, err := tu.Step(ctx, func() time.Duration { return 0 })
		if err != nil {
			t.Fatal(err)
		}
		n := rec.Noise
		if n == nil || !n.Fixed || n.Games != 32 {
			t.Fatalf("generation %d: noise record %+v, want racing's on 32 fixed games", rec.Generation, n)
		}
		if got := tu.State().Games - before.Games; got != int64(n.Played) {
			t.Errorf("generation %d: %d games counted, racing played %d", rec.Generation, got, n.Played)
		}
		if n.Dropped > 0 && n.Played >= rec.Lambda*32 {
			t.Errorf("generation %d: %d dropped, yet %d games played", rec.Generation, n.Dropped, n.Played)
		}
		dropped += n.Dropped
	}
	if dropped == 0 {
		t.Error("racing dropped no candidate on a steep slope")
	}
}

func mustMarshalConfig(t *testing.T, cfg *Config) string {
	t.Helper()
	data, err := MarshalConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
