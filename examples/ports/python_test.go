package ports_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/tuner"
)

// python is the interpreter python3 runs, found once: a version manager's
// python3 may be a shell script that costs a second a start.
var python = sync.OnceValues(func() (string, error) {
	py, err := exec.LookPath("python3")
	if err != nil {
		return "", err
	}
	out, err := exec.Command(py, "-c", "import sys; print(sys.executable)").Output()
	if exe := strings.TrimSpace(string(out)); err == nil && exe != "" {
		return exe, nil
	}
	return py, nil
})

// portCmd returns the command that runs the Python port, or skips the test
// where python3 is missing.
func portCmd(t testing.TB) []string {
	t.Helper()
	py, err := python()
	if err != nil {
		t.Skip("python3 not found: the Python port is not tested")
	}
	return []string{py, "-B", filepath.Join("python", "evotune_weights.py")} // -B: no __pycache__ in the source tree
}

type portResult struct {
	code           int
	stdout, stderr string
}

// runPort runs the port with args to its exit, within a minute.
func runPort(t testing.TB, args ...string) portResult {
	t.Helper()
	cmd := portCmd(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, cmd[0], append(cmd[1:], args...)...)
	c.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	r := portResult{stdout: out.String(), stderr: errb.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("python3 evotune_weights.py %q: %v\n%s", args, err, r.stderr)
	}
	return r
}

// Runs of seconds: 2 or 3 generations of 4 candidates, 2 games each.
const (
	standardConfig = `name: port-standard
seed: 3
generations: 2
features: standard
optimizer: {method: cmaes, population: 4}
search: {algorithm: expectimax, depth: 1}
fitness: {games: 2}
validation: {games: 2, select: 0, average: 1}
workers: 1
`
	nneonneoConfig = `name: port-nneonneo
seed: 3
generations: 3
features: nneonneo
optimizer: {method: cmaes, population: 4}
search: {algorithm: nneonneo, depth: 3}
fitness: {games: 2}
validation: {games: 2, select: 0, average: 1}
workers: 1
`
)

// exportRun tunes config in a new run directory, stopped after generation
// stop (0: run to the end), and exports the run as evotune export DIR -o
// FILE does (cmd/evotune/export.go: the tuner's WeightsFile, marshalled).
// It returns the file's path.
func exportRun(t *testing.T, config string, stop int) string {
	t.Helper()
	cfg, err := tuner.ReadConfig([]byte(config), "port.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := tuner.Create(cfg, dir, tuner.Options{Events: tuner.Events{Generation: func(rec tuner.Record) {
		if rec.Generation == stop {
			cancel()
		}
	}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Run(ctx)
	r.Close()
	if stop == 0 && err != nil || stop > 0 && !errors.Is(err, context.Canceled) {
		t.Fatalf("run until generation %d: %v", stop, err)
	}
	tu, _, _, err := tuner.LoadCheckpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	wf, err := tu.WeightsFile()
	if err != nil {
		t.Fatal(err)
	}
	set, err := wf.Set()
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(wf.Weights) == fmt.Sprint(set.Defaults) {
		t.Fatalf("the run exported the defaults of %s, not tuned weights", set.Name)
	}
	data, err := wf.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, "exported.yaml", string(data))
}

// writeFile writes text to a new file named name and returns its path.
func writeFile(t testing.TB, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// exportedFiles holds the text of the files exported from runs of both
// sets, made by the first test that asks.
var exportedFiles struct {
	standard, nneonneo, nneonneoMidRun string
}

// exported writes the files exported from runs of both sets to new files
// and returns their paths: a standard run's, a nneonneo run's, and the
// nneonneo run's stopped after its first generation.
func exported(t *testing.T) (standard, nneonneo, nneonneoMidRun string) {
	t.Helper()
	e := &exportedFiles
	if e.standard == "" {
		nn, midRun := readFile(t, exportRun(t, nneonneoConfig, 0)), readFile(t, exportRun(t, nneonneoConfig, 1))
		e.standard, e.nneonneo, e.nneonneoMidRun = readFile(t, exportRun(t, standardConfig, 0)), nn, midRun
	}
	return writeFile(t, "standard.yaml", e.standard), writeFile(t, "nneonneo.yaml", e.nneonneo), writeFile(t, "nneonneo-gen1.yaml", e.nneonneoMidRun)
}

// passedRE reads the port's summary of the checks.
var passedRE = regexp.MustCompile(`(?m)^checks +(\d+) of (\d+) passed`)

// TestPortPasses runs the port on files exported from runs of both sets,
// one stopped mid-run, the weights files of configs/ and eval/testdata/, and
// a version 1 nneonneo file: evotune reads each, and the port must pass
// every check of each.
func TestPortPasses(t *testing.T) {
	portCmd(t)
	standard, nneonneo, midRun := exported(t)
	files := map[string]string{
		"a standard run":                     standard,
		"a nneonneo run":                     nneonneo,
		"a nneonneo run stopped mid-run":     midRun,
		"configs/nneonneo-cap2.weights.yaml": "../../configs/nneonneo-cap2.weights.yaml",
		"configs/nneonneo-cap3.weights.yaml": "../../configs/nneonneo-cap3.weights.yaml",
		"eval/testdata/standard_tuned.yaml":  "../../eval/testdata/standard_tuned.yaml",
		"eval/testdata/nneonneo_tuned.yaml":  "../../eval/testdata/nneonneo_tuned.yaml",
		"a version 1 nneonneo file":          v1File(t),
	}
	for name, path := range files {
		wf, err := eval.ReadWeightsFile(path)
		if err != nil {
			t.Fatalf("%s: evotune does not read it: %v", name, err)
		}
		r := runPort(t, path)
		m := passedRE.FindStringSubmatch(r.stdout)
		n := strconv.Itoa(len(wf.Checks))
		if r.code != 0 || r.stderr != "" || m == nil || m[1] != n || m[2] != n || strings.Count(r.stdout, " pass  0x") != len(wf.Checks) {
			t.Errorf("%s: exit %d, want 0 and %s checks passed; stdout:\n%s\nstderr:\n%s", name, r.code, n, r.stdout, r.stderr)
		}
		if !strings.Contains(r.stdout, "\nfeatures    "+wf.SetName+"\n") {
			t.Errorf("%s: the output does not name the set %s:\n%s", name, wf.SetName, r.stdout)
		}
	}
}

// v1File writes a version 1 nneonneo file: tuned weights, the default
// parameters, which a version 1 file cannot state.
func v1File(t *testing.T) string {
	t.Helper()
	set, _ := eval.Set("nneonneo")
	wf, err := eval.NewWeightsFile(set, []float64{187500.25, 301.5, 655.125, 39.75, 13.0625}, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := wf.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), "format: "+eval.FormatV2, "format: "+eval.FormatV1, 1)
	return writeFile(t, "v1.yaml", regexp.MustCompile(`(?m)^params: .*\n`).ReplaceAllString(text, ""))
}

// lineOf returns the 1-based number of the nth line of text that matches
// re (n from 0), and that line.
func lineOf(t *testing.T, text, re string, n int) (int, string) {
	t.Helper()
	rx := regexp.MustCompile(re)
	for i, l := range strings.Split(text, "\n") {
		if rx.MatchString(l) {
			if n == 0 {
				return i + 1, l
			}
			n--
		}
	}
	t.Fatalf("no line %d matching %s", n, re)
	return 0, ""
}

// replaceLine returns text with its line number no (1-based) replaced.
func replaceLine(text string, no int, line string) string {
	lines := strings.Split(text, "\n")
	lines[no-1] = line
	return strings.Join(lines, "\n")
}

// TestPortFails alters files exported from runs of both sets, a check's
// value, a feature of a check, a weight: evotune refuses each, and the port
// must report the check that fails, where, and exit 1.
func TestPortFails(t *testing.T) {
	portCmd(t)
	standard, nneonneo, _ := exported(t)
	for _, src := range []string{standard, nneonneo} {
		text := readFile(t, src)
		no, value := lineOf(t, text, `^    value: `, 2)
		x, _ := strconv.ParseFloat(strings.TrimPrefix(value, "    value: "), 64)
		fno, features := lineOf(t, text, `^    features: `, 3)
		empty := regexp.MustCompile(`empty: (\d+)`).FindStringSubmatch(features)
		n, _ := strconv.Atoi(empty[1])
		wno, weight := lineOf(t, text, `^  empty: `, 0)
		w, _ := strconv.ParseFloat(strings.TrimPrefix(weight, "  empty: "), 64)
		for _, c := range []struct {
			what, text, want string
		}{
			{"check 3's value times 1+1e-6", replaceLine(text, no, "    value: "+strconv.FormatFloat(x*(1+1e-6), 'g', -1, 64)),
				fmt.Sprintf(`:%d: checks\[2\]\.value: the file says `, no)},
			{"an empty cell more in check 4", replaceLine(text, fno, strings.Replace(features, empty[0], fmt.Sprintf("empty: %d", n+1), 1)),
				fmt.Sprintf(`:%d: checks\[3\]\.features\.empty: the file says %d, this port computes %d `, fno, n+1, n)},
			{"the weight of empty times 1.001", replaceLine(text, wno, "  empty: "+strconv.FormatFloat(w*1.001, 'g', -1, 64)), `:\d+: checks\[\d\]\.value: the file says `},
		} {
			path := writeFile(t, "altered.yaml", c.text)
			if _, err := eval.ReadWeightsFile(path); err == nil {
				t.Fatalf("%s: evotune reads the altered file", c.what)
			}
			r := runPort(t, path)
			m := passedRE.FindStringSubmatch(r.stdout)
			want := regexp.MustCompile(`(?m)^check \d +FAIL  0x[0-9a-f]{16}  ` + regexp.QuoteMeta(path) + c.want)
			if r.code != 1 || m == nil || m[1] == m[2] || !want.MatchString(r.stdout) {
				t.Errorf("%s (%s): exit %d, want 1 and a failed check matching %s; stdout:\n%s\nstderr:\n%s", c.what, src, r.code, want, r.stdout, r.stderr)
			}
		}
	}
}

// TestPortTolerance moves every check's value of files of both sets by
// k·tolerance, k just inside and just outside 1 and well on either side:
// the port must give the verdict evotune's reader gives.
func TestPortTolerance(t *testing.T) {
	portCmd(t)
	standard, nneonneo, _ := exported(t)
	for _, src := range []string{standard, nneonneo} {
		wf, err := eval.ReadWeightsFile(src)
		if err != nil {
			t.Fatal(err)
		}
		text := readFile(t, src)
		for _, k := range []float64{0.5, 0.99999, 1.00001, 2, -0.5, -0.99999, -1.00001, -2} {
			moved := text
			for i, c := range wf.Checks {
				scale := 1.0
				sum := 0.0
				for j, w := range wf.Weights {
					sum += math.Abs(w * c.Features[j])
				}
				scale = max(scale, sum)
				no, _ := lineOf(t, moved, `^    value: `, i)
				moved = replaceLine(moved, no, "    value: "+strconv.FormatFloat(c.Value+k*eval.CheckTolerance*scale, 'g', -1, 64))
			}
			path := writeFile(t, "moved.yaml", moved)
			_, err := eval.ReadWeightsFile(path)
			goPasses := err == nil
			if goPasses != (math.Abs(k) < 1) {
				t.Fatalf("k = %g: evotune's verdict is %v", k, err)
			}
			r := runPort(t, path)
			if (r.code == 0) != goPasses || r.code > 1 {
				t.Errorf("%s, values moved by %g tolerances: the port exits %d, evotune's reader says %v\n%s", src, k, r.code, err, r.stdout)
			}
		}
	}
}
