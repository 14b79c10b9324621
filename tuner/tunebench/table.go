package tunebench

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteTable writes results side by side: one table for each problem
// (and each block and set of conditions: target, held-out games, budgets,
// grid, Full, and for a confirmation its run seeds), a row for each tuner
// with its median and worst final ratio, median CPU seconds to the target,
// runs that reached it and its worst drop from the best point a run
// passed; then each run's figures; then the rows that failed and why; then
// the commands that produced the rows, where recorded. Development tables
// come before confirmation ones, and each says which it is in its title.
// Markdown writes the same as markdown tables, to paste into
// docs/tunebench.md. WriteTables says what a table of a cell adds.
func WriteTable(w io.Writer, results []Result, markdown bool) error {
	return WriteTables(w, results, TableOptions{Markdown: markdown})
}

// TableOptions say how WriteTables renders results.
type TableOptions struct {
	// Markdown writes markdown tables, to paste into docs/tunebench.md.
	Markdown bool
	// Curves shows the curves of every table, and the answer across cells
	// of every problem whose budgets make cells, not only of those played
	// at a named cell (Result.Cell): results written before cells, or with
	// budgets of one's own.
	Curves bool
	// Chart, if not nil, is given each table's chart of its curves: an SVG
	// file's name (ChartName) and contents. The markdown shows it as an
	// image at ChartDir/name.
	Chart    func(name string, svg []byte) error
	ChartDir string
}

// WriteTables writes results as WriteTable does, and for a table of a cell
// (Options.Cells) its curves: the held-out ratio at every grid line, the
// median over the run seeds and the worst run of each row (as text, and as
// an SVG chart through o.Chart); and before a problem's first table, when
// the results hold two or more of its cells, the answer to "does more time
// help?": each row's median and worst final at each cell, and the change
// from the cell before.
func WriteTables(w io.Writer, results []Result, o TableOptions) error {
	groups := groupResults(results)
	answers := moreTimes(groups, o.Curves)
	for i, g := range groups {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if m := answers[i]; m != nil {
			if o.Markdown {
				m.writeMarkdown(w)
			} else if err := m.writeText(w); err != nil {
				return err
			}
			fmt.Fprintln(w)
		}
		curves := o.Curves || isCellGroup(g)
		chart := ""
		if curves && o.Chart != nil {
			name := ChartName(g)
			svg := svgChart(groupTitle(g), g[0].Target, groupCurves(g, func(r Result) string { return r.Name() }))
			if err := o.Chart(name, svg); err != nil {
				return err
			}
			chart = name
			if o.ChartDir != "" {
				chart = o.ChartDir + "/" + name
			}
		}
		var err error
		if o.Markdown {
			err = writeMarkdown(w, g, curves, chart)
		} else {
			err = writeText(w, g, curves, chart)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// ChartName is the file name of a table's chart: its problem, cell and
// block, and a hash of its conditions and rows, so that two tables never
// share one.
func ChartName(g []Result) string {
	parts := []string{fileName(g[0].Problem)}
	if c := groupCell(g); c.Name != "" {
		parts = append(parts, c.Name)
	}
	h := sha256.New()
	fmt.Fprint(h, groupKey(g[0]))
	for _, r := range g {
		fmt.Fprint(h, "|", r.Name())
	}
	parts = append(parts, block(g[0]), hex.EncodeToString(h.Sum(nil)[:4]))
	return strings.Join(parts, "-") + ".svg"
}

// groupResults groups results by problem, block and conditions, in the
// order they first appear, development before confirmation: only figures
// taken alike share a table. The rows of a confirmation share one only on
// the same run seeds, a cell played once.
func groupResults(results []Result) [][]Result {
	var groups [][]Result
	index := map[string]int{}
	for _, r := range results {
		key := groupKey(r)
		i, ok := index[key]
		if !ok {
			i = len(groups)
			index[key] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], r)
	}
	slices.SortStableFunc(groups, func(a, b []Result) int { return cmp.Compare(blockRank(block(a[0])), blockRank(block(b[0]))) })
	return groups
}

// groupKey is what the results of one table share.
func groupKey(r Result) string {
	key := fmt.Sprintf("%s|%s|%v|%d|%v|%d|%d|%v|%v", r.Problem, block(r), r.Target, r.HeldOut, r.Budget, r.BudgetGames, r.Grid, r.Full, r.Short)
	if block(r) == Confirmation {
		key += fmt.Sprint(r.RunSeeds)
	}
	return key
}

// block is r's block, Development for a result that does not say.
func block(r Result) string { return cmp.Or(r.Block, Development) }

// groupTitle is a table's title: the problem, the cell when the table's
// rows were played at one, and the block.
func groupTitle(g []Result) string {
	if isCellGroup(g) {
		c := groupCell(g)
		return fmt.Sprintf("%s, %s: %s (%s)", g[0].Problem, c.Label(), budgetText(g[0]), block(g[0]))
	}
	return fmt.Sprintf("%s (%s)", g[0].Problem, block(g[0]))
}

// conditions says how a group's runs were taken, in one line.
func conditions(r Result) string {
	budget := fmt.Sprintf("budget %s CPU s", strconv.FormatFloat(r.Budget, 'f', -1, 64))
	if r.BudgetGames > 0 {
		budget += " and " + thousands(r.BudgetGames) + " games"
	}
	end := "a run stops at the target"
	if r.Full {
		end = "runs go on to the budget"
	}
	grid := "points every " + thousands(r.Grid) + " games"
	if r.Grid == 0 {
		grid = "points at the cadence of the tuner's validations (before the grid)"
	}
	short := ""
	if r.Short {
		short = "; short mode"
	}
	games := "held-out games"
	confirm := ""
	if block(r) == Confirmation {
		games = "held-out games of the confirmation block"
		confirm = fmt.Sprintf("; run seeds %s, no setting chosen on them, each row played once", seedRanges(r.RunSeeds))
	}
	return fmt.Sprintf("target ×%.2f on %s %s (the start: %.0f); %s a run, %s; %s%s%s",
		r.Target, thousands(int64(r.HeldOut)), games, r.Start, budget, end, grid, confirm, short)
}

// seedRanges writes run seeds as the docs do: runs of consecutive seeds
// as first–last.
func seedRanges(seeds []uint64) string {
	var parts []string
	for i := 0; i < len(seeds); {
		j := i
		for j+1 < len(seeds) && seeds[j+1] == seeds[j]+1 {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, strconv.FormatUint(seeds[i], 10))
		case j == i+1:
			parts = append(parts, strconv.FormatUint(seeds[i], 10), strconv.FormatUint(seeds[j], 10))
		default:
			parts = append(parts, fmt.Sprintf("%d–%d", seeds[i], seeds[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// ended says, for a row that failed or did not end, what its figures
// cells show instead of its figures: "failed" or "unfinished"; "" for a
// row that ended well.
func ended(r Result) string {
	switch {
	case r.unfinished:
		return "unfinished"
	case r.Error != "":
		return "failed"
	}
	return ""
}

// failures are the group's failed and unfinished rows, one line each,
// each row named by name.
func failures(g []Result, name func(Result) string) []string {
	var out []string
	for _, r := range g {
		if r.Error != "" {
			out = append(out, fmt.Sprintf("%s %s: %s", name(r), ended(r), strings.Join(strings.Fields(r.Error), " ")))
		}
	}
	return out
}

func summary(problem string) string {
	if p, err := Lookup(problem); err == nil {
		return p.Summary
	}
	return ""
}

// writeText writes a group's table as text, with its curves when asked,
// and the path of its chart when one was written.
func writeText(w io.Writer, g []Result, curves bool, chart string) error {
	first := g[0]
	fmt.Fprintf(w, "%s: %s\n%s\n\n", groupTitle(g), summary(first.Problem), conditions(first))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "tuner\tmedian\tworst\tCPU s to target\treached\tworst drop\n")
	for _, r := range g {
		if e := ended(r); e != "" {
			fmt.Fprintf(tw, "%s\t%s\t-\t-\t%d of %d\t-\n", r.Name(), e, r.Reached, len(r.Runs))
			continue
		}
		fmt.Fprintf(tw, "%s\t×%.3f\t×%.3f\t%s\t%d of %d\t%.3f\n", r.Name(), r.MedianFinal, r.WorstFinal,
			medianCPU(r), r.Reached, len(r.Runs), r.WorstDrop)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "tuner\tseed\tfinal\t95% CI\tgames\tCPU s\tto target: CPU s\tgames\tbest passed\tdrop\tstop\n")
	for _, r := range g {
		for _, run := range r.Runs {
			cpu, games := "-", "-"
			if p := run.Reached; p != nil {
				cpu, games = fmt.Sprintf("%.1f", p.CPU), strconv.FormatInt(p.Games, 10)
			}
			f := run.Final
			fmt.Fprintf(tw, "%s\t%d\t×%.3f\t[%.3f, %.3f]\t%d\t%.1f\t%s\t%s\t×%.3f\t%.3f\t%s\n", r.Name(), run.Seed,
				f.Ratio, f.RatioCI95[0], f.RatioCI95[1], f.Games, f.CPU, cpu, games, run.Max.Ratio, run.Drop, run.Stop)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if curves {
		fmt.Fprintln(w)
		if err := writeCurvesText(w, g); err != nil {
			return err
		}
		if chart != "" {
			fmt.Fprintf(w, "the chart: %s\n", chart)
		}
	}
	if fs := failures(g, func(r Result) string { return r.Name() }); len(fs) > 0 {
		fmt.Fprintln(w)
		for _, f := range fs {
			fmt.Fprintf(w, "  %s\n", f)
		}
	}
	if cmds := commands(g); len(cmds) > 0 {
		fmt.Fprintln(w)
		for _, c := range cmds {
			fmt.Fprintf(w, "  %s\n", c)
		}
	}
	return nil
}

// writeMarkdown writes a group's table as markdown, with its curves when
// asked, and its chart as an image when one was written.
func writeMarkdown(w io.Writer, g []Result, curves bool, chart string) error {
	first := g[0]
	fmt.Fprintf(w, "#### %s\n\n%s: %s.\n\n", groupTitle(g), summary(first.Problem), conditions(first))
	fmt.Fprint(w, "| tuner | median / worst final | median CPU s to the target | reached | worst drop from the best point passed | by run seed: final ratio [95% CI], CPU s to the target where met, the best point passed where higher |\n")
	fmt.Fprint(w, "|---|---|---|---|---|---|\n")
	for _, r := range g {
		var seeds []string
		for _, run := range r.Runs {
			f := run.Final
			s := fmt.Sprintf("%d: ×%.3f [%.3f, %.3f]", run.Seed, f.Ratio, f.RatioCI95[0], f.RatioCI95[1])
			if p := run.Reached; p != nil {
				s += fmt.Sprintf(", %.1f s", p.CPU)
			}
			if run.Drop > 0 {
				s += fmt.Sprintf(", best ×%.3f", run.Max.Ratio)
			}
			seeds = append(seeds, s)
		}
		if e := ended(r); e != "" {
			fmt.Fprintf(w, "| %s | **%s** | - | %d of %d | - | %s |\n", mdName(r), e, r.Reached, len(r.Runs), strings.Join(seeds, " · "))
			continue
		}
		fmt.Fprintf(w, "| %s | **×%.3f / ×%.3f** | %s | %d of %d | %.3f | %s |\n", mdName(r), r.MedianFinal, r.WorstFinal,
			medianCPU(r), r.Reached, len(r.Runs), r.WorstDrop, strings.Join(seeds, " · "))
	}
	if curves {
		fmt.Fprintln(w)
		writeCurvesMarkdown(w, g, chart, groupTitle(g)+": the held-out ratio against games played, the median and the worst run of each row")
	}
	if fs := failures(g, mdName); len(fs) > 0 {
		fmt.Fprintln(w)
		for _, f := range fs {
			fmt.Fprintf(w, "- %s\n", f)
		}
	}
	if cmds := commands(g); len(cmds) > 0 {
		fmt.Fprint(w, "\n```sh\n")
		for _, c := range cmds {
			fmt.Fprintln(w, c)
		}
		fmt.Fprint(w, "```\n")
	}
	return nil
}

// mdName is a row's name in a markdown cell: commands and files as code,
// the cell's bars escaped.
func mdName(r Result) string {
	code := func(s string) string { return "`" + strings.ReplaceAll(s, "|", `\|`) + "`" }
	switch {
	case r.Peer != "":
		return code(r.Peer)
	case r.Config != "":
		return "evotune, " + code(r.Config)
	}
	return "evotune"
}

func medianCPU(r Result) string {
	if r.MedianCPU == nil {
		return "not reached"
	}
	return fmt.Sprintf("%.1f", *r.MedianCPU)
}

// commands are the group's distinct recorded commands, in order.
func commands(g []Result) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range g {
		if r.Command != "" && !seen[r.Command] {
			seen[r.Command] = true
			out = append(out, r.Command)
		}
	}
	return out
}

// thousands writes n with commas between thousands, as the docs do.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
