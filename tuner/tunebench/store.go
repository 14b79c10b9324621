package tunebench

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/evotune/evotune/checkpoints"
)

// ErrOtherBench is the error of an Options.Out directory that holds a result
// taken under other conditions than the benchmark's (another budget, grid,
// target...): a directory keeps one benchmark, and results taken otherwise
// are never mixed into its rows.
var ErrOtherBench = errors.New("tunebench: a result of another benchmark")

// The files of Options.Out, one directory a row:
//
//	OUT/BLOCK/PROBLEM/ROW/seed-N.json   one run seed's result, as the seed ends
//	OUT/BLOCK/PROBLEM/ROW/row.json      the row's result, as the row ends
//	OUT/BLOCK/PROBLEM/CELL/ROW/...      the same, for a row at a cell (Options.Cells)
//
// BLOCK is development or confirmation, CELL the cell's name ("4x"), ROW
// the row's name (Result.Name) as a file name (rowDir). A problem's
// directory holds rows of cells or rows of one budget, never both
// (checkLayout): one benchmark, whose every cell a run of the same command
// resumes. Each file is one Result in JSON, as in the
// "problems" of evotune tunebench --json: a seed's holds that one run, its
// RunSeeds that one seed. A row's file is written when the row ends, failed
// or not; a failed row's says why (Result.Error) and holds the run seeds
// it finished.
const (
	rowFile    = "row.json"
	seedPrefix = "seed-"
)

// rowDir is the directory of row r's files under out.
func rowDir(out string, r *Result) string {
	if r.Cell != "" {
		return filepath.Join(problemDir(out, r), r.Cell, fileName(r.Name()))
	}
	return filepath.Join(problemDir(out, r), fileName(r.Name()))
}

func problemDir(out string, r *Result) string {
	return filepath.Join(out, r.Block, fileName(r.Problem))
}

func seedPath(out string, r *Result, seed uint64) string {
	return filepath.Join(rowDir(out, r), seedPrefix+strconv.FormatUint(seed, 10)+".json")
}

// fileName is name as one file name on every system: letters, digits,
// '.', '_' and '-' kept, any other run of characters one '_' (and a
// leading '.'); a name that had to change, or is long, is cut to its last
// 60 characters and ends with the start of its SHA-256 in hex, so that two
// commands that differ only in what was replaced or cut keep two
// directories.
func fileName(name string) string {
	var b strings.Builder
	under := false
	for i, c := range name {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' && i > 0 {
			b.WriteRune(c)
			under = false
		} else if !under {
			b.WriteByte('_')
			under = true
		}
	}
	s := b.String()
	if s == name && len(s) <= 60 {
		return s
	}
	// A command's end tells rows apart more often than its start (the
	// interpreter, a common folder).
	sum := sha256.Sum256([]byte(name))
	return s[max(0, len(s)-60):] + "-" + hex.EncodeToString(sum[:4])
}

// sameBench says how stored, a result read back, differs from want, the
// row the benchmark would run: "" when it was taken under the same
// conditions (its run seeds and command aside).
func sameBench(stored, want *Result) string {
	type field struct {
		name      string
		got, want any
	}
	for _, f := range []field{
		{"problem", stored.Problem, want.Problem},
		{"block", stored.Block, want.Block},
		{"cell", stored.Cell, want.Cell},
		{"row", stored.Name(), want.Name()},
		{"target", stored.Target, want.Target},
		{"held_out_games", stored.HeldOut, want.HeldOut},
		{"budget_cpu_s", stored.Budget, want.Budget},
		{"budget_games", stored.BudgetGames, want.BudgetGames},
		{"grid_games", stored.Grid, want.Grid},
		{"full", stored.Full, want.Full},
		{"short", stored.Short, want.Short},
	} {
		if f.got != f.want {
			return fmt.Sprintf("its %s is %v, this benchmark's %v", f.name, f.got, f.want)
		}
	}
	return ""
}

// readStored reads a result the benchmark kept, if the file is there, and
// checks that it was taken under want's conditions.
func readStored(path string, want *Result) (Result, bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Result{}, false, nil
	}
	if err != nil {
		return Result{}, false, fmt.Errorf("tunebench: %w", err)
	}
	r, err := decodeResult(data)
	if err != nil {
		return Result{}, false, fmt.Errorf("tunebench: %s: %w", path, err)
	}
	if why := sameBench(&r, want); why != "" {
		return Result{}, false, fmt.Errorf("%w: %s: %s (a directory keeps one benchmark: give it the command that wrote it, or use another)", ErrOtherBench, path, why)
	}
	return r, true, nil
}

// storedSeed reads back run seed seed's result of row want, if kept.
func storedSeed(out string, want *Result, seed uint64) (Result, string, bool, error) {
	path := seedPath(out, want, seed)
	r, ok, err := readStored(path, want)
	if err != nil || !ok {
		return r, path, ok, err
	}
	if len(r.Runs) != 1 || r.Runs[0].Seed != seed {
		return r, path, false, fmt.Errorf("tunebench: %s: want the one run of run seed %d", path, seed)
	}
	return r, path, true, nil
}

// storedRow reads back row want, if it ended (finished or failed) on the
// same run seeds.
func storedRow(out string, want *Result) (Result, string, bool, error) {
	path := filepath.Join(rowDir(out, want), rowFile)
	r, ok, err := readStored(path, want)
	if err != nil || !ok || !slices.Equal(r.RunSeeds, want.RunSeeds) {
		// A row of other run seeds is made again, from the seeds' files.
		return r, path, false, err
	}
	return r, path, true, nil
}

// checkStored checks every file the row of p under o would read back.
func checkStored(p Problem, o Options) error {
	if o.Out == "" {
		return nil
	}
	if o.Confirm {
		if err := CheckConfirmSeeds(o.Seeds); err != nil {
			return fmt.Errorf("tunebench: %w", err)
		}
	}
	b, seeds := newBench(p, o)
	want := b.result()
	if err := checkLayout(o.Out, &want); err != nil {
		return err
	}
	if _, _, _, err := storedRow(o.Out, &want); err != nil {
		return err
	}
	for _, s := range seeds {
		if _, _, _, err := storedSeed(o.Out, &want, s); err != nil {
			return err
		}
	}
	return nil
}

// checkLayout refuses a problem's directory that holds rows of one budget
// to a row at a cell, and one that holds cells to a row of one budget: the
// two are other benchmarks, and their rows would never meet in a table.
func checkLayout(out string, want *Result) error {
	dir := problemDir(out, want)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("tunebench: %w", err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		isCell := cellName.MatchString(e.Name())
		switch {
		case want.Cell != "" && !isCell && holdsResults(filepath.Join(dir, e.Name())):
			return fmt.Errorf("%w: %s holds rows of one budget, not of cells, and this benchmark runs cell %s (a directory keeps one benchmark: give it the command that wrote it, or use another)",
				ErrOtherBench, filepath.Join(dir, e.Name()), want.Cell)
		case want.Cell == "" && isCell:
			return fmt.Errorf("%w: %s holds the rows of cell %s, and this benchmark runs at budgets of its own, not at cells (a directory keeps one benchmark: give it the command that wrote it, or use another)",
				ErrOtherBench, filepath.Join(dir, e.Name()), e.Name())
		}
	}
	return nil
}

// holdsResults reports whether dir holds a row's or a run seed's file.
func holdsResults(dir string) bool {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if name := e.Name(); name == rowFile || strings.HasPrefix(name, seedPrefix) && strings.HasSuffix(name, ".json") {
			return true
		}
	}
	return false
}

// store writes r to path atomically, its directory made first.
func store(path string, r *Result) error {
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("tunebench: %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("tunebench: %w", err)
	}
	return checkpoints.WriteFile(path, append(data, '\n'))
}

// decodeResult reads one Result, as the files of Options.Out hold it.
func decodeResult(data []byte) (Result, error) {
	var r Result
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&r); err != nil {
		return Result{}, jsonError(data, err)
	}
	if r.Problem == "" {
		return Result{}, errors.New(`no result: want one row's result ({"problem":...})`)
	}
	if err := r.check(); err != nil {
		return Result{}, err
	}
	return r, nil
}

// jsonError adds to a JSON syntax error its line.
func jsonError(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte{'\n'})
		return fmt.Errorf("line %d: %w", line, err)
	}
	return err
}

// ReadDir reads the results an Options.Out directory (or any directory
// below it) holds: each row's file, and for a row without one (a benchmark
// killed, or still running) its run seeds' files, as a row that says it is
// unfinished. They come development before confirmation, then by problem
// (the benchmark's order), then by cell, smallest first, then evotune,
// tuner settings of one's own and peers, each by name.
func ReadDir(dir string) ([]Result, error) {
	var out []Result
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		entries, err := os.ReadDir(path)
		if err != nil {
			return err
		}
		var seeds []Result
		var row *Result
		for _, e := range entries {
			name := e.Name()
			isSeed := strings.HasPrefix(name, seedPrefix) && strings.HasSuffix(name, ".json")
			if e.IsDir() || name != rowFile && !isSeed {
				continue
			}
			data, err := os.ReadFile(filepath.Join(path, name))
			if err != nil {
				return err
			}
			r, err := decodeResult(data)
			if err != nil {
				return fmt.Errorf("%s: %w", filepath.Join(path, name), err)
			}
			if name == rowFile {
				row = &r
			} else {
				seeds = append(seeds, r)
			}
		}
		switch {
		case row != nil:
			out = append(out, *row)
		case len(seeds) > 0:
			out = append(out, unfinished(seeds))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no results: want a directory of evotune tunebench --out", dir)
	}
	order := map[string]int{}
	for i, name := range Names() {
		order[name] = i
	}
	rank := func(name string) int {
		if i, ok := order[name]; ok {
			return i
		}
		return len(order)
	}
	kind := func(r *Result) int {
		switch {
		case r.Peer != "":
			return 2
		case r.Config != "":
			return 1
		}
		return 0
	}
	slices.SortStableFunc(out, func(a, b Result) int {
		return cmp.Or(
			cmp.Compare(blockRank(a.Block), blockRank(b.Block)),
			cmp.Compare(rank(a.Problem), rank(b.Problem)),
			strings.Compare(a.Problem, b.Problem),
			cmp.Compare(cellOf(a).Scale, cellOf(b).Scale),
			cmp.Compare(kind(&a), kind(&b)),
			strings.Compare(a.Name(), b.Name()),
		)
	})
	return out, nil
}

// blockRank puts development before confirmation.
func blockRank(block string) int {
	if block == Confirmation {
		return 1
	}
	return 0
}

// unfinished makes a row of the run seeds' results of a row that has no
// row file, in the order of their seeds.
func unfinished(seeds []Result) Result {
	slices.SortFunc(seeds, func(a, b Result) int { return cmp.Compare(a.Runs[0].Seed, b.Runs[0].Seed) })
	r := seeds[0]
	r.Runs, r.RunSeeds = nil, nil
	for _, s := range seeds {
		r.Runs = append(r.Runs, s.Runs...)
		r.RunSeeds = append(r.RunSeeds, s.Runs[0].Seed)
	}
	r.Error = fmt.Sprintf("%d run seeds kept (the benchmark was stopped, or is still running)", len(r.Runs))
	r.unfinished = true
	r.summarize()
	return r
}
