package tuner

import (
	"testing"
	"time"
)

// TestEstimateEnd plays made-up runs forward: the end a run's limits give
// at the costs the outlook says, which limit gives it, and what an
// unknown cost makes of it.
func TestEstimateEnd(t *testing.T) {
	s := time.Second
	one := func(gen, finish time.Duration) []StageOutlook {
		return []StageOutlook{{Generation: gen, Finish: finish}}
	}
	ladder := []StageOutlook{
		{Generations: 3, Generation: 10 * s, Finish: 5 * s},
		{Start: 8 * s, Generation: 20 * s, Finish: 7 * s},
	}
	for _, tc := range []struct {
		name string
		o    Outlook
		want Estimate
	}{
		{"generations", Outlook{Elapsed: 100 * s, Generations: 10, Generation: 4,
			Phase: Phase{Kind: PhaseGeneration, Generation: 5}, Left: 5 * s, Stages: one(10*s, 20*s)},
			// generation 5 ends at 105 s, 6-10 at 155 s, the race and the
			// winner's validation take 20 s.
			Estimate{End: 175 * s, By: "generations"}},
		{"duration first", Outlook{Elapsed: 100 * s, Generations: 10, Duration: 130 * s, Generation: 4,
			Phase: Phase{Kind: PhaseGeneration, Generation: 5}, Left: 5 * s, Stages: one(10*s, 20*s)},
			// The generation that passes 130 s ends at 135 s.
			Estimate{End: 155 * s, By: "duration"}},
		{"duration already spent", Outlook{Elapsed: 140 * s, Duration: 130 * s, Generation: 8,
			Phase: Phase{Kind: PhaseGeneration, Generation: 9}, Left: 3 * s, Stages: one(10*s, 20*s)},
			Estimate{End: 163 * s, By: "duration"}},
		{"validating the start", Outlook{Elapsed: 2 * s, Generations: 3,
			Phase: Phase{Kind: PhaseStart}, Left: 4 * s, Stages: one(10*s, 20*s)},
			Estimate{End: 56 * s, By: "generations"}},
		{"in the final race", Outlook{Elapsed: 200 * s, Generations: 10, Generation: 10,
			Phase: Phase{Kind: PhaseRace, Generation: 10}, Left: 30 * s, Stages: one(10*s, 20*s)},
			Estimate{End: 230 * s, By: "generations"}},
		{"in the race of the step that ends the run", Outlook{Elapsed: 200 * s, Generations: 10, Generation: 9,
			Phase: Phase{Kind: PhaseRace, Generation: 10}, Left: 30 * s, Stages: one(10*s, 20*s)},
			// (The tuner counts the generation done once its race is over.)
			Estimate{End: 230 * s, By: "generations"}},
		{"validating the winner after convergence", Outlook{Elapsed: 200 * s, Generations: 40, Generation: 11,
			Phase: Phase{Kind: PhaseWinner, Generation: 12}, Left: 10 * s, Stages: one(10*s, 20*s)},
			Estimate{End: 210 * s, By: "convergence"}},
		{"the last stage's budget", Outlook{Elapsed: 0, Generation: 0,
			Phase: Phase{Kind: PhaseGeneration, Generation: 1}, Left: 10 * s,
			Stages: []StageOutlook{{Duration: 25 * s, Generation: 10 * s, Finish: 20 * s}}},
			Estimate{End: 50 * s, By: "stage duration"}},
		{"a ladder", Outlook{Elapsed: 0, Duration: 200 * s,
			Phase: Phase{Kind: PhaseStart}, Left: 4 * s, Stages: ladder},
			// 3 generations to 34 s, the stage's race to 39 s, the start
			// measured again to 47 s, generations of 20 s to 207 s.
			Estimate{End: 214 * s, By: "duration"}},
		{"a ladder, in the first stage's race", Outlook{Elapsed: 34 * s, Duration: 200 * s, Generation: 3,
			Phase: Phase{Kind: PhaseRace, Generation: 3}, Left: 5 * s, Stages: ladder},
			Estimate{End: 214 * s, By: "duration"}},
		{"a ladder, the race after the run's duration", Outlook{Elapsed: 201 * s, Duration: 200 * s, Generation: 3,
			Phase: Phase{Kind: PhaseRace, Generation: 3}, Left: 5 * s, Stages: ladder},
			Estimate{End: 206 * s, By: "duration"}},
		{"a later stage's pace not known: to the run's duration", Outlook{Elapsed: 0, Duration: 200 * s,
			Phase: Phase{Kind: PhaseStart}, Left: 4 * s,
			Stages: []StageOutlook{ladder[0], {Start: -1, Generation: -1, Finish: -1}}},
			Estimate{End: 200 * s, By: "duration", AtLeast: true}},
		{"a later stage's pace not known: its generations at no cost", Outlook{Elapsed: 0, Generations: 10,
			Phase: Phase{Kind: PhaseStart}, Left: 4 * s,
			Stages: []StageOutlook{ladder[0], {Generation: -1, Finish: -1}}},
			Estimate{End: 39 * s, By: "generations", AtLeast: true}},
		{"the phase's cost not known yet", Outlook{Elapsed: 1 * s, Generations: 2,
			Phase: Phase{Kind: PhaseStart}, Left: -1, Stages: one(10*s, 20*s)},
			Estimate{End: 41 * s, By: "generations", AtLeast: true}},
		{"a stage ended by the run before it played", Outlook{Elapsed: 30 * s, Generations: 3, Generation: 3,
			Phase: Phase{Kind: PhaseRace, Generation: 3}, Left: 5 * s,
			Stages: []StageOutlook{{Generations: 3, Generation: 10 * s, Finish: 5 * s}, {Generation: 20 * s, Finish: 7 * s}}},
			Estimate{End: 35 * s, By: "generations"}},
		{"no limit", Outlook{Elapsed: 5 * s, Phase: Phase{Kind: PhaseGeneration, Generation: 1}, Left: s, Stages: one(10*s, 20*s)},
			Estimate{Open: true}},
		{"no limit and no pace", Outlook{Elapsed: 5 * s, Phase: Phase{Kind: PhaseGeneration, Generation: 1}, Left: -1, Stages: one(-1, -1)},
			Estimate{Open: true}},
		{"no stages", Outlook{Elapsed: 5 * s}, Estimate{Open: true}},
	} {
		if got := EstimateEnd(tc.o); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
