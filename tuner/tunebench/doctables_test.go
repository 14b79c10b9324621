package tunebench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/evotune/evotune/internal/golden"
)

// docTables matches a generated block of the docs: the JSON files it is
// rendered from, named in its opening comment (after "tables --curves:"
// for curves of results not played at a cell), then the tables.
var docTables = regexp.MustCompile(`(?s)<!-- tables( --curves)?: ([^>]*?) -->\n(.*?)<!-- end tables -->\n`)

// docCharts is the directory of the pages' charts, as the pages name it
// (beside them in docs/).
const docCharts = "tunebench-curves"

// TestDocTables keeps the benchmark's tables in docs/ what
// evotune tunebench table --markdown --svg tunebench-curves [--curves]
// renders from the JSON committed in testdata/results, and the charts in
// docs/tunebench-curves what it draws: the pages hold generated figures,
// never typed ones, and no chart is left that no page shows.
// go test ./tuner/tunebench -run DocTables -update writes them.
func TestDocTables(t *testing.T) {
	pages := []string{"../../docs/tunebench.md", "../../docs/tunebench-tried.md", "../../docs/tunebench-tried-race.md"}
	chartDir := filepath.Join("..", "..", "docs", docCharts)
	charts := map[string][]byte{}
	blocks := 0
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		var failed bool
		out := docTables.ReplaceAllFunc(data, func(m []byte) []byte {
			sub := docTables.FindSubmatch(m)
			blocks++
			var results []Result
			for _, name := range strings.Fields(string(sub[2])) {
				raw, err := os.ReadFile(filepath.Join("testdata", "results", name))
				if err != nil {
					t.Errorf("%s: %v", page, err)
					failed = true
					return m
				}
				rs, err := ReadResults(raw)
				if err != nil {
					t.Errorf("%s: %s: %v", page, name, err)
					failed = true
					return m
				}
				results = append(results, rs...)
			}
			var buf bytes.Buffer
			o := TableOptions{Markdown: true, Curves: len(sub[1]) > 0, ChartDir: docCharts, Chart: func(name string, svg []byte) error {
				if old, ok := charts[name]; ok && !bytes.Equal(old, svg) {
					return fmt.Errorf("two tables draw the chart %s differently", name)
				}
				charts[name] = svg
				return nil
			}}
			if err := WriteTables(&buf, results, o); err != nil {
				t.Errorf("%s: %s: %v", page, sub[2], err)
				failed = true
				return m
			}
			if !bytes.Equal(buf.Bytes(), sub[3]) && !golden.Update() {
				t.Errorf("%s: the tables of %s differ from their rendering (go test ./tuner/tunebench -run DocTables -update rewrites them)", page, sub[2])
			}
			return []byte("<!-- tables" + string(sub[1]) + ": " + string(sub[2]) + " -->\n" + buf.String() + "<!-- end tables -->\n")
		})
		if golden.Update() && !failed && !bytes.Equal(out, data) {
			if err := os.WriteFile(page, out, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if blocks == 0 {
		t.Fatal("no generated tables found in docs/tunebench*.md")
	}
	checkCharts(t, chartDir, charts)
}

// checkCharts compares the charts drawn with those in dir: each drawn is
// there, the same, and nothing else is (-update writes and removes them).
func checkCharts(t *testing.T, dir string, charts map[string][]byte) {
	t.Helper()
	if golden.Update() && len(charts) > 0 {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, svg := range charts {
		old, err := os.ReadFile(filepath.Join(dir, name))
		switch {
		case golden.Update() && !bytes.Equal(old, svg):
			if err := os.WriteFile(filepath.Join(dir, name), svg, 0o644); err != nil {
				t.Fatal(err)
			}
		case err != nil:
			t.Errorf("the chart %s: %v (go test ./tuner/tunebench -run DocTables -update draws it)", name, err)
		case !bytes.Equal(old, svg):
			t.Errorf("docs/%s/%s differs from its drawing (go test ./tuner/tunebench -run DocTables -update draws it again)", docCharts, name)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if _, ok := charts[e.Name()]; ok {
			continue
		}
		if golden.Update() && !t.Failed() {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("docs/%s/%s: no page's table draws it (go test ./tuner/tunebench -run DocTables -update removes it)", docCharts, e.Name())
	}
}

// TestResultsSummaries checks that every committed result's stored summary
// (reached, medians, worst figures) is what its runs give: a file made by
// joining the outputs of two processes must carry the figures of all its
// runs, not those of one half, since a reader of the JSON sees them before
// tunebench table computes them again.
func TestResultsSummaries(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "results", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no committed results (%v)", err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var stored struct {
			Problems []Result `json:"problems"`
		}
		if err := json.Unmarshal(raw, &stored); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		rs, err := ReadResults(raw)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(stored.Problems) != len(rs) {
			continue // an output of the version that named one problem at the top
		}
		for i, r := range rs {
			s := stored.Problems[i]
			if s.Reached != r.Reached || s.MedianFinal != r.MedianFinal || s.WorstFinal != r.WorstFinal ||
				s.WorstDrop != r.WorstDrop || !samePtr(s.MedianCPU, r.MedianCPU) || !samePtr(s.MedianGames, r.MedianGames) {
				t.Errorf("%s: %s, %s: stored summary (reached %d, median x%.3f, worst x%.3f, drop %.3f) is not its %d runs' (reached %d, median x%.3f, worst x%.3f, drop %.3f)",
					f, r.Problem, r.Name(), s.Reached, s.MedianFinal, s.WorstFinal, s.WorstDrop, len(r.Runs), r.Reached, r.MedianFinal, r.WorstFinal, r.WorstDrop)
			}
		}
	}
}

// samePtr reports whether two optional figures are both absent or equal.
func samePtr(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}
