package tuner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evotune/evotune/eval"
)

// writeWeights writes a weights file of set with weights w and parameters
// p (nil: the defaults) and returns its path.
func writeWeights(t *testing.T, set string, w, p []float64) string {
	t.Helper()
	s, err := eval.Set(set)
	if err != nil {
		t.Fatal(err)
	}
	wf, err := eval.NewWeightsFile(s, w, p)
	if err != nil {
		t.Fatal(err)
	}
	data, err := wf.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), set+".yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestInitFromWeightsFile(t *testing.T) {
	std := writeWeights(t, "standard", []float64{81.5, 2, 20, 172.5, 93}, nil)
	nn := writeWeights(t, "nneonneo", []float64{150000, 270, 800, 40, 12}, []float64{3.25, 2.75})
	for _, c := range []struct {
		name, yaml string
		want       map[string]float64
		features   string
	}{
		{"standard", "init: " + std + "\n", map[string]float64{"monotonicity": 81.5, "smoothness": 2, "empty": 20, "corner": 172.5, "merge": 93}, "standard"},
		{"set named too", "features: standard\ninit: " + std + "\n", map[string]float64{"corner": 172.5}, "standard"},
		{"parameters", "init: " + nn + "\nsearch: {algorithm: nneonneo, depth: 3}\n", map[string]float64{"offset": 150000, "merges": 800, "monotonicity_power": 3.25, "sum_power": 2.75}, "nneonneo"},
	} {
		cfg, err := ReadConfig([]byte(c.yaml), "c.yaml")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if cfg.SetName != c.features || cfg.InitFrom == "" {
			t.Errorf("%s: features %q, init_from %q", c.name, cfg.SetName, cfg.InitFrom)
		}
		for k, v := range c.want {
			if cfg.Init[k] != v {
				t.Errorf("%s: init.%s = %v, want %v", c.name, k, cfg.Init[k], v)
			}
		}
	}
	for _, c := range []struct{ name, yaml, want string }{
		{"other set", "features: classic\n\ninit: " + std + "\n", "c.yaml:3: init: " + std + " holds standard weights, the config tunes classic"},
		{"no file", "init: nosuch/weights.yaml\n", "c.yaml:1: init: want a weights file: "},
		{"empty", "init: \"\"\n", "c.yaml:1: init: empty"},
	} {
		_, err := ParseConfig([]byte(c.yaml), "c.yaml")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want prefix %q", c.name, err, c.want)
		}
	}
}

// TestWarmStartRun checks that a run started from a weights file starts
// there, says so in its weights' provenance, and resumes without the file.
func TestWarmStartRun(t *testing.T) {
	path := writeWeights(t, "standard", []float64{81.5, 2, 20, 172.5, 93}, nil)
	cfg, err := ReadConfig([]byte(`name: warm
generations: 2
init: `+path+`
search: {depth: 1}
fitness: {games: 2}
validation: {games: 4}
`), "warm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	r, err := Create(cfg, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // stop before anything is played: the start is all there is
	r.Run(ctx)
	if got := r.Tuner().base; got[3] != 172.5 || got[4] != 93 {
		t.Errorf("starting vector %v, want the file's weights", got)
	}
	r.Close()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	r, err = Resume(dir, ResumeOverrides{}, Options{})
	if err != nil {
		t.Fatalf("resume without the init file: %v", err)
	}
	defer r.Close()
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	wf, err := r.Tuner().WeightsFile()
	if err != nil {
		t.Fatal(err)
	}
	if wf.Provenance.Init != path {
		t.Errorf("provenance init %q, want %q", wf.Provenance.Init, path)
	}
	data, err := os.ReadFile(filepath.Join(dir, WeightsFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "init: "+path) {
		t.Errorf("weights.yaml does not name the file the run started from:\n%s", data)
	}
	back, err := eval.ParseWeights(data, "w.yaml")
	if err != nil || back.Provenance.Init != path {
		t.Errorf("weights.yaml reads back with provenance init %v (%v)", back, err)
	}
}

func TestValidationSearchConfig(t *testing.T) {
	cfg, err := ReadConfig([]byte("search: {depth: 1, loss: -5}\nvalidation: {search: {depth: 3}}\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	vs := cfg.StageValidationSearch(0)
	if vs.Depth != 3 || vs.Algorithm != cfg.Search.Algorithm || vs.LossValue != -5 || cfg.Search.Depth != 1 {
		t.Errorf("validation search %+v from tuning search %+v: want depth 3, the rest the tuning search's", vs, cfg.Search)
	}
	// The resolved config reads back to the same search (a resumed run).
	data, err := MarshalConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ReadConfig(data, "resolved")
	if err != nil {
		t.Fatal(err)
	}
	if back.StageValidationSearch(0) != vs {
		t.Errorf("resolved config reads back as %+v, want %+v", back.StageValidationSearch(0), vs)
	}
	for _, c := range []struct{ yaml, field, msg string }{
		{"validation: {search: {depth: 0}}\n", "validation.search.depth", "want 1 to 20 plies"},
		{"search: {depth: 2}\nvalidation: {search: {algorithm: nneonneo}}\n", "validation.search.depth", "odd depth"},
		{"validation: {search: {deep: 1}}\n", "validation.search.deep", "unknown key"},
	} {
		_, err := ReadConfig([]byte(c.yaml), "c.yaml")
		if err == nil || !strings.Contains(err.Error(), c.field+": ") || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: err = %v, want %s: ...%s", c.yaml, err, c.field, c.msg)
		}
	}
}

// TestValidationSearchPlays checks that validation plays with the
// validation search: a run tuned at 1 ply and validated at 2 measures its
// start as a run tuned at 2 plies does, and its weights file says so.
func TestValidationSearchPlays(t *testing.T) {
	start := func(yaml string) (*Validation, *Tuner) {
		cfg, err := ReadConfig([]byte(yaml), "c.yaml")
		if err != nil {
			t.Fatal(err)
		}
		tu, err := New(cfg, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := tu.ValidateStart(context.Background()); err != nil {
			t.Fatal(err)
		}
		return tu.State().Start, tu
	}
	const common = "seed: 4\nfitness: {games: 2}\n"
	deepV, _ := start(common + "search: {depth: 2}\nvalidation: {games: 6}\n")
	shallowV, _ := start(common + "search: {depth: 1}\nvalidation: {games: 6}\n")
	mixedV, tu := start(common + "search: {depth: 1}\nvalidation: {games: 6, search: {depth: 2}}\n")
	if mixedV.Mean != deepV.Mean || mixedV.Median != deepV.Median {
		t.Errorf("validated at 2 plies: mean %v, want the 2-ply run's %v", mixedV.Mean, deepV.Mean)
	}
	if shallowV.Mean == deepV.Mean {
		t.Fatalf("1 and 2 plies give the same mean %v: the test cannot tell them apart", deepV.Mean)
	}
	wf, err := tu.WeightsFile()
	if err != nil {
		t.Fatal(err)
	}
	if s := wf.Provenance.Fitness.Search; s == nil || s.Depth != 2 || wf.Search.Depth != 1 {
		t.Errorf("weights file: search %+v, validated with %+v; want 1 and 2 plies", wf.Search, s)
	}
	data, err := wf.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := eval.ParseWeights(data, "w.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if s := back.Provenance.Fitness.Search; s == nil || s.Depth != 2 {
		t.Errorf("read back: validated with %+v, want 2 plies\n%s", s, data)
	}
}
