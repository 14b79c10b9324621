package ports_test

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

// boardRE reads what the port prints for a --board: features, the value
// Σ w·f, and for nneonneo the float32 value.
var boardRE = regexp.MustCompile(`(?m)^board +0x([0-9a-f]{16}) .*\n  features  (.*)\n  value     (\S+)\n(?:  float32   (\S+)\n)?`)

// TestPortBoards is the differential test of the port against package
// eval on random boards: the features, the value Σ w·f and, for nneonneo,
// the value in the program's float32 arithmetic must be equal bit for bit,
// under the weights and parameters of the exported files, of random ones,
// and of parameters whose powers Python's own ** rounds the wrong way
// (8^2.6267283 and 15^1.6767299: the port computes them correctly rounded,
// as evotune does), with a weight written 1e+06, a float without a dot.
// Every file's checks must pass too.
func TestPortBoards(t *testing.T) {
	portCmd(t)
	standard, nneonneo, _ := exported(t)
	rng := rand.New(rand.NewPCG(54, 6))
	nn, _ := eval.Set("nneonneo")
	std, _ := eval.Set("standard")
	files := []string{standard, nneonneo,
		newFile(t, nn, []float64{1e6, 270, 700, 47, 11}, []float64{1.6767299175262451, 2.6267282962799072})}
	for range 6 {
		w := []float64{4e5 * rng.Float64(), 270, 1500 * rng.Float64(), 100 * rng.Float64(), 40 * rng.Float64()}
		files = append(files, newFile(t, nn, w, []float64{1 + 5*rng.Float64(), 1 + 5*rng.Float64()}))
	}
	for range 2 {
		w := []float64{100 * rng.Float64(), 40 * rng.Float64(), 270, 200 * rng.Float64(), 150 * rng.Float64()}
		files = append(files, newFile(t, std, w, nil))
	}
	boards := randomBoards(rng, 300)
	args := make([]string, 0, 1+2*len(boards))
	for _, b := range boards {
		args = append(args, "--board", b.Hex())
	}

	for _, path := range files {
		wf, err := eval.ReadWeightsFile(path)
		if err != nil {
			t.Fatal(err)
		}
		set, _ := wf.Set()
		ev, err := wf.Compile()
		if err != nil {
			t.Fatal(err)
		}
		r := runPort(t, append([]string{path}, args...)...)
		if r.code != 0 {
			t.Errorf("%s %v %v: exit %d\n%s%s", set.Name, wf.Weights, wf.Params, r.code, r.stdout, r.stderr)
			continue
		}
		got := boardRE.FindAllStringSubmatch(r.stdout, -1)
		if len(got) != len(boards) {
			t.Fatalf("%d boards in the output, want %d:\n%s", len(got), len(boards), r.stdout)
		}
		bad := 0
		for i, b := range boards {
			if err := sameBoard(got[i], b, wf, set, ev); err != nil && bad < 5 {
				bad++
				t.Errorf("%s %v %v, board %s (%s): %v", set.Name, wf.Weights, wf.Params, b.Hex(), b, err)
			}
		}
	}
}

// sameBoard compares what the port printed for board b (a match of boardRE)
// with package eval's features, value and evaluator.
func sameBoard(m []string, b engine.Board, wf *eval.WeightsFile, set *eval.FeatureSet, ev engine.Evaluator) error {
	if m[1] != b.Hex()[2:] {
		return fmt.Errorf("the port printed board 0x%s", m[1])
	}
	want := set.FeatureVector(b, wf.Params, nil)
	pairs := strings.Split(m[2], ", ")
	if len(pairs) != len(want) {
		return fmt.Errorf("features %q, want %d", m[2], len(want))
	}
	for j, p := range pairs {
		name, text, _ := strings.Cut(p, " ")
		x, err := strconv.ParseFloat(text, 64)
		if name != set.Features[j].Name || err != nil || x != want[j] {
			return fmt.Errorf("feature %q, want %s %v", p, set.Features[j].Name, want[j])
		}
	}
	if v, err := strconv.ParseFloat(m[3], 64); err != nil || v != eval.Value(wf.Weights, want) {
		return fmt.Errorf("value %s, want %v", m[3], eval.Value(wf.Weights, want))
	}
	if set.Name != "nneonneo" {
		return nil
	}
	if v, err := strconv.ParseFloat(m[4], 64); err != nil || v != ev.Evaluate(b) {
		return fmt.Errorf("float32 value %q, want %v", m[4], ev.Evaluate(b))
	}
	return nil
}

// newFile writes a weights file of set s with the weights w and
// parameters p (nil: the defaults) and returns its path.
func newFile(t *testing.T, s *eval.FeatureSet, w, p []float64) string {
	t.Helper()
	wf, err := eval.NewWeightsFile(s, w, p)
	if err != nil {
		t.Fatal(err)
	}
	data, err := wf.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, s.Name+".yaml", string(data))
}

// randomBoards returns n boards with every kind of line: a third of the
// cells empty, the others of any rank, and every tenth board full.
func randomBoards(rng *rand.Rand, n int) []engine.Board {
	out := make([]engine.Board, n)
	for i := range out {
		var b engine.Board
		for r := range 4 {
			for c := range 4 {
				if i%10 == 0 || rng.IntN(3) > 0 {
					b = b.SetCell(r, c, 1+rng.IntN(15))
				}
			}
		}
		out[i] = b
	}
	return out
}
