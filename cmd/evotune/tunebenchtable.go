package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evotune/evotune/checkpoints"
	"github.com/evotune/evotune/tuner/tunebench"
)

// tableFlags say how tunebench and tunebench table render their tables.
type tableFlags struct {
	markdown, curves bool
	svg              string // the charts' directory; "" for none
}

// tunebenchTable renders the tables of saved --json outputs, files of
// --out and --out directories.
func tunebenchTable(files []string, to tableFlags, stdout io.Writer) error {
	if len(files) == 0 {
		return usagef("tunebench table: no files: name the outputs of evotune tunebench --json, or its --out directories, to render")
	}
	var all []tunebench.Result
	for _, name := range files {
		if fi, err := os.Stat(name); err == nil && fi.IsDir() {
			rs, err := tunebench.ReadDir(name)
			if err != nil {
				return badInput(fmt.Errorf("tunebench table: %w", err))
			}
			all = append(all, rs...)
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			return badInput(fmt.Errorf("tunebench table: %w", err))
		}
		rs, err := tunebench.ReadResults(data)
		if err != nil {
			return badInput(fmt.Errorf("tunebench table: %s: %w", name, err))
		}
		all = append(all, rs...)
	}
	return writeTables(stdout, all, to)
}

// writeTables renders results as the flags say, each chart written
// atomically into the --svg directory.
func writeTables(stdout io.Writer, res []tunebench.Result, to tableFlags) error {
	o := tunebench.TableOptions{Markdown: to.markdown, Curves: to.curves, ChartDir: to.svg}
	if to.svg != "" {
		if err := os.MkdirAll(to.svg, 0o755); err != nil {
			return badInput(fmt.Errorf("flag --svg: %w", err))
		}
		o.Chart = func(name string, svg []byte) error {
			return checkpoints.WriteFile(filepath.Join(to.svg, name), svg)
		}
	}
	return tunebench.WriteTables(stdout, res, o)
}

// parseCells reads --cells for problems ps: nil for none; under --confirm
// without it or a budget of one's own, every cell of each problem. A cell
// a problem has not, or --cells beside a budget, is a usage error.
func parseCells(list string, ps []tunebench.Problem, confirm, budgets bool) ([]string, error) {
	switch {
	case list == "" && confirm && !budgets:
		return []string{tunebench.AllCells}, nil
	case list == "" || list == "none":
		return nil, nil
	case budgets:
		return nil, usagef("flag --cells: a cell is its budgets; --budget and --budget-games give others: give one or the other")
	}
	var names []string
	for name := range strings.SplitSeq(list, ",") {
		names = append(names, strings.TrimSpace(name))
	}
	if slices.Contains(names, "none") {
		return nil, usagef("flag --cells: none with other cells: give it alone")
	}
	for _, p := range ps {
		if _, err := p.SelectCells(names); err != nil {
			return nil, usagef("flag --cells: %v; all runs each problem's own", err)
		}
	}
	return names, nil
}
