package optimizers_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/evotune/evotune/tuner/tunebench"
)

// python returns a python3 that imports module ("" for none), or skips.
func python(t *testing.T, module string) string {
	t.Helper()
	var found []string
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		path, err := exec.LookPath(py)
		if err != nil {
			continue
		}
		found = append(found, path)
		if module == "" || exec.Command(path, "-W", "ignore", "-c", "import "+module).Run() == nil {
			return path
		}
	}
	if len(found) == 0 {
		t.Skip("no python3: the Python optimizers are not tested")
	}
	t.Skipf("no python3 with %s (tried %v): that optimizer is not tested", module, found)
	return ""
}

var built struct {
	once sync.Once
	dir  string
	err  error
	out  []byte
}

// evotune returns the directory of an evotune binary built from this
// module, the real command the scripts speak to; it skips where the go
// command is missing.
func evotune(t *testing.T) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build evotune with: the scripts are not run against evotune objective")
	}
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "evotune-optimizers-"); built.err != nil {
			return
		}
		exe := "evotune"
		if filepath.Ext(os.Args[0]) == ".exe" {
			exe += ".exe"
		}
		built.out, built.err = exec.Command(goCmd, "build", "-o", filepath.Join(built.dir, exe), "github.com/evotune/evotune/cmd/evotune").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("building evotune: %v\n%s", built.err, built.out)
	}
	return built.dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// smallConfig is a problem of milliseconds: the nneonneo set (bounded
// shape parameters, a held weight), games cut at 60 moves.
const smallConfig = `features: nneonneo
search: {algorithm: nneonneo, depth: 3}
fitness: {games: 4, max_moves: 60}
`

// TestAgainstObjective runs each script, each way, against a real evotune
// objective that it starts itself (--run): it must finish with exit
// status 0 (every line it sent was answered without an error, its final
// recommendation included), say what it did, and, for a careful run
// without a budget, end with the held-out ratio.
func TestAgainstObjective(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "small.yaml")
	if err := os.WriteFile(cfg, []byte(smallConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		module string
		args   []string
		says   string
	}{
		{"", []string{"spsa.py", "--careful", "--iterations", "10"}, "spsa careful: 10 iterations, 40 game pairs (40 expected)"},
		{"", []string{"spsa.py", "--iterations", "10"}, "spsa: 10 iterations (10 expected)"},
		{"optuna", []string{"optuna_opt.py", "--careful", "--trials", "19", "--held-out", "8"}, "optuna careful: 19 trials, 2 generations, race of 2 on 8 games"},
		{"optuna", []string{"optuna_opt.py", "--sampler", "cmaes", "--trials", "10"}, "optuna cmaes: 10 trials"},
		{"optuna", []string{"optuna_opt.py", "--sampler", "tpe", "--trials", "10"}, "optuna tpe: 10 trials"},
		{"cma", []string{"pycma_opt.py", "--careful", "--generations", "3", "--held-out", "8"}, "pycma careful: race of 3 on 8 games"},
		{"cma", []string{"pycma_opt.py", "--generations", "3"}, "pycma: 3 generations"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			py := python(t, c.module)
			bin := evotune(t)
			run := filepath.Join(bin, "evotune") + " objective --config " + cfg + " --seed 3 --workers 1"
			cmd := exec.Command(py, append(c.args, "--run", run)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			if !strings.Contains(stderr.String(), c.says) {
				t.Errorf("stderr does not say %q:\n%s", c.says, stderr.String())
			}
			careful := c.args[1] == "--careful"
			if held := regexp.MustCompile(`held-out: tuned/start mean score \d+\.\d{3} \[\d+\.\d{3}, \d+\.\d{3}\] on 8 games`); careful && c.args[0] != "spsa.py" && !held.MatchString(stderr.String()) {
				t.Errorf("no held-out ratio:\n%s", stderr.String())
			}
		})
	}
}

// TestClientStrict: the shared client sends strict JSON (a NaN or an
// infinity stops it before it is sent) and reads evotune's error before the
// id, so that evotune's message is what the user sees; a count written as
// a float (8.0, what Python's arithmetic gives) plays as the whole number.
func TestClientStrict(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "small.yaml")
	if err := os.WriteFile(cfg, []byte(smallConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	py := python(t, "")
	run := filepath.Join(evotune(t), "evotune") + " objective --config " + cfg + " --seed 3 --workers 1"
	for _, c := range []struct {
		script, says string
		code         int
	}{
		{"print(obj.evaluate(obj.start, 8.0, 24.0)['games'])", "", 0},
		{"obj.evaluate(obj.start, 8.5, 0)", "evotune: line 1: games: 8.5: not a whole number: want a whole number from 1 to 100000 (write 8 or 9)\n", 1},
		{"obj.evaluate([float('nan')] * len(obj.start), 4, 0)", "a NaN or an infinity in the request, not sent: ", 1},
	} {
		cmd := exec.Command(py, "-c", "import sys, objective\nobj = objective.Objective.run(sys.argv[1])\n"+c.script+"\nobj.close()", run)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := cmd.ProcessState.ExitCode()
		if err != nil && code < 0 {
			t.Fatalf("%s: %v", c.script, err)
		}
		if code != c.code || !strings.HasPrefix(stderr.String(), c.says) || c.code == 0 && stdout.String() != "8\n" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d, stderr %q...", c.script, code, stdout.String(), stderr.String(), c.code, c.says)
		}
	}
}

// TestAsPeers runs a short tunebench of each script, each way, on both
// quick problems: every run ends at short mode's budget of 120 games, or
// within it by the peer's own end (a careful run after its race), judged
// at each grid line and at its final word.
func TestAsPeers(t *testing.T) {
	for _, c := range []struct {
		module string
		args   []string
	}{
		{"", []string{"spsa.py", "--careful"}},
		{"", []string{"spsa.py"}},
		{"optuna", []string{"optuna_opt.py", "--careful"}},
		{"optuna", []string{"optuna_opt.py", "--sampler", "cmaes"}},
		{"optuna", []string{"optuna_opt.py", "--sampler", "tpe"}},
		{"cma", []string{"pycma_opt.py", "--careful"}},
		{"cma", []string{"pycma_opt.py"}},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			peer := append([]string{python(t, c.module)}, c.args...)
			for _, name := range []string{"standard-3", "nneonneo-cap1"} {
				p, err := tunebench.Lookup(name)
				if err != nil {
					t.Fatal(err)
				}
				r, err := tunebench.RunPeer(context.Background(), p, tunebench.Options{
					Short: true, Seeds: []uint64{1}, Workers: 1, Full: true, Peer: peer, PeerStderr: os.Stderr,
				})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				for _, run := range r.Runs {
					ended := run.Stop == "budget" && run.Final.Games == 120 || run.Stop == "peer" && run.Final.Games <= 120
					if !ended || len(run.Points) < 2 || !(run.Final.Ratio > 0) {
						t.Errorf("%s, seed %d: stop %q, points %+v", name, run.Seed, run.Stop, run.Points)
					}
				}
			}
		})
	}
}

// recipe returns the code block of docs/objective.md that follows the
// paragraph starting with intro, and the output block after it.
func recipe(t *testing.T, intro string) (code, output string) {
	t.Helper()
	doc, err := os.ReadFile("../../docs/objective.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "\n"+intro)
	if !ok {
		t.Fatalf("docs/objective.md has no paragraph %q", intro)
	}
	blocks := regexp.MustCompile("(?s)```[a-z]*\n(.*?)```").FindAllStringSubmatch(rest, 2)
	if len(blocks) < 2 {
		t.Fatalf("docs/objective.md: no code and output blocks after %q", intro)
	}
	return blocks[0][1], blocks[1][1]
}

// TestDocRecipes: the recipes of docs/objective.md, copied into a file, run
// as printed against evotune on PATH and end with a held-out ratio; with
// the library versions the page names, their output is the page's.
func TestDocRecipes(t *testing.T) {
	for _, c := range []struct {
		module, intro, version, versionOf string
	}{
		{"optuna", "The Optuna recipe, whole", "3.1.0", "import optuna; print(optuna.__version__)"},
		{"cma", "The pycma recipe", "4.4.0", "import cma; print(cma.__version__)"},
	} {
		t.Run(c.module, func(t *testing.T) {
			if testing.Short() {
				t.Skip("a recipe plays some 2,500 games: not in -short mode")
			}
			py := python(t, c.module)
			bin := evotune(t)
			code, want := recipe(t, c.intro)
			file := filepath.Join(t.TempDir(), "recipe.py")
			if err := os.WriteFile(file, []byte(code), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(py, "-W", "ignore", file)
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			got := stdout.String()
			if !regexp.MustCompile(`\nheld-out ratio \d+\.\d{3} \(mean score \d+ against the start's \d+, 200 games\)\n$`).MatchString(got) {
				t.Errorf("the recipe does not end with a held-out ratio:\n%s", got)
			}
			v, _ := exec.Command(py, "-W", "ignore", "-c", c.versionOf).Output()
			if strings.TrimSpace(string(v)) == c.version && got != want {
				t.Errorf("output with %s %s:\n%s\nthe page shows:\n%s", c.module, c.version, got, want)
			}
		})
	}
}
