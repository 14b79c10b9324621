package objective

import (
	"bufio"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/evotune/evotune/tuner"
)

func testProblem(t *testing.T) *Problem {
	t.Helper()
	cfg := &tuner.Config{SetName: "standard", Seed: 3, Workers: 1, Fitness: tuner.FitnessConfig{Games: 2, MaxMoves: 20}}
	cfg.Resolve()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	p, err := New("test", cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// serve runs the server on the lines of in and returns its output lines,
// the first line left out.
func serve(t *testing.T, s *Server, in string) []map[string]any {
	t.Helper()
	var out strings.Builder
	if err := s.Serve(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("output line %q: %v", sc.Text(), err)
		}
		lines = append(lines, m)
	}
	return lines[1:]
}

func params(p *Problem) string {
	v := map[string]float64{}
	for _, q := range p.Params {
		v[q.Name] = q.Start
	}
	data, _ := json.Marshal(v)
	return string(data)
}

func TestLongLineIsAnError(t *testing.T) {
	p := testProblem(t)
	long := `{"id":1,"params":` + params(p) + `,"games":1,"first":0,"x":"` + strings.Repeat("a", maxLine) + `"}`
	got := serve(t, &Server{P: p}, long+"\n"+`{"id":2,"params":`+params(p)+`,"games":1,"first":0}`+"\n")
	if len(got) != 2 || !strings.Contains(got[0]["error"].(string), "longer than") || got[1]["games"] != 1.0 {
		t.Errorf("answers %v", got)
	}
}

func TestHooks(t *testing.T) {
	p := testProblem(t)
	var answered int
	var recommended [][]float64
	s := &Server{
		P: p,
		Admit: func(seeds []uint64) (string, error) {
			if answered >= 2 {
				return "enough", nil
			}
			return "", nil
		},
		Answered:  func(games int, _ time.Duration) bool { answered++; return answered == 1 },
		Recommend: func(v []float64, final bool) error { recommended = append(recommended, v); return nil },
	}
	req := `{"id":%d,"params":` + params(p) + `,"games":1,"first":0}`
	in := strings.Join([]string{
		strings.Replace(req, "%d", "1", 1),
		`{"recommend":` + params(p) + `}`,
		strings.Replace(req, "%d", "2", 1),
		strings.Replace(req, "%d", "3", 1),
		strings.Replace(req, "%d", "4", 1),
		`{"recommend":` + params(p) + `,"final":true}`,
	}, "\n") + "\n"
	got := serve(t, s, in)
	if len(got) != 6 || got[0]["recommend"] != true || got[1]["ok"] != true || got[2]["recommend"] != nil ||
		got[3]["stop"] != "enough" || got[4]["stop"] != "enough" || got[5]["ok"] != true {
		t.Errorf("answers %v", got)
	}
	if len(recommended) != 2 || len(recommended[0]) != len(p.Names) {
		t.Errorf("recommended %v", recommended)
	}
}
