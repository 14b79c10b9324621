package tunebench

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// A moreTime is the answer to "does more time help?" for one problem, block
// and set of run seeds: each row's figures at each of the problem's cells
// the tables show, smallest first.
type moreTime struct {
	problem, block string
	cells          []Cell
	// heads name the cells' columns: the cell and its budget.
	heads []string
	// rows are the rows' names in order of first appearance; at[name][i]
	// its result at cells[i], nil where it has none.
	rows []string
	at   map[string][]*Result
}

// moreTimeKey is what the results of one answer share: all but the cell.
func moreTimeKey(r Result) string {
	return fmt.Sprintf("%s|%s|%v|%d|%v|%v", r.Problem, block(r), r.Target, r.HeldOut, r.Short, r.RunSeeds)
}

// groupCell is the cell a group of results was played at: the cell one of
// them names, or the cell their budgets say; "" for none.
func groupCell(g []Result) Cell {
	for _, r := range g {
		if r.Cell != "" {
			return cellOf(r)
		}
	}
	return cellOf(g[0])
}

// isCellGroup reports whether a group was played at a named cell: its
// tables then show their curves, and its problem the answer across cells.
func isCellGroup(g []Result) bool {
	return slices.ContainsFunc(g, func(r Result) bool { return r.Cell != "" })
}

// moreTimes finds, among groups, the answers to write: keyed by the index
// of the first group of their problem, block and run seeds, each over two
// or more cells one of which is named (or any, with all).
func moreTimes(groups [][]Result, all bool) map[int]*moreTime {
	first := map[string]int{}
	found := map[string]*moreTime{}
	named := map[string]bool{}
	for i, g := range groups {
		c := groupCell(g)
		if c.Name == "" {
			continue
		}
		key := moreTimeKey(g[0])
		m, ok := found[key]
		if !ok {
			first[key] = i
			m = &moreTime{problem: g[0].Problem, block: block(g[0]), at: map[string][]*Result{}}
			found[key] = m
		}
		named[key] = named[key] || all || isCellGroup(g)
		k := slices.IndexFunc(m.cells, func(d Cell) bool { return d.Name == c.Name })
		if k < 0 {
			m.cells = append(m.cells, c)
			m.heads = append(m.heads, c.Label()+": "+budgetText(g[0]))
			for name := range m.at {
				m.at[name] = append(m.at[name], nil)
			}
			k = len(m.cells) - 1
		}
		for j := range g {
			name := g[j].Name()
			if _, ok := m.at[name]; !ok {
				m.rows = append(m.rows, name)
				m.at[name] = make([]*Result, len(m.cells))
			}
			if m.at[name][k] == nil {
				m.at[name][k] = &g[j]
			}
		}
	}
	out := map[int]*moreTime{}
	for key, m := range found {
		if len(m.cells) < 2 || !named[key] {
			continue
		}
		m.sort()
		out[first[key]] = m
	}
	return out
}

// sort puts the cells smallest first.
func (m *moreTime) sort() {
	idx := make([]int, len(m.cells))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(m.cells[a].Scale, m.cells[b].Scale) })
	perm := func(xs []*Result) []*Result {
		out := make([]*Result, len(idx))
		for i, k := range idx {
			out[i] = xs[k]
		}
		return out
	}
	cells, heads := slices.Clone(m.cells), slices.Clone(m.heads)
	for i, k := range idx {
		m.cells[i], m.heads[i] = cells[k], heads[k]
	}
	for name, xs := range m.at {
		m.at[name] = perm(xs)
	}
}

// budgetText is the budget that binds a result's runs: "20,000 games" or
// "240 CPU s".
func budgetText(r Result) string {
	if r.BudgetGames > 0 {
		return thousands(r.BudgetGames) + " games"
	}
	return strconv.FormatFloat(r.Budget, 'f', -1, 64) + " CPU s"
}

// figures are a row's figures at each cell: its median and worst final,
// the change from its cell before, and its worst drop from the best point
// passed.
func (m *moreTime) figures(name string) []string {
	var out []string
	var before *Result
	for _, r := range m.at[name] {
		switch {
		case r == nil:
			out = append(out, "-")
			continue
		case ended(*r) != "":
			out = append(out, ended(*r))
			continue
		}
		s := fmt.Sprintf("×%.3f / ×%.3f", r.MedianFinal, r.WorstFinal)
		if before != nil {
			s += fmt.Sprintf(" (%s / %s)", signed(r.MedianFinal-before.MedianFinal), signed(r.WorstFinal-before.WorstFinal))
		}
		out = append(out, s+fmt.Sprintf(", drop %.3f", r.WorstDrop))
		before = r
	}
	return out
}

// signed writes a change with its sign, a minus sign for a loss.
func signed(d float64) string {
	s := fmt.Sprintf("%+.3f", d)
	if s == "-0.000" {
		s = "+0.000"
	}
	return strings.Replace(s, "-", "−", 1)
}

const moreTimeIntro = "Each row's median / worst final ratio at each cell, the change from its cell before in brackets, and its worst drop from the best point passed; the tables below give each cell's runs"

func (m *moreTime) title() string {
	return fmt.Sprintf("%s (%s): does more time help?", m.problem, m.block)
}

func (m *moreTime) writeText(w io.Writer) error {
	fmt.Fprintf(w, "%s\n%s.\n\n", m.title(), moreTimeIntro)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "tuner\t%s\n", strings.Join(m.heads, "\t"))
	for _, name := range m.rows {
		fmt.Fprintf(tw, "%s\t%s\n", name, strings.Join(m.figures(name), "\t"))
	}
	return tw.Flush()
}

func (m *moreTime) writeMarkdown(w io.Writer) {
	fmt.Fprintf(w, "#### %s\n\n%s.\n\n| tuner | %s |\n|---|%s\n", m.title(), moreTimeIntro, strings.Join(m.heads, " | "), strings.Repeat("---|", len(m.heads)))
	for _, name := range m.rows {
		i := slices.IndexFunc(m.at[name], func(r *Result) bool { return r != nil })
		fmt.Fprintf(w, "| %s | %s |\n", mdName(*m.at[name][i]), strings.Join(m.figures(name), " | "))
	}
}
