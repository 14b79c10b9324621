package main

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/internal/golden"
)

const nnConfig = `name: nnsmall
seed: 3
generations: 2
features: nneonneo
optimizer: {method: cmaes, population: 4}
search: {algorithm: nneonneo, depth: 3}
fitness: {games: 2}
validation: {games: 2, select: 0, average: 1}
`

// nnFile writes a tuned-looking nneonneo weights file and returns its path.
func nnFile(t *testing.T) (string, string) {
	t.Helper()
	set, err := eval.Set("nneonneo")
	if err != nil {
		t.Fatal(err)
	}
	wf, err := eval.NewWeightsFile(set, []float64{187500.25, 301.5, 655.125, 39.75, 13.0625}, []float64{3.25, 3.875})
	if err != nil {
		t.Fatal(err)
	}
	wf.Search = &engine.SearchConfig{Algorithm: engine.AlgorithmNneonneo, Depth: 5}
	wf.Provenance = &eval.Provenance{
		Run: "nneonneo", Generation: 40, Optimizer: "cmaes", Seed: 7, Evaluations: 640,
		Fitness:  &eval.Fitness{Metric: "mean_score", Mean: 61250.5, CI95: 3100.25, Games: 200, Seeds: &eval.SeedRange{First: 1000, Count: 200}},
		Baseline: &eval.Fitness{Metric: "mean_score", Mean: 45800, CI95: 2950.5, Games: 200, Seeds: &eval.SeedRange{First: 1000, Count: 200}},
	}
	data, err := wf.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "nneonneo.yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, dir
}

func TestCheckV2Golden(t *testing.T) {
	path, dir := nnFile(t)
	code, out, errs := runCLI(t, "check", path)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	golden.Check(t, "testdata/check_v2.golden", []byte(strings.ReplaceAll(out, dir, "$DIR")))
}

func TestCheckCppGolden(t *testing.T) {
	path, dir := nnFile(t)
	code, out, errs := runCLI(t, "check", path, "--format", "cpp")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	golden.Check(t, "testdata/check_cpp.golden", []byte(strings.ReplaceAll(out, dir, "$DIR")))
}

func TestExportCppGolden(t *testing.T) {
	dir := tuneRun(t, nnConfig)
	code, out, errs := runCLI(t, "export", dir, "--format", "cpp")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	golden.Check(t, "testdata/export_cpp.golden", []byte(out))
	// The block holds the run's weights file's values.
	wf, err := eval.ReadWeightsFile(filepath.Join(dir, "weights.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	compareBlock(t, out, wf)
	// -o writes the same block to a file; the yaml export is unchanged.
	dst := filepath.Join(t.TempDir(), "constants.h")
	if code, _, errs := runCLI(t, "export", dir, "--format", "cpp", "-o", dst); code != 0 {
		t.Fatalf("export -o: exit %d, %s", code, errs)
	}
	if data, _ := os.ReadFile(dst); string(data) != out {
		t.Errorf("export -o wrote\n%s\nwant\n%s", data, out)
	}
	code, yaml, _ := runCLI(t, "export", dir, "-o", "-")
	if want, _ := os.ReadFile(filepath.Join(dir, "weights.yaml")); code != 0 || yaml != string(want) {
		t.Errorf("export --format yaml (the default) differs from the run's weights.yaml")
	}
}

// The program's constants come out as the program writes them.
func TestCppDefaults(t *testing.T) {
	set, _ := eval.Set("nneonneo")
	block, err := cppBlock(&eval.WeightsFile{SetName: set.Name, Weights: set.Defaults}, "defaults", nil)
	if err != nil {
		t.Fatal(err)
	}
	// From 2048.cpp (nneonneo/2048-ai), "Heuristic scoring settings".
	const program = `static const float SCORE_LOST_PENALTY = 200000.0f;
static const float SCORE_MONOTONICITY_POWER = 4.0f;
static const float SCORE_MONOTONICITY_WEIGHT = 47.0f;
static const float SCORE_SUM_POWER = 3.5f;
static const float SCORE_SUM_WEIGHT = 11.0f;
static const float SCORE_MERGES_WEIGHT = 700.0f;
static const float SCORE_EMPTY_WEIGHT = 270.0f;
`
	if !strings.HasSuffix(block, "\n"+program) {
		t.Errorf("block of the defaults:\n%s\nwant it to end with\n%s", block, program)
	}
}

var cppLine = regexp.MustCompile(`^static const float (SCORE_[A-Z_]+) = (-?[0-9]+(?:\.[0-9]*)?(?:e[-+][0-9]+)?)f;(?: // ((?:start|held).*))?$`)

// compareBlock parses a printed block back and checks each constant is
// float32 of the file's value, bit for bit.
func compareBlock(t *testing.T, block string, wf *eval.WeightsFile) {
	t.Helper()
	set, err := wf.Set()
	if err != nil {
		t.Fatal(err)
	}
	p := wf.Params
	if p == nil {
		p = set.DefaultParams()
	}
	want := map[string]float64{
		"SCORE_LOST_PENALTY":        wf.Weights[set.Index("offset")],
		"SCORE_MONOTONICITY_POWER":  p[set.ParamIndex("monotonicity_power")],
		"SCORE_MONOTONICITY_WEIGHT": wf.Weights[set.Index("monotonicity")],
		"SCORE_SUM_POWER":           p[set.ParamIndex("sum_power")],
		"SCORE_SUM_WEIGHT":          wf.Weights[set.Index("sum")],
		"SCORE_MERGES_WEIGHT":       wf.Weights[set.Index("merges")],
		"SCORE_EMPTY_WEIGHT":        wf.Weights[set.Index("empty")],
	}
	var order []string
	for _, line := range strings.Split(strings.TrimSuffix(block, "\n"), "\n") {
		if strings.HasPrefix(line, "// ") {
			if len(order) > 0 {
				t.Errorf("comment after the constants: %q", line)
			}
			continue
		}
		m := cppLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("not a constant of 2048.cpp: %q", line)
		}
		x, ok := want[m[1]]
		if !ok {
			t.Fatalf("unknown constant %s", m[1])
		}
		got, err := strconv.ParseFloat(m[2], 32)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if math.Float32bits(float32(got)) != math.Float32bits(float32(x)) {
			t.Errorf("%s: reads as float32 %v (%#x), want float32(%v) = %v (%#x)", line, float32(got), math.Float32bits(float32(got)), x, float32(x), math.Float32bits(float32(x)))
		}
		order = append(order, m[1])
	}
	if got := strings.Join(order, " "); got != "SCORE_LOST_PENALTY SCORE_MONOTONICITY_POWER SCORE_MONOTONICITY_WEIGHT SCORE_SUM_POWER SCORE_SUM_WEIGHT SCORE_MERGES_WEIGHT SCORE_EMPTY_WEIGHT" {
		t.Errorf("constants in the order %s, want the program's", got)
	}
}

// TestCppRoundTrip parses blocks of random weights and parameters back: each
// constant must be float32 of the value, bit for bit.
func TestCppRoundTrip(t *testing.T) {
	set, _ := eval.Set("nneonneo")
	rng := rand.New(rand.NewPCG(11, 11))
	special := []float64{0, math.Copysign(0, -1), 1e-46, math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32,
		math.MaxFloat32, -math.MaxFloat32, 16777217, 0.1, 1e-7, 123456789, 3.4e38, 1e7, 1e21}
	for range 2000 {
		w := make([]float64, len(set.Features))
		for j := range w {
			switch rng.IntN(4) {
			case 0:
				w[j] = special[rng.IntN(len(special))]
			case 1:
				w[j] = float64(math.Float32frombits(rng.Uint32()&^(0xff<<23) | uint32(rng.IntN(254))<<23))
			case 2:
				w[j] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(12)-3))
			default:
				w[j] = rng.Float64() * 1e6
			}
		}
		p := make([]float64, len(set.Params))
		for j, q := range set.Params {
			p[j] = q.Min + rng.Float64()*(q.Max-q.Min)
		}
		// The formatting alone: cppBlock compiles the weights first, which
		// costs more than everything else here.
		block := cppLines(set, w, p, nil)
		wf := &eval.WeightsFile{SetName: set.Name, Weights: w, Params: p}
		compareBlock(t, block, wf)
		if t.Failed() {
			t.Fatalf("weights %v params %v:\n%s", w, p, block)
		}
	}
}

// Only nneonneo weights are constants of 2048.cpp: any other set is one
// line and exit 2, from check and from export.
func TestCppOtherSets(t *testing.T) {
	path := writeFile(t, "std.yaml", checkGood)
	code, out, errs := runCLI(t, "check", path, "--format", "cpp")
	want := "evotune check: --format cpp: " + path + " holds standard weights; only nneonneo weights are constants of 2048.cpp (nneonneo/2048-ai)\n"
	if code != 2 || out != "" || errs != want {
		t.Errorf("check --format cpp of a standard file: exit %d, stdout %q, stderr %q; want 2 and %q", code, out, errs, want)
	}
	dir := tuneRun(t, smallConfig)
	code, out, errs = runCLI(t, "export", dir, "--format", "cpp")
	if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "holds standard weights; only nneonneo weights are constants of 2048.cpp") {
		t.Errorf("export --format cpp of a standard run: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	for _, args := range [][]string{{"check", path, "--format", "c++"}, {"export", dir, "--format", "json"}} {
		code, out, errs := runCLI(t, args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "flag --format: unknown format") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}

// TestCheckV2BadFiles: bad version 2 files are one line naming file:line,
// the field and what is allowed, exit 2.
func TestCheckV2BadFiles(t *testing.T) {
	good, _ := nnFile(t)
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, tc := range []struct{ name, old, new, want string }{
		{"param bounds", "sum_power: 3.875", "sum_power: 6.5", `:11: params.sum_power: 6.5 is out of bounds (want 1 to 6)`},
		{"param unknown", "sum_power: 3.875}", "sum_power: 3.875, tile_power: 2}", `:11: params: unknown parameter "tile_power" (parameters of nneonneo: monotonicity_power, sum_power)`},
		{"param missing", "{monotonicity_power: 3.25, ", "{", `:11: params: missing parameter "monotonicity_power" (nneonneo needs monotonicity_power, sum_power)`},
		{"v2 key in v1", "format: evotune.weights/v2", "format: evotune.weights/v1", `:11: params: an evotune.weights/v2 key in an evotune.weights/v1 file (write format: evotune.weights/v2 to use it)`},
		{"depth", "depth: 5", "depth: 6", `:12: search.depth: 6: the nneonneo search wants an odd depth of at least 3 plies (2c+1 for the program's cap c: 3, 5, 7, ...)`},
		{"cutoff", "cutoff: 0.0001", "cutoff: 1.5", `:12: search.cutoff: 1.5: want 0 (the program's 1e-4) or a probability in (0, 1)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(text, tc.old) {
				t.Fatalf("%q not in the file:\n%s", tc.old, text)
			}
			path := writeFile(t, "w.yaml", strings.Replace(text, tc.old, tc.new, 1))
			code, out, errs := runCLI(t, "check", path)
			prefix := "evotune check: " + path
			if code != 2 || out != "" || errs != prefix+tc.want+"\n" {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2 and\n%s%s", code, out, errs, prefix, tc.want)
			}
		})
	}
}
