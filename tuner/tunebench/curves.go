package tunebench

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/evotune/evotune/engine/stats"
)

// maxCurveColumns is the most grid lines a curve's text shows: beyond it
// every k-th line is shown (the chart draws them all), so that a table of
// a long run with a fine grid stays readable on a terminal.
const maxCurveColumns = 20

// A curve is a row's held-out ratio along its runs: at each grid line one
// of its runs reached, the median and the lowest over the runs of their
// point there, a run that had already ended counting with its final point
// (what a run of the cell's budget hands over by then); and at End, the
// largest of the runs' final games, their final points, whose median and
// lowest are the row's median and worst final.
type curve struct {
	name  string
	lines []int64 // grid lines, in order
	// median and worst are at each line, then at the end.
	median, worst []float64
	end           int64
}

// curveOf is the curve of r's runs.
func curveOf(r Result, name string) curve {
	c := curve{name: name}
	at := make([]map[int64]float64, len(r.Runs))
	var lines []int64
	for i, run := range r.Runs {
		at[i] = map[int64]float64{}
		for _, p := range run.Points {
			if p.Grid > 0 {
				at[i][p.Grid] = p.Ratio
				lines = append(lines, p.Grid)
			}
		}
		c.end = max(c.end, run.Final.Games)
	}
	slices.Sort(lines)
	lines = slices.Compact(lines)
	for _, line := range lines {
		var ys []float64
		for i, run := range r.Runs {
			if y, ok := at[i][line]; ok {
				ys = append(ys, y)
			} else if run.Final.Games < line {
				ys = append(ys, run.Final.Ratio)
			}
		}
		if len(ys) == 0 {
			continue
		}
		c.lines = append(c.lines, line)
		c.median, c.worst = append(c.median, stats.Median(ys)), append(c.worst, slices.Min(ys))
	}
	finals := make([]float64, len(r.Runs))
	for i, run := range r.Runs {
		finals[i] = run.Final.Ratio
	}
	if len(finals) > 0 {
		c.median, c.worst = append(c.median, stats.Median(finals)), append(c.worst, slices.Min(finals))
	}
	return c
}

// curveColumns are the grid lines a group's curve text shows: every line a
// row's curve has, or every k-th of them when there are more than
// maxCurveColumns.
func curveColumns(cs []curve) []int64 {
	var lines []int64
	for _, c := range cs {
		lines = append(lines, c.lines...)
	}
	slices.Sort(lines)
	lines = slices.Compact(lines)
	k := (len(lines) + maxCurveColumns - 1) / maxCurveColumns
	if k <= 1 {
		return lines
	}
	var out []int64
	for i := k - 1; i < len(lines); i += k {
		out = append(out, lines[i])
	}
	return out
}

// curvesIntro says what a group's curve text shows.
func curvesIntro(g []Result, cols []int64) string {
	every := "every " + thousands(g[0].Grid) + " games"
	if len(cols) > 1 && cols[1]-cols[0] != g[0].Grid {
		every = "every " + thousands(cols[1]-cols[0]) + " games (of a grid of " + thousands(g[0].Grid) + ")"
	}
	return "Held-out ratio at " + every + ", median over the run seeds and the worst run (a run that has ended counts with its final point); end: the final points"
}

// curveCells are a curve's figures at cols, then at its end: "-" where
// the row has no point.
func (c curve) cells(cols []int64, of func(curve) []float64) []string {
	ys := of(c)
	if len(ys) == 0 {
		out := make([]string, len(cols)+1)
		for i := range out {
			out[i] = "-"
		}
		return out
	}
	var out []string
	for _, col := range cols {
		if i := slices.Index(c.lines, col); i >= 0 {
			out = append(out, fmt.Sprintf("%.3f", ys[i]))
		} else {
			out = append(out, "-")
		}
	}
	return append(out, fmt.Sprintf("%.3f", ys[len(ys)-1]))
}

func curveMedian(c curve) []float64 { return c.median }
func curveWorst(c curve) []float64  { return c.worst }

// groupCurves are the curves of a group's rows, named as the table names
// them.
func groupCurves(g []Result, name func(Result) string) []curve {
	cs := make([]curve, len(g))
	for i, r := range g {
		cs[i] = curveOf(r, name(r))
	}
	return cs
}

// writeCurvesText writes a group's curves as text, a line for each row's
// median and one for its worst run.
func writeCurvesText(w io.Writer, g []Result) error {
	cs := groupCurves(g, func(r Result) string { return r.Name() })
	cols := curveColumns(cs)
	fmt.Fprintf(w, "%s:\n", curvesIntro(g, cols))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"tuner", "games:"}
	for _, col := range cols {
		head = append(head, thousands(col))
	}
	fmt.Fprintf(tw, "%s\tend\n", strings.Join(head, "\t"))
	for _, c := range cs {
		fmt.Fprintf(tw, "%s\tmedian\t%s\n", c.name, strings.Join(c.cells(cols, curveMedian), "\t"))
		fmt.Fprintf(tw, "\tworst\t%s\n", strings.Join(c.cells(cols, curveWorst), "\t"))
	}
	return tw.Flush()
}

// writeCurvesMarkdown writes a group's curves as a markdown table, and
// the chart's image when there is one (chart: its path).
func writeCurvesMarkdown(w io.Writer, g []Result, chart, caption string) {
	cs := groupCurves(g, mdName)
	cols := curveColumns(cs)
	fmt.Fprintf(w, "%s:\n\n| tuner | games: |", curvesIntro(g, cols))
	for _, col := range cols {
		fmt.Fprintf(w, " %s |", thousands(col))
	}
	fmt.Fprint(w, " end |\n|---|---|"+strings.Repeat("---|", len(cols)+1)+"\n")
	for _, c := range cs {
		fmt.Fprintf(w, "| %s | median | %s |\n", c.name, strings.Join(c.cells(cols, curveMedian), " | "))
		fmt.Fprintf(w, "| | worst | %s |\n", strings.Join(c.cells(cols, curveWorst), " | "))
	}
	if chart != "" {
		fmt.Fprintf(w, "\n![%s](%s)\n", caption, chart)
	}
}
