package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evotune/evotune/tuner"
	"github.com/evotune/evotune/tuner/report"
)

// reportCLI runs "evotune report ARGS..." in-process.
func reportCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(context.Background(), append([]string{"report"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestReport(t *testing.T) {
	cfg, err := tuner.ReadConfig([]byte("name: r\ngenerations: 2\noptimizer: {population: 4}\nsearch: {depth: 1}\nfitness: {games: 2}\nvalidation: {games: 2}\n"), "r.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	r, err := tuner.Create(cfg, dir, tuner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Run(context.Background())
	r.Close()
	if err != nil {
		t.Fatal(err)
	}

	code, out, errs := reportCLI(dir)
	want := filepath.Join(dir, report.DefaultFile)
	if code != 0 || errs != "" || !strings.HasPrefix(out, "wrote "+want+": generation 2, finished") {
		t.Errorf("report: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if _, err := os.Stat(want); err != nil {
		t.Error(err)
	}
	other := filepath.Join(t.TempDir(), "page.html")
	if code, _, errs := reportCLI(dir, "-o", other); code != 0 {
		t.Errorf("report -o: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(other); err != nil {
		t.Error(err)
	}
}

func TestReportNotARun(t *testing.T) {
	empty := t.TempDir()
	for _, args := range [][]string{{empty}, {filepath.Join(empty, "missing")}, {}, {empty, empty}} {
		code, out, errs := reportCLI(args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "evotune report: ") {
			t.Errorf("report %q: exit %d, stdout %q, stderr %q; want one line, exit 2", args, code, out, errs)
		}
	}
	if entries, _ := os.ReadDir(empty); len(entries) != 0 {
		t.Errorf("report wrote into a directory that is not a run: %v", entries)
	}
}
