package tuner

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evotune/evotune/engine"
)

// raceConfig is bestConfig (every generation validated on few games) under
// the race, for ten generations, with races of sel games and the fallback
// at level (0: off).
func raceConfig(t *testing.T, sel int, level float64) *Config {
	t.Helper()
	cfg := bestConfig(t, RecommendRace)
	cfg.Generations = 10
	cfg.Validation.Select = sel
	cfg.Validation.Fallback = level
	return cfg
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

// TestRace checks the race step by step against its record: the winner is
// the side with the better fitness on the race's games (the challenger on
// a tie), it is what the run recommends, exports and summarises, each race
// plays both sides on the same number of fresh games, and those games are
// counted with the run's.
func TestRace(t *testing.T) {
	ctx := context.Background()
	tu, err := New(raceConfig(t, 16, 0), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := tu.ValidateStart(ctx); err != nil {
		t.Fatal(err)
	}
	validated := map[int]*Validation{0: tu.State().Start}
	rec0 := tu.State().Recommended()
	kept, won, early := 0, 0, 0
	for tu.Finished() == "" {
		before := tu.State()
		rec, err := tu.Step(ctx, func() time.Duration { return 0 })
		if err != nil {
			t.Fatal(err)
		}
		st := tu.State()
		v := st.Validated
		validated[rec.Generation] = v
		r := rec.Validation.Race
		if r == nil {
			t.Fatalf("generation %d: no race", rec.Generation)
		}
		if r.Incumbent != rec0.Generation {
			t.Errorf("generation %d: raced generation %d, want the recommended %d", rec.Generation, r.Incumbent, rec0.Generation)
		}
		want := rec0
		if r.Fitness >= r.Against {
			want = v
			won++
		} else {
			kept++
		}
		if r.Recommends != want.Generation || st.Recommended() != want {
			t.Errorf("generation %d: %v against %v: recommends %d (state %d), want %d", rec.Generation, r.Fitness, r.Against, r.Recommends, st.Recommended().Generation, want.Generation)
		}
		// The history names the recommended generation when it is not
		// this one (0 for the start; the race's record says which).
		wantRec := want.Generation
		if want == v {
			wantRec = 0
		}
		if got := rec.Validation.Recommended; got != wantRec {
			t.Errorf("generation %d: history recommends %d, want %d", rec.Generation, got, wantRec)
		}
		if r.Games < 1 || r.Games > 16 {
			t.Errorf("generation %d: a race of %d games, want 1 to 16", rec.Generation, r.Games)
		}
		if r.Games < 16 {
			early++
		}
		// The generation's games: the candidates', the validation's and
		// both sides of the race.
		if got, want := st.Games-before.Games, int64(rec.Lambda*tu.Games()+v.Games+2*r.Games); got != want && st.Noise == nil {
			t.Errorf("generation %d: %d games counted, want %d", rec.Generation, got, want)
		}
		if st.SeedCounter-before.SeedCounter < 16 {
			t.Errorf("generation %d: the race took %d tuning seeds, want its 16", rec.Generation, st.SeedCounter-before.SeedCounter)
		}
		rec0 = want
	}
	if kept == 0 || won == 0 {
		t.Fatalf("%d races kept the incumbent, %d changed it: the config no longer tests both", kept, won)
	}
	t.Logf("%d races kept the incumbent, %d changed it, %d ended early", kept, won, early)
	wf, err := tu.WeightsFile()
	if err != nil {
		t.Fatal(err)
	}
	final := tu.Recommended()
	if wf.Provenance.Generation != final.Generation {
		t.Errorf("the weights file is generation %d's, want the race's winner %d", wf.Provenance.Generation, final.Generation)
	}
}

// TestRaceSeeds: a race's games are tuning seeds that no other game of the
// run plays, and none of them a validation seed.
func TestRaceSeeds(t *testing.T) {
	cfg := raceConfig(t, 16, 0)
	pool := &recordingPool{p: NewLocalPool(1)}
	tu, err := New(cfg, Options{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	stepAll(t, tu)
	val := map[uint64]bool{}
	for j := range cfg.Validation.Games {
		val[ValidationSeed(cfg.Seed, j)] = true
	}
	tuning := map[uint64]bool{}
	for k := range tu.State().SeedCounter {
		tuning[TuningSeedAt(cfg.Seed, k)] = true
	}
	raced := map[uint64]bool{} // the races' seeds
	other := map[uint64]bool{} // every other batch's
	for _, b := range pool.batches {
		// A race's batches are the two sides' paired games; every other
		// batch of this config has four candidates or one vector.
		race := len(b.Vectors) == 2
		for _, j := range b.jobs() {
			s := b.Seeds[j.Game]
			switch {
			case race && !tuning[s]:
				t.Fatalf("race seed %d is not a tuning seed", s)
			case race && val[s]:
				t.Fatalf("race seed %d is a validation seed", s)
			case race:
				raced[s] = true
			default:
				other[s] = true
			}
		}
	}
	if len(raced) == 0 {
		t.Fatal("no race played")
	}
	for s := range raced {
		if other[s] {
			t.Fatalf("race seed %d is played by another batch too", s)
		}
	}
}

// TestRaceFallback checks the fallback step by step: at level 0.5 the
// critical value is 0, so the optimizer goes back whenever the incumbent
// wins a race by a positive paired difference, at most once per
// incumbent. After a fallback the optimizer's mean is the incumbent's
// weights, its step size half the one before, its covariance's shape
// unchanged, and the history names the incumbent.
func TestRaceFallback(t *testing.T) {
	ctx := context.Background()
	for _, seed := range []uint64{5, 6, 7} {
		cfg := raceConfig(t, 16, 0.5)
		cfg.Seed = seed
		tu, err := New(cfg, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := tu.ValidateStart(ctx); err != nil {
			t.Fatal(err)
		}
		fellTo := map[int]int{}
		fallbacks := 0
		for tu.Finished() == "" {
			rec, err := tu.Step(ctx, func() time.Duration { return 0 })
			if err != nil {
				t.Fatal(err)
			}
			r := rec.Validation.Race
			st := tu.State()
			if !r.Fallback {
				if rec.Validation.Fallback != 0 || st.Fallen != nil {
					t.Errorf("seed %d, generation %d: history or state falls back without the race's word", seed, rec.Generation)
				}
				continue
			}
			fallbacks++
			fellTo[r.Incumbent]++
			if r.Recommends != r.Incumbent || r.Fitness >= r.Against {
				t.Errorf("seed %d, generation %d: fell back after a race the challenger won (%v against %v)", seed, rec.Generation, r.Fitness, r.Against)
			}
			inc := st.Recommended()
			if st.Fallen != inc || rec.Validation.Fallback != inc.Generation && inc.Generation != 0 {
				t.Errorf("seed %d, generation %d: fell back to %d, recommends %d", seed, rec.Generation, rec.Validation.Fallback, inc.Generation)
			}
			m := tu.vector(tu.opt.Mean())
			for i := range m {
				if math.Abs(m[i]-inc.Weights[i]) > 1e-9*math.Max(1, math.Abs(inc.Weights[i])) {
					t.Errorf("seed %d, generation %d: optimizer's mean %v, want the incumbent's %v", seed, rec.Generation, m, inc.Weights)
					break
				}
			}
			if rec.Stop == "" {
				if got, want := tu.opt.Sigma(), rec.Sigma/2; math.Abs(got-want) > 1e-15 {
					t.Errorf("seed %d, generation %d: sigma %v after the fallback, want half of %v", seed, rec.Generation, got, rec.Sigma)
				}
				if got := finiteOr0(tu.opt.AxisRatio()); math.Abs(got-rec.AxisRatio) > 1e-9 {
					t.Errorf("seed %d, generation %d: axis ratio %v after the fallback, want the %v before it", seed, rec.Generation, got, rec.AxisRatio)
				}
			}
			if got := tu.Evaluations(); got != rec.Evaluations {
				t.Errorf("seed %d, generation %d: %d evaluations after the fallback, want the %d before it", seed, rec.Generation, got, rec.Evaluations)
			}
		}
		for g, n := range fellTo {
			if n > 1 {
				t.Errorf("seed %d: fell back to generation %d %d times, want at most once", seed, g, n)
			}
		}
		if got := tu.State().Fallbacks; got != fallbacks {
			t.Errorf("seed %d: state counts %d fallbacks, want %d", seed, got, fallbacks)
		}
		if fallbacks == 0 {
			t.Errorf("seed %d: no fallback at level 0.5: the config no longer tests it", seed)
		}
	}
}

// TestRaceRuns checks the race end to end: the keys survive the
// checkpoint's config, and the run is the same bytes on 1 and 3 workers
// and resumed after kills (the incumbent and the recentred optimizer are
// in the checkpoint).
func TestRaceRuns(t *testing.T) {
	data, err := MarshalConfig(raceConfig(t, 16, 0.5))
	if err != nil {
		t.Fatal(err)
	}
	back := parseResolved(t, string(data))
	if v := back.Validation; v.Recommend != RecommendRace || v.Select != 16 || v.Fallback != 0.5 {
		t.Errorf("validation reads back as %+v from\n%s", v, data)
	}
	if diff := runOn(t, raceConfig(t, 16, 0.5), 3).equal(runOn(t, raceConfig(t, 16, 0.5), 1)); diff != "" {
		t.Errorf("3 workers differ from 1 in %s", diff)
	}
	checkResumeExact(t, func() *Config { return raceConfig(t, 16, 0.5) }, [][]int64{{5}, {37}, {60, 21}, {90}})
}

// TestRaceConfig: the keys' defaults and their errors.
func TestRaceConfig(t *testing.T) {
	cfg := parseResolved(t, "validation: {fallback: 0.05}\n")
	if v := cfg.Validation; v.Recommend != RecommendRace || v.Select != DefaultSelectGames {
		t.Errorf("fallback alone resolves to %+v, want the race with %d games", v, DefaultSelectGames)
	}
	if cfg := parseResolved(t, "validation: {recommend: race}\n"); cfg.Validation.Select != DefaultSelectGames {
		t.Errorf("the race plays %d games, want %d", cfg.Validation.Select, DefaultSelectGames)
	}
	if cfg := parseResolved(t, "validation: {every: 3}\n"); cfg.Validation.Select != 0 || cfg.Validation.Recommend != "" {
		t.Errorf("without the race: %+v", cfg.Validation)
	}
	for _, c := range []struct{ yml, field, msg string }{
		{"validation: {recommend: race, select: 1}", "validation.select", "want 2 to"},
		{"validation: {recommend: race, select: -4}", "validation.select", "want 2 to"},
		{"validation: {select: 100}", "validation.select", "recommend: race"},
		{"validation: {recommend: best, fallback: 0.05}", "validation.fallback", "recommend: race"},
		{"validation: {recommend: last, fallback: 0.05}", "validation.fallback", "recommend: race"},
		{"validation: {recommend: fastest}", "validation.recommend", "race"},
	} {
		_, err := ReadConfig([]byte(c.yml+"\n"), "v.yaml")
		if err == nil || !strings.Contains(err.Error(), c.field) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: error %v, want one naming %s and saying %q", c.yml, err, c.field, c.msg)
		}
	}
}

// TestRaceStages checks the race across a ladder: each stage starts from
// the recommended mean, and the first validation with a new validation
// search takes over without a race (the figures of two searches do not
// compare), as does a stage's first validation after it.
func TestRaceStages(t *testing.T) {
	yml := strings.Replace(ladderYAML, "validation: {every: 2, games: 4}", "validation: {every: 1, games: 4, recommend: race, select: 8}", 1)
	for _, seed := range []string{"seed: 3", "seed: 4", "seed: 9"} {
		tu, err := New(parseResolved(t, strings.Replace(yml, "seed: 3", seed, 1)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if err := tu.ValidateStart(ctx); err != nil {
			t.Fatal(err)
		}
		means := map[int][]float64{0: tu.State().Start.Weights}
		stage := 0
		for tu.Finished() == "" {
			rec, err := tu.Step(ctx, func() time.Duration { return 0 })
			if err != nil {
				t.Fatal(err)
			}
			means[rec.Generation] = rec.Weights.Values
			st := tu.State()
			if first := rec.Stage-1 != stage; first {
				stage = rec.Stage - 1
				if rec.Validation.Race != nil {
					t.Errorf("%s: generation %d, the first of stage %d: raced against generation %d measured with another search", seed, rec.Generation, rec.Stage, rec.Validation.Race.Incumbent)
				}
			} else if rec.Validation.Race == nil {
				t.Errorf("%s: generation %d: no race", seed, rec.Generation)
			}
			if rec.StageEnd != "" && !slices.Equal(st.StageStart, means[st.Recommended().Generation]) {
				t.Errorf("%s: stage %d starts from %v, want the recommended generation %d's %v", seed, st.Stage+1, st.StageStart, st.Recommended().Generation, means[st.Recommended().Generation])
			}
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

// TestRaceFlat measures the safeguards on noise alone: on a flat
// objective no point is better than another, so a race is a coin's toss
// (the challenger wins about half of them) and every fallback is a false
// alarm, which at level 0.05 should come in about 5% of the races that
// could fall back (the early ends add a little). The measured rates are
// logged; the test fails if they leave their binomial bounds.
func TestRaceFlat(t *testing.T) {
	races, won, eligible, fell := 0, 0, 0, 0
	for seed := uint64(1); seed <= 24; seed++ {
		cfg := raceConfig(t, 200, 0.05)
		cfg.Seed = seed
		cfg.Generations = 20
		tu, err := New(cfg, Options{Pool: flatPool{}})
		if err != nil {
			t.Fatal(err)
		}
		fellTo := map[int]bool{}
		for _, rec := range stepAll(t, tu) {
			r := rec.Validation.Race
			if r == nil {
				continue
			}
			races++
			if r.Recommends != r.Incumbent {
				won++
			}
			if !fellTo[r.Incumbent] {
				eligible++
			}
			if r.Fallback {
				fell++
				fellTo[r.Incumbent] = true
			}
		}
	}
	pWon, pFell := float64(won)/float64(races), float64(fell)/float64(eligible)
	t.Logf("flat objective: %d races, the challenger won %d (%.3f); %d fallbacks in %d races that could fall back (%.3f at level 0.05)", races, won, pWon, fell, eligible, pFell)
	if sd := math.Sqrt(0.25 / float64(races)); math.Abs(pWon-0.5) > 4*sd {
		t.Errorf("the challenger won %.3f of the races on a flat objective, want 0.5 ± %.3f", pWon, 4*sd)
	}
	if sd := math.Sqrt(0.05 * 0.95 / float64(eligible)); pFell > 0.05+4*sd {
		t.Errorf("fallbacks in %.3f of the races on a flat objective, want at most 0.05 + %.3f", pFell, 4*sd)
	}
	if fell == 0 {
		t.Error("no fallback at all: the measurement says nothing")
	}
}

// tiltPool is flatPool with a slope: a vector's scores are multiplied by
// e^((x_0 - from)/scale), so that a point far up the slope beats one below
// it in few games.
type tiltPool struct{ from, scale float64 }

func (p tiltPool) Play(ctx context.Context, b *Batch, results [][]engine.Result, done GameDone) error {
	if err := (flatPool{}).Play(ctx, b, results, nil); err != nil {
		return err
	}
	for _, j := range b.jobs() {
		r := &results[j.Candidate][j.Game]
		r.Score = int(float64(r.Score) * math.Exp((b.Vectors[j.Candidate][0]-p.from)/p.scale))
		if done != nil {
			done(j, *r, false)
		}
	}
	return nil
}

// TestRaceEndsEarly: a race between points far apart ends after its
// second block, with the better one recommended; one between equals plays
// to its end.
func TestRaceEndsEarly(t *testing.T) {
	cfg := raceConfig(t, 200, 0)
	cfg.Generations = 6
	tu, err := New(cfg, Options{Pool: tiltPool{from: cfg.Init["monotonicity"], scale: 0.1 * cfg.Init["monotonicity"]}})
	if err != nil {
		t.Fatal(err)
	}
	early := 0
	for _, rec := range stepAll(t, tu) {
		r := rec.Validation.Race
		if r.Games%(200/raceBlocks) != 0 || r.Games < 2*200/raceBlocks {
			t.Errorf("generation %d: a race of %d games, want whole blocks of %d, two at least", rec.Generation, r.Games, 200/raceBlocks)
		}
		if r.Games < 200 {
			early++
			if better := r.Fitness >= r.Against; better != (r.Recommends == rec.Generation) {
				t.Errorf("generation %d: %v against %v, recommends %d", rec.Generation, r.Fitness, r.Against, r.Recommends)
			}
		}
	}
	if early == 0 {
		t.Error("no race ended early on a steep slope")
	}
	t.Logf("on a slope, %d of %d races ended early", early, cfg.Generations)
	// On a flat objective hardly any race ends early: the statistic seldom
	// reaches raceStop when nothing differs.
	tu, err = New(raceConfig(t, 200, 0), Options{Pool: flatPool{}})
	if err != nil {
		t.Fatal(err)
	}
	early, races := 0, 0
	for _, rec := range stepAll(t, tu) {
		races++
		if rec.Validation.Race.Games < 200 {
			early++
		}
	}
	t.Logf("on a flat objective, %d of %d races ended early", early, races)
	if early > races/4 {
		t.Errorf("%d of %d races on a flat objective ended early", early, races)
	}
}

// TestRaceResumesTheOldGuard: a checkpoint written when validation.fallback
// was the guard that compared validations (an anchor in its state, no
// incumbent) restores under the race it now means: what it recommended
// becomes the incumbent, the anchor is dropped, and the run goes on.
func TestRaceResumesTheOldGuard(t *testing.T) {
	ctx := context.Background()
	old := raceConfig(t, 16, 0)
	old.Validation.Recommend = RecommendLast
	old.Validation.Select = 0
	tu, err := New(old, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := tu.ValidateStart(ctx); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := tu.Step(ctx, func() time.Duration { return 0 }); err != nil {
			t.Fatal(err)
		}
	}
	st := tu.State()
	st.Anchor = st.Validated
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"anchor":`) {
		t.Fatal("the state carries no anchor: the test no longer writes an old checkpoint")
	}
	var back State
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	cfg := parseResolved(t, strings.Replace(mustMarshalConfig(t, old), "recommend: last", "fallback: 0.5", 1))
	if cfg.Validation.Recommend != RecommendRace {
		t.Fatalf("the old config resolves to recommend %q, want the race", cfg.Validation.Recommend)
	}
	nt, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := nt.Restore(back); err != nil {
		t.Fatal(err)
	}
	rs := nt.State()
	if rs.Anchor != nil || rs.Incumbent == nil || rs.Incumbent.Generation != st.Validated.Generation {
		t.Fatalf("restored: anchor %v, incumbent %+v; want no anchor and generation %d's mean", rs.Anchor, rs.Incumbent, st.Validated.Generation)
	}
	rec, err := nt.Step(ctx, func() time.Duration { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	if r := rec.Validation.Race; r == nil || r.Incumbent != st.Validated.Generation {
		t.Errorf("the first race after the resume: %+v, want one against generation %d", r, st.Validated.Generation)
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
