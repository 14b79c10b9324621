package optimizers_test

import (
	"context"
	"os"
	"os/exec"
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
		if module == "" || exec.Command(path, "-c", "import "+module).Run() == nil {
			return path
		}
	}
	if len(found) == 0 {
		t.Skip("no python3: the Python optimizers are not tested")
	}
	t.Skipf("no python3 with %s (tried %v): that optimizer is not tested", module, found)
	return ""
}

// runPeer runs a short tunebench of the peer on both quick problems and
// checks that every run ends as a short run does: stopped at short mode's
// budget of 120 games, judged at each grid line and at its final word.
func runPeer(t *testing.T, peer ...string) {
	t.Helper()
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
			if run.Stop != "budget" || len(run.Points) < 2 || run.Final.Games != 120 || !(run.Final.Ratio > 0) {
				t.Errorf("%s, seed %d: stop %q, points %+v", name, run.Seed, run.Stop, run.Points)
			}
		}
	}
}

func TestSPSA(t *testing.T) { runPeer(t, python(t, ""), "spsa.py") }

func TestOptunaCmaEs(t *testing.T) {
	runPeer(t, python(t, "optuna"), "optuna_opt.py", "--sampler", "cmaes")
}

func TestOptunaTPE(t *testing.T) {
	runPeer(t, python(t, "optuna"), "optuna_opt.py", "--sampler", "tpe")
}

func TestPycma(t *testing.T) { runPeer(t, python(t, "cma"), "pycma_opt.py") }
