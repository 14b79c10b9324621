package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/evotune/evotune/internal/golden"
	"github.com/evotune/evotune/tuner"
)

const smallYAML = `
name: small
seed: 5
generations: 5
optimizer: {population: 4}
search: {depth: 1}
fitness: {games: 4}
validation: {games: 4}
checkpoints: {keep: 2}
`

func config(t testing.TB, yml string) *tuner.Config {
	t.Helper()
	cfg, err := tuner.ReadConfig([]byte(yml), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// realRun plays a tiny run in a new directory: to the end, or until
// stopAfter generations have completed (then it is interrupted as Ctrl-C
// would interrupt it).
func realRun(t *testing.T, yml string, stopAfter int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ev := tuner.Events{Generation: func(rec tuner.Record) {
		if rec.Generation == stopAfter {
			cancel()
		}
	}}
	r, err := tuner.Create(config(t, yml), dir, tuner.Options{Events: ev})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	return dir
}

// synth describes a history made up for a test.
type synth struct {
	gens     int   // generations
	every    int   // validation every this many
	restarts []int // generations at which an IPOP restart happened
	axis     bool  // write axis_ratio
	constant bool  // every value the same in every generation
	extra    bool  // write fields this build does not know
	ladder   bool  // stages of 4 generations, with noise handling
	// races are, for an older evotune's validations under recommend:
	// race, each validation's outcome in turn: "won", "lost" or
	// "fallback" (lost clearly: the search went back to the incumbent).
	races []string
	// final makes the last line a final race's, as a run of an older
	// evotune continued by this one writes it.
	final bool
}

// synthRun returns a run with a made-up history written by tuner.Record's
// own encoder, decoded the way Load decodes it.
func synthRun(t testing.TB, o synth) *Run {
	r, lines := synthLines(t, o)
	var skipped []error
	r.History, skipped = decodeHistory(lines, "history.jsonl")
	if len(skipped) > 0 {
		t.Fatal(skipped)
	}
	r.State.Games = r.History[len(r.History)-1].Games
	return r
}

// synthLines returns the run synthRun describes, without its history, and
// the history's bytes.
func synthLines(t testing.TB, o synth) (*Run, []byte) {
	t.Helper()
	cfg := config(t, `
name: synth
optimizer: {population: 8, restarts: ipop}
fitness: {games: 24}
validation: {games: 100}
init: {corner: 0}
`)
	cfg.Validation.Every = o.every
	if o.races != nil || o.final {
		cfg.Validation.Select = 48 // the races below play to their end
	}
	names := []string{"monotonicity", "smoothness", "empty", "corner", "merge"}
	start := make([]float64, len(names))
	for i, n := range names {
		start[i] = cfg.Init[n]
	}
	val := func(g int, w []float64) *tuner.Validation {
		m := 30000 + 100*float64(g)
		if o.constant {
			m = 30000
		}
		return &tuner.Validation{Generation: g, Weights: w, Fitness: m, Mean: m, CI95: 1500, Median: m - 2000, Games: 100}
	}
	r := &Run{Dir: "runs/synth", Config: cfg, Features: names, Metric: tuner.Metric{Kind: "mean_score"},
		Checkpoint: "runs/synth/checkpoints/gen.ckpt"}
	r.State = tuner.State{Generation: o.gens, Games: 100, Start: val(0, start)}
	var lines bytes.Buffer
	restarts := 0
	incumbent, k := r.State.Start, 0 // the recommended validation; the next race
	for g := 1; g <= o.gens; g++ {
		f := float64(g)
		if o.constant {
			f = 1
		}
		if slices.Contains(o.restarts, g) {
			restarts++
		}
		w := make([]float64, len(names))
		for i := range w {
			w[i] = start[i] + f*float64(i+1)
		}
		rec := tuner.Record{Generation: g, Evaluations: 8 * g, Games: int64(100 + 200*g), Lambda: 8,
			Best: 30000 + 50*f, Median: 29000 + 50*f, Mean: 28500 + 50*f, Sigma: 0.3 / math.Sqrt(f), Restarts: restarts,
			Weights: tuner.WeightMap{Names: names, Values: w}, Elapsed: 2 * float64(g)}
		switch {
		case o.final && g == o.gens:
			// The race's figures: the start behind, stopped early; the
			// latest mean ahead of the recommended one.
			v := val(g, w)
			rec.Validation = &tuner.RecordValidation{Generation: g, Fitness: v.Fitness, Mean: v.Mean, CI95: v.CI95, Median: v.Median, Games: v.Games,
				Race: &tuner.RecordRace{Games: 48, Recommends: g, Entrants: []tuner.RaceEntrant{
					{Generation: 0, Start: true, Games: 12, Fitness: 25000},
					{Generation: incumbent.Generation, Games: 48, Fitness: 30500},
					{Generation: g, Games: 48, Fitness: 31000},
				}}}
			r.State.Validated = v
		case g%o.every == 0 || g == o.gens:
			v := val(g, w)
			rec.Validation = &tuner.RecordValidation{Fitness: v.Fitness, Mean: v.Mean, CI95: v.CI95, Median: v.Median, Games: v.Games}
			r.State.Validated = v
			if k < len(o.races) {
				out := o.races[k]
				k++
				race := &tuner.RecordRace{Games: 48, Incumbent: incumbent.Generation, Against: 30000, Fitness: 31000, Recommends: g}
				if out != "won" {
					race.Fitness, race.Recommends = 29000, incumbent.Generation
				}
				if out == "fallback" {
					race.Fallback, rec.Validation.Fallback = true, incumbent.Generation
				}
				rec.Validation.Race = race
				if out == "won" {
					incumbent = v
				} else {
					// What an older evotune recommended: the incumbent,
					// which the checkpoint's state holds as validated.
					rec.Validation.Recommended = incumbent.Generation
					r.State.Validated = incumbent
				}
			}
		}
		if o.ladder {
			rec.Stage = 1 + (g-1)/4
			rec.Noise = &tuner.RecordNoise{Games: 4 * (1 + g%3), Played: 8 * 4 * (1 + g%3), Reevaluated: 2, Next: 4 * (1 + (g+1)%3)}
		}
		if g == o.gens {
			rec.Stop = fmt.Sprintf("generations: %d done", g)
			r.State.Finished = rec.Stop
		}
		line, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		if o.axis && g > 1 { // the first line has none: the series must skip it
			line = bytes.Replace(line, []byte(`,"elapsed_s"`), fmt.Appendf(nil, `,"axis_ratio":%g,"elapsed_s"`, 1+f/10), 1)
		}
		if o.extra {
			line = bytes.Replace(line, []byte(`{"generation"`), fmt.Appendf(nil, `{"phase":%d,"probe":{"rank_change":%g,"label":"x"},"note":"n","generation"`, 1+g/3, f/100), 1)
		}
		lines.Write(line)
		lines.WriteByte('\n')
	}
	return r, lines.Bytes()
}

func findChart(cs []chart, id string) *chart {
	for i := range cs {
		if cs[i].ID == id {
			return &cs[i]
		}
	}
	return nil
}

// pointsOf returns the number of points of each series of a chart, by name.
func pointsOf(c *chart) map[string]int {
	m := map[string]int{}
	for _, s := range c.Series {
		if len(s.X) != len(s.Y) && s.Kind != markers {
			m[s.Name] = -1 // a broken series: never the right count
			continue
		}
		m[s.Name] = len(s.X)
	}
	return m
}

func TestChartSeries(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    synth
	}{
		{"one generation", synth{gens: 1, every: 5}},
		{"thousand generations", synth{gens: 1000, every: 5, axis: true}},
		{"restarts", synth{gens: 40, every: 5, restarts: []int{12, 30}, axis: true}},
		{"constant", synth{gens: 20, every: 4, constant: true}},
		{"unknown fields", synth{gens: 10, every: 5, extra: true}},
		{"ladder with noise handling", synth{gens: 10, every: 5, ladder: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := synthRun(t, tc.o)
			n := tc.o.gens
			vals := n / tc.o.every
			if n%tc.o.every != 0 {
				vals++ // the last generation validates too
			}
			axis := 0
			if tc.o.axis {
				axis = n - 1
			}
			// The recommended figure: the start's, then a step at each
			// validation that changes it, held to the last generation.
			band := 1 + 2*vals
			if tc.o.constant {
				band = 2
			}
			want := map[string]map[string]int{
				"fitness": {"best candidate": n, "median candidate": n, "mean of candidates": n,
					"validated mean ± 95% CI": vals, "last validated": band, "start weights, validated": 1},
				"sigma":      {"σ, normalised coordinates": n},
				"weights":    {"monotonicity": n, "smoothness": n, "empty": n, "corner (start 0: raw change)": n, "merge": n},
				"games":      {"games (tuning, races, validation)": n},
				"throughput": {"games/s": n},
			}
			if axis > 0 {
				want["sigma"]["axis ratio √cond(C)"] = axis
			}
			if r := len(tc.o.restarts); r > 0 {
				for _, id := range []string{"fitness", "sigma", "weights"} {
					want[id]["IPOP restart"] = r
				}
			}
			if tc.o.extra {
				want["extra-phase"] = map[string]int{"phase": n}
				want["extra-probe.rank_change"] = map[string]int{"probe.rank_change": n}
			}
			if tc.o.ladder {
				// Stages 2 and 3 begin at generations 5 and 9.
				for _, id := range []string{"fitness", "sigma", "weights"} {
					want[id]["next stage"] = 2
				}
				want["noise"] = map[string]int{"games per candidate": n, "tuning games played / λ": n, "next stage": 2}
				if c := findChart(r.charts(), "noise"); c != nil {
					if per, played := c.Series[0].Y, c.Series[1].Y; per[0] != 8 || played[0] != 8 || per[2] != 4 {
						t.Errorf("noise chart: games per candidate %v, played per candidate %v; want 8, 8, ..., 4", per, played)
					}
					if marks := c.Series[2].X; !slices.Equal(marks, []float64{5, 9}) {
						t.Errorf("stage marks at %v, want [5 9]", marks)
					}
				}
			}
			cs := r.charts()
			if len(cs) != len(want) {
				t.Errorf("%d charts, want %d", len(cs), len(want))
			}
			for id, series := range want {
				c := findChart(cs, id)
				if c == nil {
					t.Errorf("no chart %s", id)
					continue
				}
				if got := pointsOf(c); !mapsEqual(got, series) {
					t.Errorf("chart %s: series points %v, want %v", id, got, series)
				}
				if c.Title == "" || c.XLabel == "" || c.YLabel == "" {
					t.Errorf("chart %s lacks a title or an axis label", id)
				}
				svg, err := c.svg()
				if err != nil {
					t.Fatalf("chart %s: %v", id, err)
				}
				checkDrawn(t, c, svg)
			}
		})
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

var pathRE = regexp.MustCompile(`<path d="([^"]*)"`)

// checkDrawn checks the picture against the chart: every series name is in
// the legend, and every line of n ≥ 2 points is a path of n vertices.
func checkDrawn(t *testing.T, c *chart, svg []byte) {
	t.Helper()
	s := string(svg)
	if !strings.HasPrefix(s, "<svg") || !strings.HasSuffix(strings.TrimSpace(s), "</svg>") {
		t.Errorf("chart %s: not one <svg> element", c.ID)
	}
	vertices := map[int]int{}
	for _, m := range pathRE.FindAllStringSubmatch(s, -1) {
		vertices[strings.Count(m[1], "M")+strings.Count(m[1], "L")]++
	}
	for _, se := range c.Series {
		if !strings.Contains(s, ">"+htmlEscape(se.Name)+"</text>") {
			t.Errorf("chart %s: legend lacks %q", c.ID, se.Name)
		}
		if se.Kind == line && len(se.X) >= 2 && vertices[len(se.X)] == 0 {
			t.Errorf("chart %s: no path of %d vertices for %q", c.ID, len(se.X), se.Name)
		}
	}
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

func TestConstantRanges(t *testing.T) {
	if lo, hi := pad(5, 5); !(lo < 5 && hi > 5) {
		t.Errorf("pad(5, 5) = %v, %v: want a range around 5", lo, hi)
	}
	if lo, hi := pad(0, 0); !(lo < 0 && hi > 0) {
		t.Errorf("pad(0, 0) = %v, %v: want a range around 0", lo, hi)
	}
	if lo, hi := padLog(0.3, 0.3); !(lo > 0 && lo < 0.3 && hi > 0.3) {
		t.Errorf("padLog(0.3, 0.3) = %v, %v: want a positive range around 0.3", lo, hi)
	}
	for _, r := range [][2]float64{{0.21, 0.49}, {0.3, 0.3}, {1e-3, 2}, {5, 5000}} {
		lo, hi := padLog(r[0], r[1])
		if n := countLabels((logTicks{}).Ticks(lo, hi)); n < 2 {
			t.Errorf("log axis %v..%v has %d labels, want at least 2", lo, hi, n)
		}
	}
	for v, want := range map[float64]string{0.30000000000000004: "0.3", 125000: "125000", 0: "0", 2e-5: "2e-05", -1.5: "-1.5", 3e9: "3e+09"} {
		if got := tickLabel(v); got != want {
			t.Errorf("tickLabel(%v) = %q, want %q", v, got, want)
		}
	}
	for _, r := range [][2]float64{{1, 1.3}, {1, 2}, {1, 15}, {0, 1000}} {
		ts := (generationTicks{}).Ticks(r[0], r[1])
		if len(ts) == 0 || len(ts) > 10 {
			t.Errorf("generation axis %v..%v: %d ticks", r[0], r[1], len(ts))
		}
		for _, tk := range ts {
			if tk.Value != math.Trunc(tk.Value) {
				t.Errorf("generation axis %v..%v: tick at %v", r[0], r[1], tk.Value)
			}
		}
	}
}

// svgRE matches one inline chart; the golden file keeps only the counts of
// its elements, so that font metrics and float formatting cannot break it.
var svgRE = regexp.MustCompile(`(?s)<svg.*?</svg>`)
var tagRE = regexp.MustCompile(`<([a-z]+)[\s>/]`)

func reduceSVG(svg string) string {
	counts := map[string]int{}
	for _, m := range tagRE.FindAllStringSubmatch(svg, -1) {
		counts[m[1]]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var sb strings.Builder
	sb.WriteString("<svg")
	for _, k := range keys {
		fmt.Fprintf(&sb, " %s=%d", k, counts[k])
	}
	sb.WriteString(">")
	return sb.String()
}

// TestGolden renders a real run, its clock fields made fixed, and
// compares the page with the SVGs reduced to element counts.
func TestGolden(t *testing.T) {
	dir := realRun(t, smallYAML, 0)
	hpath := filepath.Join(dir, tuner.HistoryFile)
	h, err := os.ReadFile(hpath)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	h = regexp.MustCompile(`"elapsed_s":[0-9.e+-]+,"cpu_s":[0-9.e+-]+`).ReplaceAllFunc(h, func([]byte) []byte {
		n++
		return fmt.Appendf(nil, `"elapsed_s":%d,"cpu_s":%d`, 3*n, 5*n)
	})
	if lines := bytes.Count(h, []byte("\n")); n != lines {
		t.Fatalf("%d of %d history lines have elapsed_s and cpu_s", n, lines)
	}
	if err := os.WriteFile(hpath, h, 0o644); err != nil {
		t.Fatal(err)
	}
	// The journal's clock, real time as the history's was.
	if err := os.Remove(filepath.Join(dir, "journal.jsonl")); err != nil {
		t.Fatal(err)
	}
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	got := svgRE.ReplaceAllStringFunc(buf.String(), reduceSVG)
	got = strings.ReplaceAll(got, dir, "RUN")
	golden.Check(t, filepath.Join("testdata", "small.html.golden"), []byte(got))
}

// TestNoNetwork checks the page is self-contained: nothing to fetch, no
// script.
func TestNoNetwork(t *testing.T) {
	r := synthRun(t, synth{gens: 30, every: 5, axis: true, restarts: []int{10}, extra: true})
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	for _, bad := range []string{"<script", "src=", "href=\"http", "@import", "url(", "<link"} {
		if strings.Contains(s, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	if got := strings.Count(s, "<svg"); got != len(r.charts()) {
		t.Errorf("%d inline SVGs, want %d", got, len(r.charts()))
	}
	if strings.Contains(s, "<?xml") {
		t.Errorf("page contains an XML prolog")
	}
}

func TestThousandGenerationsSize(t *testing.T) {
	r := synthRun(t, synth{gens: 1000, every: 5, axis: true, restarts: []int{300, 700}})
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	if buf.Len() >= 2<<20 {
		t.Errorf("report of 1,000 generations is %d bytes, want under 2 MB", buf.Len())
	}
	if !strings.Contains(buf.String(), "<details><summary>200 rows: the races and validations of the run</summary>") {
		t.Errorf("the 200 validations' table is not folded")
	}
}

// BenchmarkReport1000 decodes a 1,000-generation history and renders its
// page: everything Write does but reading the files.
func BenchmarkReport1000(b *testing.B) {
	r, lines := synthLines(b, synth{gens: 1000, every: 5, axis: true, restarts: []int{300, 700}})
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		r.History, _ = decodeHistory(lines, "history.jsonl")
		buf.Reset()
		if err := r.WriteHTML(&buf); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "bytes/page")
}

// TestOtherMetric: validation keeps a confidence interval for the mean
// score only, so with another metric the validated points are the metric's
// value without error bars, and the axis names the metric.
func TestOtherMetric(t *testing.T) {
	r := synthRun(t, synth{gens: 10, every: 5})
	r.Metric = tuner.Metric{Kind: "reach", Tile: 2048}
	c := findChart(r.charts(), "fitness")
	var v *series
	for i := range c.Series {
		if c.Series[i].Kind == points {
			v = &c.Series[i]
		}
	}
	if v == nil || v.Err != nil || v.Name != "validated mean (reach:2048)" || len(v.X) != 2 {
		t.Fatalf("validated series %+v: want 2 points without error bars, named after the metric", v)
	}
	if c.YLabel != "share of games reaching 2048" {
		t.Errorf("y label %q", c.YLabel)
	}
	if _, err := c.svg(); err != nil {
		t.Fatal(err)
	}
}
