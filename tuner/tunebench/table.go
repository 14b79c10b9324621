package tunebench

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
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
// docs/tunebench.md.
func WriteTable(w io.Writer, results []Result, markdown bool) error {
	for i, g := range groupResults(results) {
		if i > 0 {
			fmt.Fprintln(w)
		}
		var err error
		if markdown {
			err = writeMarkdown(w, g)
		} else {
			err = writeText(w, g)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// groupResults groups results by problem, block and conditions, in the
// order they first appear, development before confirmation: only figures
// taken alike share a table. The rows of a confirmation share one only on
// the same run seeds, a cell played once.
func groupResults(results []Result) [][]Result {
	var groups [][]Result
	index := map[string]int{}
	for _, r := range results {
		key := fmt.Sprintf("%s|%s|%v|%d|%v|%d|%d|%v|%v", r.Problem, block(r), r.Target, r.HeldOut, r.Budget, r.BudgetGames, r.Grid, r.Full, r.Short)
		if block(r) == Confirmation {
			key += fmt.Sprint(r.RunSeeds)
		}
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

// block is r's block, Development for a result that does not say.
func block(r Result) string { return cmp.Or(r.Block, Development) }

// title is a table's title: the problem and the block.
func title(r Result) string { return fmt.Sprintf("%s (%s)", r.Problem, block(r)) }

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

func writeText(w io.Writer, g []Result) error {
	first := g[0]
	fmt.Fprintf(w, "%s: %s\n%s\n\n", title(first), summary(first.Problem), conditions(first))
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

func writeMarkdown(w io.Writer, g []Result) error {
	first := g[0]
	fmt.Fprintf(w, "#### %s\n\n%s: %s.\n\n", title(first), summary(first.Problem), conditions(first))
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

// ReadResults reads the results of an evotune tunebench --json output, or
// one row's result as the files of Options.Out hold it. Outputs of earlier
// versions (before the grid, with one peer named at the top; before the
// block, read as Development) are read too; each result's summary
// (Result.summarize: medians, worst figures, best points passed) is
// computed again from its runs.
func ReadResults(data []byte) ([]Result, error) {
	var top struct {
		Short    bool     `json:"short"`
		Full     bool     `json:"full"`
		Peer     string   `json:"peer"`
		Command  string   `json:"command"`
		Problem  string   `json:"problem"`
		Problems []Result `json:"problems"`
	}
	// A decoder, not Unmarshal: outputs saved with a line after them
	// are read as they always were.
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&top); err != nil {
		return nil, jsonError(data, err)
	}
	if top.Problem != "" && top.Problems == nil {
		r, err := decodeResult(data)
		if err != nil {
			return nil, err
		}
		return []Result{r}, nil
	}
	if len(top.Problems) == 0 {
		return nil, errors.New(`no results: want the output of evotune tunebench --json ({"problems":[...]}) or a row's file of its --out ({"problem":...})`)
	}
	for i := range top.Problems {
		r := &top.Problems[i]
		r.Full = r.Full || top.Full
		r.Short = r.Short || top.Short
		if r.Peer == "" {
			r.Peer = top.Peer
		}
		if r.Command == "" {
			r.Command = top.Command
		}
		if err := r.check(); err != nil {
			return nil, err
		}
	}
	return top.Problems, nil
}
