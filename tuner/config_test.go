package tuner

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evotune/evotune/configs"
	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/internal/yamlx"
)

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name, yaml string
		line       int
		field      string
		msg        string
	}{
		{"unknown key", "name: x\nsede: 3\n", 2, "sede", "unknown key"},
		{"unknown nested key", "search:\n  algorithm: beam\n  dept: 3\n", 3, "search.dept", "allowed in search"},
		{"duplicate key", "seed: 1\nseed: 2\n", 2, "seed", "twice"},
		{"wrong type", "generations: many\n", 1, "generations", `"many" is not an integer`},
		{"float for int", "fitness: {games: 2.5}\n", 1, "fitness.games", `"2.5" is not an integer`},
		{"string for number", "sigma: big\n", 1, "sigma", `"big" is not a number`},
		{"negative seed", "seed: -1\n", 1, "seed", "-1 is out of range (want 0 to 18446744073709551615)"},
		{"bad duration", "duration: 8 hours\n", 1, "duration", "duration"},
		{"section not a map", "search: deep\n", 1, "search", "mapping"},
		{"bounds not a list", "bounds: {empty: 5}\n", 1, "bounds.empty", "list"},
		{"nan weight", "init: {empty: .nan}\n", 1, "init.empty", "finite"},
		{"unknown feature set", "features: fancy\n", 1, "features", "unknown feature set"},
		{"unknown init feature", "features: standard\ninit:\n  empty: 1\n  emptiness: 2\n", 4, "init.emptiness", "unknown feature"},
		{"unknown bound feature", "bounds: {cornr: [0, 1]}\n", 1, "bounds.cornr", "unknown feature"},
		{"bound order", "bounds:\n  empty: [10, 5]\n", 2, "bounds.empty", "lower < upper"},
		{"bound excludes start", "init: {empty: 270}\nbounds: {empty: [0, 100]}\n", 2, "bounds.empty", "does not contain"},
		{"bad method", "optimizer: {method: pso}\n", 1, "optimizer.method", "cmaes or cem"},
		{"population one", "optimizer: {population: 1}\n", 1, "optimizer.population", "at least 2"},
		{"elite", "optimizer: {elite: 1.5}\n", 1, "optimizer.elite", "(0, 1)"},
		{"restarts", "optimizer: {restarts: bipop}\n", 1, "optimizer.restarts", "none or ipop"},
		{"lr_adapt with cem", "optimizer: {method: cem, lr_adapt: true}\n", 1, "optimizer.lr_adapt", "method: cmaes"},
		{"lr_adapt not a bool", "optimizer: {lr_adapt: 2}\n", 1, "optimizer.lr_adapt", ""},
		{"mirrored with cem", "optimizer: {method: cem, mirrored: true}\n", 1, "optimizer.mirrored", "method: cmaes"},
		{"settle with cem", "optimizer: {method: cem, settle: true}\n", 1, "optimizer.settle", "method: cmaes"},
		{"settle with lr_adapt", "optimizer: {settle: true, lr_adapt: true}\n", 1, "optimizer.settle", "choose one"},
		{"mirrored not a bool", "optimizer: {mirrored: yes please}\n", 1, "optimizer.mirrored", ""},
		{"algorithm", "search: {algorithm: mcts}\n", 1, "search.algorithm", "expectimax, beam or nneonneo"},
		{"depth", "\nsearch: {depth: -2}\n", 2, "search.depth", "1 to 20"},
		{"width", "search: {width: -1}\n", 1, "search.width", "at least 1"},
		{"games", "fitness: {games: -3}\n", 1, "fitness.games", "at least 1"},
		{"metric", "fitness: {metric: max_score}\n", 1, "fitness.metric", "mean_score"},
		{"reach tile", "fitness: {metric: \"reach:3000\"}\n", 1, "fitness.metric", "power of two"},
		{"validation games", "validation: {games: 1}\n", 1, "validation.games", "at least 2"},
		{"recommend", "validation: {recommend: top}\n", 1, "validation.recommend", `"top": no longer a setting: every stage recommends the average of its last means`},
		{"patience", "validation: {patience: -1}\n", 1, "validation.patience", "-1: no longer a setting"},
		{"patience", "validation:\n  patience: 3\n", 2, "validation.patience", "delete the line"},
		{"fallback", "validation:\n  every: 5\n  fallback: 0.7\n", 3, "validation.fallback", "0.7: no longer a setting"},
		{"finalists", "validation:\n  finalists: 20\n", 2, "validation.finalists", "20: want 0 to 16 earlier means"},
		{"fallback not a number", "validation: {fallback: yes}\n", 1, "validation.fallback", "not a number"},
		{"keep", "checkpoints: {keep: -1}\n", 1, "checkpoints.keep", "at least 1"},
		{"name", "name: ../evil\n", 1, "name", "letters"},
		{"unknown parameter", "features: nneonneo\ninit: {sum_pow: 3}\n", 2, "init.sum_pow", "parameters: monotonicity_power, sum_power"},
		{"parameter out of range", "features: nneonneo\ninit: {sum_power: 7}\n", 2, "init.sum_power", "[1, 6]"},
		{"parameter bounds", "features: nneonneo\nbounds: {sum_power: [0.5, 4]}\n", 2, "bounds.sum_power", "within the parameter's own [1, 6]"},
		{"nneonneo even depth", "search: {algorithm: nneonneo, depth: 4}\n", 1, "search.depth", "odd depth"},
		{"cutoff", "search: {cutoff: 1.5}\n", 1, "search.cutoff", "(0, 1)"},
		{"table", "search: {table: 31}\n", 1, "search.table", "0 (no table) to 30"},
		{"beam table", "search: {algorithm: beam, table: 14}\n", 1, "search.table", "only the expectimax search"},
		{"beam cutoff", "search: {algorithm: beam, cutoff: 0.01}\n", 1, "search.cutoff", "beam search has no probability cutoff"},
		{"nneonneo adaptive", "search: {algorithm: nneonneo, adaptive: true}\n", 1, "search.adaptive", "only the expectimax search"},
		{"generations", "generations: -5\n", 1, "generations", "0 (no limit)"},
		{"workers", "workers: -1\n", 1, "workers", "one per core"},
		{"sigma", "sigma: -0.1\n", 1, "sigma", "(0, 10]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadConfig([]byte(tt.yaml), "c.yaml")
			if err == nil {
				t.Fatal("no error")
			}
			var fe *yamlx.FileError
			if !errors.As(err, &fe) || !errors.Is(err, ErrConfig) {
				t.Fatalf("error %v is not a yamlx.FileError wrapping ErrConfig", err)
			}
			if fe.File != "c.yaml" || fe.Line != tt.line || fe.Field != tt.field || !strings.Contains(fe.Msg, tt.msg) {
				t.Errorf("got %q (line %d, field %q); want line %d, field %q, message containing %q", err, fe.Line, fe.Field, tt.line, tt.field, tt.msg)
			}
			if want := "c.yaml:"; !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error %q does not start with %q", err, want)
			}
		})
	}
	if _, err := ParseConfig([]byte("a: [1, 2\n"), "c.yaml"); err == nil || !strings.Contains(err.Error(), "c.yaml") {
		t.Errorf("malformed YAML: %v", err)
	}
}

// TestConfigYAMLErrors checks that a config's YAML problems get the line
// corrections of the strict YAML layer (internal/yamlx): the YAML decoder counts the lines of
// parser problems from 0 and names the line where a collection starts.
func TestConfigYAMLErrors(t *testing.T) {
	for _, tt := range []struct{ name, yaml, want string }{
		{"open list", "name: x\nbounds:\n  empty: [0, 1\nseed: 2\n", "c.yaml:3: invalid YAML: did not find expected ',' or ']'"},
		{"open mapping", "name: x\nsearch: {depth: 3\n", "c.yaml:2: invalid YAML: did not find expected ',' or '}'"},
		{"open quote", "seed: 1\nname: 'x\n", "c.yaml:2: invalid YAML: found unexpected end of stream"},
		{"two documents", "name: x\nseed: 1\n---\nseed: 2\n", "c.yaml:3: a second YAML document (want exactly one)"},
		{"control character", "name: x\nseed: \x01\n", "c.yaml:2: control character U+0001 (not allowed in YAML)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(tt.yaml), "c.yaml")
			var fe *yamlx.FileError
			if !errors.As(err, &fe) || !errors.Is(err, ErrConfig) || err.Error() != tt.want {
				t.Errorf("got %v, want %s (a yamlx.FileError wrapping ErrConfig)", err, tt.want)
			}
		})
	}
}

func TestConfigDefaultsRoundTrip(t *testing.T) {
	cfg, err := ReadConfig(nil, "empty.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Name != DefaultName || cfg.Search.Depth != DefaultDepth || cfg.Fitness.Games != DefaultGames || cfg.Init["empty"] != 270 {
		t.Errorf("defaults not filled: %+v", cfg)
	}
	data, err := MarshalConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseConfig(data, "resolved.yaml")
	if err != nil {
		t.Fatalf("resolved config does not read back: %v\n%s", err, data)
	}
	again, _ := MarshalConfig(back)
	if string(again) != string(data) {
		t.Errorf("resolved config changes on a round trip:\n%s\n---\n%s", data, again)
	}
}

func TestMetric(t *testing.T) {
	games := []engine.Result{{Score: 100, MaxTile: 2048}, {Score: 300, MaxTile: 4096}, {Score: 200, MaxTile: 512}, {Score: 0, MaxTile: 4}}
	for _, tt := range []struct {
		metric string
		want   float64
	}{
		{"mean_score", 150}, {"median_score", 150}, {"reach:2048", 0.5}, {"reach:4", 1},
		{"mean_log_score", (math.Log1p(100) + math.Log1p(300) + math.Log1p(200) + math.Log1p(0)) / 4},
	} {
		m, err := ParseMetric(tt.metric)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Value(games); got != tt.want || m.String() != tt.metric {
			t.Errorf("%s = %v (%s), want %v", tt.metric, got, m, tt.want)
		}
	}
	m, _ := ParseMetric("mean_log_score")
	if got := m.Value([]engine.Result{{Score: 0, MaxTile: 2}, {Score: 0, MaxTile: 2}}); got != 0 {
		t.Errorf("mean_log_score of zeros = %v", got)
	}
}

// TestPresets checks that every embedded preset decodes, validates and
// builds a tuner.
func TestPresets(t *testing.T) {
	names := configs.Names()
	if !slices.Contains(names, configs.Default) || len(names) < 4 {
		t.Fatalf("presets %v: want quick, overnight, beam and cem", names)
	}
	for _, name := range names {
		data, file, err := configs.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := ReadConfig(data, file)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if cfg.Name != name {
			t.Errorf("%s: name %q, want the preset's", file, cfg.Name)
		}
		if _, err := New(cfg, Options{}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, _, err := configs.Get("nope"); err == nil {
		t.Error("configs.Get(nope) succeeded")
	}
}

// TestConfigExplicitZero checks that a key written as 0 (or "") where that
// is no meaningful value is an error naming the line, the field and the
// allowed range, while the same key left out takes its default.
func TestConfigExplicitZero(t *testing.T) {
	for _, tt := range []struct {
		yaml, field, msg string
	}{
		{"name: \"\"\n", "name", "want 1 to 100 letters"},
		{"features: \"\"\n", "features", `unknown feature set ""`},
		{"sigma: 0\n", "sigma", "want a step size in (0, 10]"},
		{"optimizer:\n  method: \"\"\n", "optimizer.method", "want cmaes or cem"},
		{"optimizer:\n  elite: 0\n", "optimizer.elite", "want a fraction in (0, 1)"},
		{"optimizer:\n  restarts: \"\"\n", "optimizer.restarts", "want none or ipop"},
		{"search:\n  algorithm: \"\"\n", "search.algorithm", "want expectimax, beam or nneonneo"},
		{"search:\n  depth: 0\n", "search.depth", "0: want 1 to 20 plies"},
		{"search:\n  width: 0\n", "search.width", "0: want at least 1 board"},
		{"fitness:\n  games: 0\n", "fitness.games", "0: want at least 1 game"},
		{"fitness:\n  metric: \"\"\n", "fitness.metric", "want mean_score"},
		{"validation:\n  every: 0\n", "validation.every", "0: want at least 1 generation"},
		{"validation:\n  games: 0\n", "validation.games", "0: want at least 2 games"},
		{"checkpoints:\n  keep: 0\n", "checkpoints.keep", "0: want at least 1"},
		{"noise:\n  block: 0\n", "noise.block", "0: want 1 to 1024 games per block"},
	} {
		t.Run(tt.field, func(t *testing.T) {
			data := "seed: 1\n" + tt.yaml
			line := strings.Count(data, "\n")
			_, err := ReadConfig([]byte(data), "c.yaml")
			var fe *yamlx.FileError
			if !errors.As(err, &fe) || !errors.Is(err, ErrConfig) {
				t.Fatalf("explicit zero: %v, want a yamlx.FileError wrapping ErrConfig", err)
			}
			prefix := fmt.Sprintf("c.yaml:%d: %s: ", line, tt.field)
			if !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(fe.Msg, tt.msg) || !strings.HasSuffix(fe.Msg, "(leave the key out for the default)") {
				t.Errorf("got %q, want %q...%s...(leave the key out for the default)", err, prefix, tt.msg)
			}
			// The same config without the key takes the default.
			without := "seed: 1\n"
			if section, _, nested := strings.Cut(tt.yaml, "\n  "); nested {
				without += section + "\n"
			}
			if _, err := ReadConfig([]byte(without), "c.yaml"); err != nil {
				t.Errorf("without the key: %v", err)
			}
		})
	}
}

// TestConfigMeaningfulZero checks the keys whose 0 means something: they
// keep it, and the config is valid.
func TestConfigMeaningfulZero(t *testing.T) {
	cfg, err := ReadConfig([]byte("seed: 0\ngenerations: 0\nduration: 0s\nworkers: 0\n"+
		"optimizer: {population: 0}\nsearch: {heuristic_only: false, loss: 0}\nfitness: {max_moves: 0}\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		field string
		got   any
	}{
		{"seed", cfg.Seed}, {"generations", cfg.Generations}, {"duration", int64(cfg.Duration)},
		{"workers", cfg.Workers}, {"optimizer.population", cfg.Optimizer.Population},
		{"search.loss", cfg.Search.LossValue}, {"fitness.max_moves", cfg.Fitness.MaxMoves},
	} {
		if fmt.Sprint(tt.got) != "0" {
			t.Errorf("%s: 0 resolved to %v, want 0 kept", tt.field, tt.got)
		}
	}
	// A meaningful zero overridden by an invalid value gets no hint about
	// leaving the key out.
	cfg.Generations = -1
	if err := cfg.Validate(); err == nil || strings.Contains(err.Error(), "leave the key out") {
		t.Errorf("generations -1 over an explicit 0: %v", err)
	}
	// Absent, the loss takes the default; a resolved config with loss 0
	// reads back as 0, so a resumed run plays as the original.
	absent, err := ReadConfig(nil, "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if absent.Search.LossValue != engine.DefaultLossValue {
		t.Errorf("absent loss resolved to %v", absent.Search.LossValue)
	}
	data, err := MarshalConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseConfig(data, "resolved.yaml") // generations -1 (above): not valid
	if err != nil {
		t.Fatal(err)
	}
	back.Resolve()
	if back.Search.LossValue != 0 {
		t.Errorf("resolved loss 0 reads back as %v", back.Search.LossValue)
	}
}

// FuzzReadConfig checks that no input makes the config decoder panic and
// that every error it returns names the file and wraps ErrConfig.
func FuzzReadConfig(f *testing.F) {
	for _, name := range configs.Names() {
		data, _, _ := configs.Get(name)
		f.Add(data)
	}
	f.Add([]byte("search: {depth: 0}\n"))
	f.Add([]byte("init: {empty: .nan}\nbounds: {empty: [1, x]}\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := ReadConfig(data, "f.yaml")
		if err == nil {
			return
		}
		var fe *yamlx.FileError
		if !errors.As(err, &fe) || !errors.Is(err, ErrConfig) || fe.File != "f.yaml" {
			t.Fatalf("error without the file: %v", err)
		}
	})
}

// TestSearchOptionDefaults checks the table and cutoff a config gets: the
// measured play defaults for its depth where it leaves them out, its own
// values (0 included) where it writes them, and for a checkpoint of an
// older evotune, which wrote no cutoff, the exact search it had.
func TestSearchOptionDefaults(t *testing.T) {
	for _, c := range []struct {
		yaml       string
		checkpoint bool
		table      int
		cutoff     float64
	}{
		{"search: {depth: 3}\n", false, 0, 0},
		{"search: {depth: 5}\n", false, engine.PlayTableBits(5), engine.PlayCutoff(5)},
		{"search: {depth: 7}\n", false, engine.PlayTableBits(7), engine.PlayCutoff(7)},
		{"search: {depth: 5, cutoff: 0, table: 0}\n", false, 0, 0},
		{"search: {depth: 5, cutoff: 0.05, table: 10}\n", false, 10, 0.05},
		{"search: {algorithm: nneonneo, depth: 5}\n", false, 0, 0},
		{"search: {depth: 5}\n", true, engine.PlayTableBits(5), 0},
	} {
		cfg, err := ParseConfig([]byte(c.yaml), "c.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if c.checkpoint {
			cfg.asCheckpointed(payloadFormat)
		}
		cfg.Resolve()
		if err := cfg.Validate(); err != nil {
			t.Fatalf("%q: %v", c.yaml, err)
		}
		if cfg.Search.TableBits != c.table || cfg.Search.ProbCutoff != c.cutoff {
			t.Errorf("%q (checkpoint %v): table %d, cutoff %v; want %d, %v", c.yaml, c.checkpoint, cfg.Search.TableBits, cfg.Search.ProbCutoff, c.table, c.cutoff)
		}
		// The resolved config reads back to the same search.
		data, err := MarshalConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseConfig(data, "resolved")
		if err != nil {
			t.Fatal(err)
		}
		back.asCheckpointed(payloadFormat)
		back.Resolve()
		if back.Search != cfg.Search {
			t.Errorf("%q: resolved search %+v reads back as %+v", c.yaml, cfg.Search, back.Search)
		}
	}
	// A validation at another depth gets that depth's defaults.
	cfg, err := ReadConfig([]byte("search: {depth: 3}\nvalidation: {search: {depth: 7}}\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if v := cfg.StageValidationSearch(0); v.TableBits != engine.PlayTableBits(7) || v.ProbCutoff != engine.PlayCutoff(7) {
		t.Errorf("validation at 7 plies after tuning at 3: table %d, cutoff %v", v.TableBits, v.ProbCutoff)
	}
}

// TestNoiseConfigErrors checks the rules of the noise section: one line
// naming the file, line and field.
func TestNoiseConfigErrors(t *testing.T) {
	for _, tt := range []struct {
		yaml, want string
	}{
		{"noise:\n  games: [8]\n", "c.yaml:3: noise.games: [8]: want [least, most] games per candidate"},
		{"noise:\n  games: [16, 8]\n", "c.yaml:3: noise.games: [16 8]: want least ≥ block (4) and least ≤ most"},
		{"noise:\n  games: [2, 8]\n", "c.yaml:3: noise.games: [2 8]: want least ≥ block (4) and least ≤ most"},
		{"noise:\n  games: [8, 30]\n", "c.yaml:3: noise.games: [8 30]: want multiples of the block (4 games)"},
		{"noise:\n  block: 5\n  games: [8, 20]\n", "c.yaml:4: noise.games: [8 20]: want multiples of the block (5 games)"},
		{"noise:\n  block: 2000\n", "c.yaml:3: noise.block: 2000: want 1 to 1024 games per block"},
		{"noise:\n  reevaluate: -1\n", "c.yaml:3: noise.reevaluate: -1: want 0 (2 + λ/20) or a number of candidates up to 1024"},
		{"noise:\n  racing: maybe\n", `c.yaml:3: noise.racing: "maybe" is not true or false`},
		{"noise:\n  budget: 3\n", "c.yaml:3: noise.budget: unknown key (allowed in noise: handling, block, games, reevaluate, racing)"},
	} {
		data := "seed: 1\n" + tt.yaml
		_, err := ReadConfig([]byte(data), "c.yaml")
		if err == nil || err.Error() != tt.want {
			t.Errorf("%q: got %v, want %s", tt.yaml, err, tt.want)
		}
	}
}

// TestValidationSearchAdaptiveRoundTrip: an explicit adaptive: false in
// validation.search under a top-level adaptive: true survives the resolved
// config's round trip.
func TestValidationSearchAdaptiveRoundTrip(t *testing.T) {
	cfg := parseResolved(t, "search: {depth: 3, adaptive: true}\nvalidation: {search: {depth: 5, adaptive: false}}\n")
	if !cfg.Search.Adaptive || cfg.StageValidationSearch(0).Adaptive {
		t.Fatalf("resolved: search adaptive %v, validation adaptive %v; want true, false", cfg.Search.Adaptive, cfg.StageValidationSearch(0).Adaptive)
	}
	data, err := MarshalConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	back := parseResolved(t, string(data))
	if back.StageValidationSearch(0) != cfg.StageValidationSearch(0) {
		t.Errorf("validation search after the round trip %+v, want %+v\n%s", back.StageValidationSearch(0), cfg.StageValidationSearch(0), data)
	}
}

// TestConfigZeroValue checks what Config's doc promises a Config built in
// Go: a zero field resolves to the default a file that leaves its key out
// gets, and a zero that is a value of its own, set after Resolve, is kept
// by Validate, New and the resolved config a run writes and resumes from.
func TestConfigZeroValue(t *testing.T) {
	var c Config
	c.Resolve()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		field     string
		got, want any
	}{
		{"name", c.Name, "run"}, {"seed", c.Seed, uint64(0)}, {"generations", c.Generations, 0},
		{"duration", c.Duration, Duration(0)}, {"workers", c.Workers, 0},
		{"features", c.SetName, "standard"}, {"init.empty", c.Init["empty"], 270.0}, {"sigma", c.Sigma, 0.3},
		{"optimizer.method", c.Optimizer.Method, "cmaes"}, {"optimizer.population", c.Optimizer.Population, 0},
		{"optimizer.elite", c.Optimizer.Elite, 0.25}, {"optimizer.restarts", c.Optimizer.Restarts, "none"},
		{"search.algorithm", c.Search.Algorithm, engine.AlgorithmExpectimax}, {"search.depth", c.Search.Depth, 3},
		{"search.width", c.Search.Width, 8}, {"search.heuristic_only", c.Search.HeuristicOnly, false},
		{"search.loss", c.Search.LossValue, engine.DefaultLossValue}, {"search.cutoff", c.Search.ProbCutoff, engine.PlayCutoff(3)},
		{"search.table", c.Search.TableBits, engine.PlayTableBits(3)}, {"search.adaptive", c.Search.Adaptive, false},
		{"fitness.games", c.Fitness.Games, 16}, {"fitness.metric", c.Fitness.Metric, "mean_score"},
		{"fitness.max_moves", c.Fitness.MaxMoves, 0},
		{"validation.every", c.Validation.Every, 5}, {"validation.games", c.Validation.Games, 100},
		{"validation.search", c.Validation.Search, (*engine.SearchConfig)(nil)},
		{"stages", c.Stages, []StageConfig(nil)}, {"checkpoints.keep", c.Checkpoints.Keep, 3},
		{"noise.handling", c.Noise.Handling, true}, {"noise.block", c.Noise.Block, 4},
		{"noise.games", c.Noise.Games, []int(nil)}, {"noise.reevaluate", c.Noise.Reevaluate, 0.0},
		{"noise.racing", c.Noise.Racing, true},
	} {
		if !reflect.DeepEqual(tt.got, tt.want) {
			t.Errorf("%s: a zero resolves to %v, want %v", tt.field, tt.got, tt.want)
		}
	}
	// The same as an empty file, key for key.
	file, err := ReadConfig(nil, "empty.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := marshal(t, &c), marshal(t, file); got != want {
		t.Errorf("a zero Config resolves to\n%s\nan empty file to\n%s", got, want)
	}

	// A stage's zeros take the top-level values, as keys a stage leaves out.
	s := Config{Search: engine.SearchConfig{Depth: 2, HeuristicOnly: true}, Optimizer: OptimizerConfig{Population: 6},
		Stages: []StageConfig{{Generations: 1}, {Search: &engine.SearchConfig{Depth: 4}}}}
	s.Resolve()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	for i, st := range s.Stages {
		if st.Name != strconv.Itoa(i+1) || st.Games != DefaultGames || st.Population != 6 || st.Sigma != DefaultSigma || !st.Search.HeuristicOnly {
			t.Errorf("stage %d resolves to %+v (search %+v)", i+1, st, *st.Search)
		}
	}

	// Zeros of their own where the default is not zero: set after Resolve.
	z := Config{Search: engine.SearchConfig{Depth: 5}}
	z.Resolve()
	if z.Search.ProbCutoff == 0 || z.Search.TableBits == 0 || z.Search.LossValue == 0 {
		t.Fatalf("depth 5: search %+v, want the play defaults (the test needs them non-zero)", z.Search)
	}
	z.Search.LossValue, z.Search.ProbCutoff, z.Search.TableBits = 0, 0, 0
	z.Noise.Handling, z.Noise.Racing = false, false
	if err := z.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := New(&z, Options{}); err != nil {
		t.Fatal(err)
	}
	back, err := ReadConfig([]byte(marshal(t, &z)), "resolved.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if back.Search != z.Search || back.Noise.Handling || back.Noise.Racing {
		t.Errorf("zeros set after Resolve read back as search %+v, noise %+v", back.Search, back.Noise)
	}
}

func marshal(t *testing.T, c *Config) string {
	t.Helper()
	data, err := MarshalConfig(c)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
