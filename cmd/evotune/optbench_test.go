package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func keys(m map[string]json.RawMessage) []string {
	var k []string
	for key := range m {
		k = append(k, key)
	}
	slices.Sort(k)
	return k
}

// TestOptbenchJSON checks the documented JSON shape, exactly.
func TestOptbenchJSON(t *testing.T) {
	args := []string{"--optimizer", "cmaes", "--function", "sphere", "--dim", "5", "--runs", "3", "--seed", "4", "--json"}
	code, out, errs := runCLI(t, append([]string{"optbench"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &top); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	want := []string{"dim", "function", "median_evaluations", "optimizer", "runs", "successes", "target"}
	if got := keys(top); !slices.Equal(got, want) {
		t.Fatalf("keys %v, want %v", got, want)
	}
	var runs []map[string]json.RawMessage
	if err := json.Unmarshal(top["runs"], &runs); err != nil || len(runs) != 3 {
		t.Fatalf("runs: %v, %s", err, top["runs"])
	}
	for _, r := range runs {
		if got := keys(r); !slices.Equal(got, []string{"best", "evaluations", "seed", "success"}) {
			t.Fatalf("run keys %v", got)
		}
	}
	var res struct {
		Optimizer, Function string
		Dim                 int
		Target              float64
		Runs                []struct {
			Seed        uint64
			Evaluations int
			Best        float64
			Success     bool
		}
		Successes         int
		MedianEvaluations *float64 `json:"median_evaluations"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Optimizer != "cmaes" || res.Function != "sphere" || res.Dim != 5 || res.Target != 1e-8 || res.Successes != 3 {
		t.Errorf("unexpected result %+v", res)
	}
	if res.MedianEvaluations == nil || *res.MedianEvaluations < 100 || *res.MedianEvaluations > 2000 {
		t.Errorf("median evaluations %v", res.MedianEvaluations)
	}
	for _, r := range res.Runs {
		if !r.Success || r.Best >= 1e-8 || r.Evaluations <= 0 {
			t.Errorf("run %+v", r)
		}
	}
	if _, again, _ := runCLI(t, append([]string{"optbench"}, args...)...); again != out {
		t.Error("the same command gave different output")
	}
}

func TestOptbenchFailedRuns(t *testing.T) {
	code, out, errs := runCLI(t, "optbench", "--optimizer", "cem", "--function", "rosenbrock", "--dim", "3",
		"--runs", "2", "--max-evals", "100", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, `"successes":0`) || !strings.Contains(out, `"median_evaluations":null`) {
		t.Errorf("output %s", out)
	}
}

func TestOptbenchText(t *testing.T) {
	code, out, errs := runCLI(t, "optbench", "--optimizer", "cmaes", "--function", "rastrigin", "--dim", "2",
		"--runs", "2", "--restarts", "ipop", "--active")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"cmaes on rastrigin, dim 2, target 1e-08, restarts ipop, active",
		"evaluations", "\nsuccesses 2/2, median evaluations "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if lines := strings.Count(out, "\n"); lines != 7 {
		t.Errorf("%d lines, want 7:\n%s", lines, out)
	}
}

func TestOptbenchBadUsage(t *testing.T) {
	base := []string{"--optimizer", "cmaes", "--function", "sphere", "--dim", "3"}
	with := func(extra ...string) []string { return append(slices.Clone(base), extra...) }
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--function", "sphere", "--dim", "3"}, "--optimizer"},
		{[]string{"--optimizer", "pso", "--function", "sphere", "--dim", "3"}, "--optimizer"},
		{[]string{"--optimizer", "cem", "--dim", "3"}, "--function"},
		{[]string{"--optimizer", "cem", "--function", "ackley", "--dim", "3"}, "--function"},
		{[]string{"--optimizer", "cem", "--function", "sphere"}, "--dim"},
		{[]string{"--optimizer", "cem", "--function", "rosenbrock", "--dim", "1"}, "--dim"},
		{with("--dim", "0"), "--dim"},
		{with("--dim", "x"), "-dim"},
		{with("--runs", "0"), "--runs"},
		{with("--target", "0"), "--target"},
		{with("--target", "NaN"), "--target"},
		{with("--restarts", "bipop"), "--restarts"},
		{with("--max-evals", "-5"), "--max-evals"},
		{with("--seed", "-1"), "-seed"},
		{[]string{"--optimizer", "cem", "--function", "sphere", "--dim", "3", "--active"}, "--active"},
		{with("extra"), "extra"},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(t, append([]string{"optbench"}, tt.args...)...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line naming %s", tt.args, code, out, errs, tt.want)
		}
	}
}

func TestOptbenchInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	code, _, errs := runCLIContext(ctx, "optbench", "--optimizer", "cmaes", "--function", "sphere", "--dim", "3")
	if code != exitInterrupted {
		t.Errorf("exit %d (%s), want %d", code, errs, exitInterrupted)
	}
}
