package tuner

import (
	"fmt"
	"strings"
)

// The rule, as the outputs and docs/config.md tell it: the story's other
// half (story.go), apart so that each file says one thing.

// RecommendationRule says how a run of cfg chooses what it recommends:
// short after "recommending" in tune's config line, long as the report and
// docs/config.md give it.
func RecommendationRule(cfg *Config) (short, long string) {
	v := cfg.Validation
	rec := "its last mean"
	if v.Average > 1 {
		rec = fmt.Sprintf("the average of its last means (up to %d, half of its generations at most)", v.Average)
	}
	switch {
	case v.Select == 0:
		short = rec
	case v.Average > 1:
		short = fmt.Sprintf("the winner of a race on up to %d games each of %s, its last mean and its start", v.Select, rec)
	default:
		short = fmt.Sprintf("the winner of a race on up to %d games each of its last mean and its start", v.Select)
	}
	finalists := ""
	if v.Select > 0 && v.Finalists > 0 {
		short += fmt.Sprintf(", with its last %d means %s", v.Finalists, v.FinalistSpacing())
		finalists = fmt.Sprintf(", its last %d means kept %s", v.Finalists, v.FinalistSpacing())
	}
	if v.Select > 0 && v.Model {
		model := fmt.Sprintf("the point of a quadratic fitted to the candidates of its last half of generations (%d at least)", modelMinWindow)
		short += ", with " + model
		finalists += ", " + model
	}
	handed := "the average of its last means"
	if v.Average <= 1 {
		handed = "its latest distribution mean"
	}
	before := fmt.Sprintf(" Before that, an export hands over the stage's start (the run's start once it is measured, or the previous stage's winner) until the stage's first generation ends, and then %s, not yet validated.", handed)
	if v.Select == 0 {
		long = fmt.Sprintf("At the end of each stage (a run without stages has one), %s is validated on %d held-out games, without a race: what the run recommends, and where the next stage starts.", strings.Replace(rec, "its", "the stage's", 1), v.Games)
		return short, long + before
	}
	entrants := "its start" + finalists + ", its latest mean and " + rec
	if v.Average <= 1 {
		entrants = "its start" + finalists + " and its latest mean"
	}
	long = fmt.Sprintf("At the end of each stage (a run without stages has one), %s race on up to %d games each, the same seeds for all, seeds no tuning or validation game plays, in %d blocks. From the second block on, an entrant that the leader beats (one-sided paired t test at %g%%) stops. The best that played to the end wins and is validated on %d held-out games, which choose nothing: what the run recommends, and where the next stage starts.",
		entrants, v.Select, raceBlocks, 100*raceLevel, v.Games)
	return short, long + before
}
