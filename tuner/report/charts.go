package report

import (
	"fmt"
	"math"
	"slices"
)

// A chart is what one picture shows, as data: the tests check these, the
// drawing (draw.go) only renders them.
type chart struct {
	ID     string // the anchor on the page
	Title  string
	XLabel string
	YLabel string
	LogY   bool
	Series []series
	// Caption is shown under the picture: how to read it.
	Caption string
	// Width and Height in points; 0 means the default.
	Width, Height float64
}

type kind int

const (
	line      kind = iota // a polyline through the points
	points                // markers, with error bars when Err is set
	reference             // a horizontal line at Y[0] across the chart
	markers               // vertical lines at the X values
)

// A series is one named set of points of a chart.
type series struct {
	Name string
	Kind kind
	X, Y []float64
	Err  []float64 // half-widths of error bars, for points
	// XErr are half-widths of horizontal bars, for points: the
	// generations an average spans; zeros draw none.
	XErr  []float64
	Shape shape
	Color int  // index into the palette
	Faint bool // drawn thin and dashed: context rather than the message
	// Band draws a line wide and translucent, under the lines it may
	// run along (the recommended figure along the start's line).
	Band bool
}

// A shape is the glyph of a points series.
type shape int

const (
	disc  shape = iota // filled: a measured point
	ring               // open: a point that lost, or a race's entrant
	cross              // an entrant stopped early
)

// charts returns the charts of the run, in page order. A run with no
// completed generation has none.
func (r *Run) charts() []chart {
	if len(r.History) == 0 {
		return nil
	}
	cs := []chart{r.fitnessChart(), r.sigmaChart(), r.weightsChart(), r.gamesChart()}
	if c, ok := r.noiseChart(); ok {
		cs = append(cs, c)
	}
	cs = append(cs, r.throughputChart())
	for _, name := range extraNames(r.History) {
		cs = append(cs, r.extraChart(name))
	}
	return cs
}

// metricLabel names the fitness metric with its unit, for an axis.
func metricLabel(m string) string {
	switch {
	case m == "mean_score":
		return "mean score (points)"
	case m == "median_score":
		return "median score (points)"
	case m == "mean_log_score":
		return "mean ln(1 + score)"
	case len(m) > 6 && m[:6] == "reach:":
		return "share of games reaching " + m[6:]
	}
	return m
}

// restartMarks returns the vertical lines at the generations where an IPOP
// restart happened, or nil.
func (r *Run) restartMarks() []series {
	var xs []float64
	prev := 0
	for _, g := range r.History {
		if g.Restarts > prev {
			xs = append(xs, float64(g.Generation))
		}
		prev = g.Restarts
	}
	if xs == nil {
		return nil
	}
	return []series{{Name: "IPOP restart", Kind: markers, X: xs, Color: 7, Faint: true}}
}

// stageMarks returns the vertical lines at the first generation of each
// stage after the first, or nil.
func (r *Run) stageMarks() []series {
	var xs []float64
	for i := 1; i < len(r.History); i++ {
		if g := r.History[i]; g.Stage > r.History[i-1].Stage {
			xs = append(xs, float64(g.Generation))
		}
	}
	if xs == nil {
		return nil
	}
	return []series{{Name: "next stage", Kind: markers, X: xs, Color: 5, Faint: true}}
}

// noiseChart shows noise handling: the games each candidate played and the
// tuning games of each generation (racing and re-evaluation included). ok
// is false for a run without noise handling.
func (r *Run) noiseChart() (chart, bool) {
	var xs, per, played []float64
	fixed := true
	for _, g := range r.History {
		if g.Noise != nil {
			fixed = fixed && g.Noise.Fixed
			xs = append(xs, float64(g.Generation))
			per = append(per, float64(g.Noise.Games))
			played = append(played, float64(g.Noise.Played)/float64(max(g.Lambda, 1)))
		}
	}
	if xs == nil {
		return chart{}, false
	}
	c := chart{
		ID:     "noise",
		Title:  "Games per candidate (noise handling)",
		XLabel: "generation",
		YLabel: "games",
		Height: 220,
		Series: []series{
			{Name: "games per candidate", Kind: line, X: xs, Y: per, Color: 0},
			{Name: "tuning games played / λ", Kind: line, X: xs, Y: played, Color: 1, Faint: true},
		},
		Caption: "Noise handling sets the games per candidate from how much the ranking moves when candidates are played again on fresh seeds: it grows while ranks are noise and shrinks while they are clear. Games played per candidate are below it when racing stopped beaten candidates early, above it by the re-evaluations.",
	}
	if fixed {
		// Racing without noise handling: the games are fitness.games, or
		// the stage's; only racing's stops change what is played.
		c.Title = "Games per candidate (racing)"
		c.Caption = "Every candidate that plays to the end plays the generation's games (fitness.games, or its stage's); games played per candidate are below it when racing stopped beaten candidates early."
	}
	c.Series = append(c.Series, r.stageMarks()...)
	return c, true
}

func (r *Run) fitnessChart() chart {
	m := r.Metric.String()
	c := chart{
		ID:     "fitness",
		Title:  "Fitness per generation",
		XLabel: "generation",
		YLabel: metricLabel(m),
	}
	n := len(r.History)
	gen := make([]float64, n)
	best, med, mean := make([]float64, n), make([]float64, n), make([]float64, n)
	for i, g := range r.History {
		gen[i] = float64(g.Generation)
		best[i], med[i], mean[i] = g.Best, g.Median, g.Mean
	}
	c.Series = []series{
		{Name: "best candidate", Kind: line, X: gen, Y: best, Color: 7, Faint: true},
		{Name: "median candidate", Kind: line, X: gen, Y: med, Color: 0},
		{Name: "mean of candidates", Kind: line, X: gen, Y: mean, Color: 2},
	}
	c.Series = append(c.Series, r.storySeries()...)
	if s := r.State.Start; s != nil {
		y, _ := r.figure(s.Fitness, s.Mean, s.CI95)
		c.Series = append(c.Series, series{Name: "start weights, validated", Kind: reference, X: []float64{0}, Y: []float64{y}, Color: 1})
	}
	c.Series = append(c.Series, r.restartMarks()...)
	c.Series = append(c.Series, r.stageMarks()...)
	c.Caption = r.fitnessCaption()
	return c
}

// fitnessCaption says how to read the fitness chart, for the kind of
// history it draws.
func (r *Run) fitnessCaption() string {
	ds := r.decisions()
	s := "Each candidate plays the generation's common games; best, median and mean are over the generation's candidates: the best is the luckiest, trust the validated points instead. "
	switch {
	case legacy(ds):
		s += fmt.Sprintf("The points with error bars are the distribution mean measured on %d held-out validation games every %d generations", r.Config.Validation.Games, r.Config.Validation.Every)
		if anyRace(ds) {
			s += ", filled where the mean then won its race against the one recommended before, open where it lost; dashed vertical lines mark fallbacks, where the search went back to the recommended mean"
		}
		s += ". "
		if countFinal(ds) > 0 {
			s += "The rows with entrants (rings, crosses) are final races, run since the run was continued by an evotune that has them. "
		}
	case r.Config.Validation.Select == 0:
		s += fmt.Sprintf("At the end of each stage the average of its last means is measured on %d held-out validation games, without a race: the point with error bars (spanning the generations it averages). ", r.Config.Validation.Games)
	default:
		finalists := ""
		if r.Config.Validation.Finalists > 0 {
			finalists = "finalists, "
		}
		spans := "an average spans the generations it averages"
		if r.Config.Validation.Model {
			finalists += "the point of a quadratic fitted to its candidates (the model's), "
			spans = "an average or the model's point spans the generations it draws on"
		}
		s += fmt.Sprintf("At the end of each stage its start, %slatest mean and the average of its last means race on games of their own: rings are each entrant's fitness on the race's games ("+spans+"), crosses the entrants stopped early as clearly behind the leader. The winner alone is then measured on %d held-out validation games: the point with error bars. ", finalists, r.Config.Validation.Games)
	}
	until := "a stage's end chooses another point"
	if legacy(ds) {
		until = "a validation chooses another point"
	}
	s += "The grey band is the figure of the weights last validated at each generation: the start's until " + until + ". The table under the chart tells each decision."
	if r.pending() {
		s += " While a stage goes on, what evotune export writes is not yet validated: Recommended " + r.vectorWord() + "s says what it is."
	}
	if st := r.State.Start; st != nil && len(r.History) > 0 && !r.startHolds(r.History[0].Stage) {
		s += fmt.Sprintf(" The validation search changed with the stages: the start was measured again with stage %d's, and the dashed line is that figure; ", st.Stage+1)
		if _, ok := r.startFigure(r.History[0].Stage); ok {
			s += "the band's first step is the start's figure with the first stage's, as the history's first race recorded it."
		} else {
			s += "this run's history does not keep the start's earlier figure, so the band begins at the first race."
		}
		s += " Figures of different validation searches do not compare."
	}
	if r.Metric.String() != "mean_score" {
		s += " Validation keeps a confidence interval for the mean score only, so with this metric the points have no error bars."
	}
	return s
}

func (r *Run) sigmaChart() chart {
	c := chart{
		ID:     "sigma",
		Title:  "Step size σ and axis ratio",
		XLabel: "generation",
		YLabel: "value (log scale)",
		LogY:   true,
	}
	var sx, sy, ax, ay []float64
	for _, g := range r.History {
		// A log scale cannot show 0; a step size of 0 cannot happen in a
		// valid run, so a point that lacks one is left out, not faked.
		if g.Sigma > 0 && !math.IsInf(g.Sigma, 0) {
			sx, sy = append(sx, float64(g.Generation)), append(sy, g.Sigma)
		}
		if a := g.AxisRatio; a != nil && *a > 0 && !math.IsInf(*a, 0) {
			ax, ay = append(ax, float64(g.Generation)), append(ay, *a)
		}
	}
	c.Series = []series{{Name: "σ, normalised coordinates", Kind: line, X: sx, Y: sy, Color: 0}}
	if ax != nil {
		c.Series = append(c.Series, series{Name: "axis ratio √cond(C)", Kind: line, X: ax, Y: ay, Color: 4})
	}
	c.Series = append(c.Series, r.restartMarks()...)
	c.Series = append(c.Series, r.stageMarks()...)
	c.Series = append(c.Series, r.fallbackMarks()...)
	c.Caption = "σ is the search distribution's step size in normalised coordinates (each weight divided by the magnitude of its start value): 0.1 means candidates differ from the mean by about 10% of each weight. " +
		"It should shrink slowly as the run converges. The axis ratio (absent from histories that do not record it) is the ratio of the longest to the shortest axis of the search distribution: a large one means some weight combinations matter far more than others."
	if len(c.Series) > 0 && c.Series[len(c.Series)-1].Name == "fallback" {
		c.Caption += " A fallback (an evotune before the final race) moved the mean back to the recommended one and halved σ."
	}
	return c
}

// weightScale returns the unit a weight's change is measured in: the
// magnitude of its start value, or 1 when it starts at 0 — the optimizer's
// own normalisation, so the chart and σ share a unit.
func weightScale(start float64) float64 {
	if start == 0 {
		return 1
	}
	return math.Abs(start)
}

func (r *Run) weightsChart() chart {
	c := chart{
		ID:     "weights",
		Title:  "Distribution mean, each weight relative to its start",
		XLabel: "generation",
		YLabel: "(w − w₀) / |w₀|",
		Width:  510,
		Height: 320,
	}
	zeroStart := false
	for i, name := range r.weightNames() {
		w0, ok := r.startWeight(name)
		scale := r.scale(name, w0)
		var xs, ys []float64
		for _, g := range r.History {
			if w, ok2 := g.Weights[name]; ok2 {
				if !ok {
					// Not in the config: measured from its first value.
					w0, scale, ok = w, r.scale(name, w), true
				}
				xs, ys = append(xs, float64(g.Generation)), append(ys, (w-w0)/scale)
			}
		}
		label := name
		if w0 == 0 {
			label += " (start 0: raw change)"
			zeroStart = true
		}
		c.Series = append(c.Series, series{Name: label, Kind: line, X: xs, Y: ys, Color: i})
	}
	c.Series = append(c.Series, r.restartMarks()...)
	c.Series = append(c.Series, r.stageMarks()...)
	if r.player() != nil {
		c.Title = "Distribution mean, each parameter relative to its start"
		c.YLabel = "(p − p₀) / range"
		c.Caption = "Each line is one parameter of the player, as its change from the start in units of its range (its bounds): 0 is unchanged, 0.1 is a tenth of the range higher. " +
			"This is the optimizer's own coordinate system, the one σ is measured in. A line that keeps drifting has not converged; a flat one near 0 is a parameter the fitness is not sensitive to, or one that started right."
		return c
	}
	c.Caption = "Each line is one weight of the distribution mean, as its change from the start in units of its start value's magnitude: 0 is unchanged, 0.5 is 50% larger, −1 is zero. " +
		"This is the optimizer's own coordinate system, the one σ is measured in. A line that keeps drifting has not converged; a flat one near 0 is a weight the fitness is not sensitive to, or one that started right."
	if zeroStart {
		c.Caption += " A weight that starts at 0 has no relative change; its line is its raw value (the optimizer's unit for it is 1)."
	}
	return c
}

func (r *Run) gamesChart() chart {
	c := chart{
		ID:     "games",
		Title:  "Games per generation",
		XLabel: "generation",
		YLabel: "games",
		Height: 220,
	}
	xs, ys := make([]float64, len(r.History)), make([]float64, len(r.History))
	prev := int64(0)
	for i, g := range r.History {
		xs[i], ys[i] = float64(g.Generation), float64(g.Games-prev)
		prev = g.Games
	}
	c.Series = []series{{Name: "games (tuning, races, validation)", Kind: line, X: xs, Y: ys, Color: 0}}
	per := fmt.Sprintf("%d games", r.Config.Fitness.Games)
	if r.Config.Noise.Handling || len(r.Config.Stages) > 0 {
		per = "the games per candidate (set by noise handling or by the stage)"
	}
	c.Caption = "Tuning plays λ candidates × " + per + " each generation, fewer where racing stopped candidates early, more where noise handling played some again; "
	if legacy(r.decisions()) {
		c.Caption += fmt.Sprintf("generations that validate add %d games and their race's (the first also holds the start weights' validation).", r.Config.Validation.Games)
	} else {
		c.Caption += fmt.Sprintf("a generation that ends a stage adds its final race's games and the winner's validation, %d games (none where the start won: it has its figure); the first also holds the start weights' validation.", r.Config.Validation.Games)
	}
	return c
}

func (r *Run) throughputChart() chart {
	c := chart{
		ID:     "throughput",
		Title:  "Games per second",
		XLabel: "generation",
		YLabel: "games/s (wall clock)",
		Height: 220,
	}
	var xs, ys []float64
	prevGames, prevT := int64(0), 0.0
	for _, g := range r.History {
		// A generation with no measurable time (a clock that did not move,
		// or a history from before elapsed_s) has no rate.
		if dt := g.Elapsed - prevT; dt > 0 {
			xs, ys = append(xs, float64(g.Generation)), append(ys, float64(g.Games-prevGames)/dt)
		}
		prevGames, prevT = g.Games, g.Elapsed
	}
	c.Series = []series{{Name: "games/s", Kind: line, X: xs, Y: ys, Color: 2}}
	c.Caption = "Games finished per second of wall-clock time, from elapsed_s. A drop means the machine was busy with something else, or the games got longer (better weights survive longer)."
	return c
}

func (r *Run) extraChart(name string) chart {
	c := chart{
		ID:     "extra-" + name,
		Title:  name,
		XLabel: "generation",
		YLabel: name,
		Height: 220,
	}
	var xs, ys []float64
	for _, g := range r.History {
		if x, ok := g.Extra[name]; ok && !math.IsNaN(x) && !math.IsInf(x, 0) {
			xs, ys = append(xs, float64(g.Generation)), append(ys, x)
		}
	}
	c.Series = []series{{Name: name, Kind: line, X: xs, Y: ys, Color: 5}}
	c.Caption = fmt.Sprintf("The history field %q, drawn as recorded: this build of the report has no dedicated chart for it.", name)
	return c
}

// yRange returns the range the data of c spans, error bars included, and
// whether there is any.
func (c *chart) yRange() (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for i, y := range s.Y {
			e := 0.0
			if s.Err != nil {
				e = s.Err[i]
			}
			lo, hi = min(lo, y-e), max(hi, y+e)
		}
	}
	return lo, hi, lo <= hi
}

// xRange returns the generations the chart spans.
func (c *chart) xRange() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		if len(s.X) > 0 && s.Kind != reference {
			lo, hi = min(lo, slices.Min(s.X)), max(hi, slices.Max(s.X))
		}
	}
	return lo, hi
}
