package report

import (
	"context"
	"strings"
	"testing"

	"github.com/evotune/evotune/tuner"
)

// TestConfigAsRun: the config section is the config the run goes on
// with: a resume's new limit, marked with config.yaml's value and what
// changed it, and the nneonneo search's reading of cutoff 0 and
// heuristic_only false; a value nothing changed has no comment.
func TestConfigAsRun(t *testing.T) {
	yml := strings.Replace(smallYAML, "search: {depth: 1}", "features: nneonneo\nsearch: {algorithm: nneonneo, depth: 3}", 1)
	dir := realRun(t, yml, 0)
	more := 6
	r, err := tuner.Resume(dir, tuner.ResumeOverrides{Generations: &more}, tuner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.Close()
	run, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	text, err := run.configText()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\ngenerations: 6 # config.yaml: 5; changed by a resume's --generations\n",
		"  cutoff: 0 # the nneonneo search: 0.0001, the program's\n",
		"  heuristic_only: false # the nneonneo search adds no move scores: heuristic only\n",
		"\nseed: 5\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("config section lacks %q:\n%s", want, text)
		}
	}
	if _, err := tuner.ParseConfig([]byte(text), "shown.yaml"); err != nil {
		t.Errorf("the config shown does not read back as a config: %v", err)
	}
}
