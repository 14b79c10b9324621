package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// runsDir is where tune puts a run without --out (runs/NAME).
const runsDir = "runs"

// missingRun is the error of resume, export or report for a run directory
// that cannot be read: one line naming it, and, where it does not exist,
// the nearest run directory beside it or under runs/, if one is near
// enough to be a slip of the keyboard.
func missingRun(path string, err error) error {
	if !errors.Is(err, fs.ErrNotExist) {
		return usagef("%v", err)
	}
	if near := nearestRun(path); near != "" {
		return usagef("no run directory %s; did you mean %s?", path, near)
	}
	return usagef("no run directory %s", path)
}

// nearestRun returns the run directory (one with a checkpoints folder)
// beside path or under runs/ whose name is nearest path's by edit
// distance, "" where none is within a third of the name's length (one
// edit at least). Ties go to the first in lexical order, so the answer
// does not depend on the order a directory is listed in.
func nearestRun(path string) string {
	name := filepath.Base(filepath.Clean(path))
	var cands []string
	for _, dir := range []string{filepath.Dir(filepath.Clean(path)), runsDir} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			c := filepath.Join(dir, e.Name())
			if st, err := os.Stat(filepath.Join(c, "checkpoints")); err == nil && st.IsDir() && !slices.Contains(cands, c) {
				cands = append(cands, c)
			}
		}
	}
	slices.Sort(cands)
	best, bestD := "", max(1, len([]rune(name))/3)+1
	for _, c := range cands {
		if d := editDistance(name, filepath.Base(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the edit distance between a and b, in runes, counting
// an insertion, a deletion, a substitution or a swap of two neighbours as
// one edit (the optimal string alignment distance): the slips of a typist.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// d[i][j] is the distance between ra[:i] and rb[:j].
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
