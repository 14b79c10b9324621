package tuner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRuleInDocs: docs/config.md gives the rule of a run with the default
// settings in the words the outputs use, so that a change of the rule
// (and of RecommendationRule with it) cannot leave the manual behind.
func TestRuleInDocs(t *testing.T) {
	cfg, err := ReadConfig([]byte("name: defaults\n"), "defaults.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, long := RecommendationRule(cfg)
	data, err := os.ReadFile(filepath.Join("..", "docs", "config.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The paragraph is quoted and wrapped in the page.
	var words []string
	for _, l := range strings.Split(string(data), "\n") {
		words = append(words, strings.Fields(strings.TrimPrefix(l, ">"))...)
	}
	if !strings.Contains(strings.Join(words, " "), long) {
		t.Errorf("docs/config.md does not give the rule as the outputs do:\n%s", long)
	}
}

// TestStoryRunWithoutStages: a run without stages names no stage, and its
// story follows it from the start to the end: validated, then not, then
// validated and finished, each value's start noted, nothing held under a
// search that adds move scores.
func TestStoryRunWithoutStages(t *testing.T) {
	cfg := smallConfig(t)
	dir := t.TempDir()
	tu := runUntil(t, dir, cfg, 3, nil)
	st := tu.Story()
	if st.Moment != MomentStage || st.Validated() || st.Last == nil || st.Last != tu.Recommended() {
		t.Fatalf("after generation 3 of 5: %+v, want the stage's average, not validated, and the start last validated", st)
	}
	for _, want := range []string{"run in progress: 3 of 5 generations done", "were the run to end now, the start"} {
		if !strings.Contains(strings.Join(st.Lines(), "\n"), want) {
			t.Errorf("story %q lacks %q", st.Lines(), want)
		}
	}
	if strings.Contains(strings.Join(st.Lines(), "\n"), "stage") || st.Held != "" {
		t.Errorf("a run without stages, which holds nothing: %q", st.Lines())
	}
	if got := st.ValueNote(2, strconv64); got != "start 270" {
		t.Errorf("note on empty %q, want its start", got)
	}
	end := runUntil(t, t.TempDir(), cfg, 0, nil).Story()
	if end.Moment != MomentEnd || !end.Validated() || end.Next != "" || !strings.HasPrefix(end.Status, "validated; run finished after 5 of 5 generations") {
		t.Errorf("at the end: %+v", end)
	}
}
