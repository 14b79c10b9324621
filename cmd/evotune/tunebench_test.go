package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestTunebenchShort runs the benchmark end to end in its short mode, as CI
// does: it checks that it works and prints what it documents, not how fast.
func TestTunebenchShort(t *testing.T) {
	code, out, errs := runCLI(t, "tunebench", "--short", "--problems", "standard-3,standard-5", "--seeds", "1,2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &top); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	if got := keys(top); !slices.Equal(got, []string{"command", "full", "problems", "short"}) {
		t.Fatalf("keys %v", got)
	}
	var ps []map[string]json.RawMessage
	if err := json.Unmarshal(top["problems"], &ps); err != nil || len(ps) != 2 {
		t.Fatalf("problems: %v, %s", err, top["problems"])
	}
	want := []string{"block", "budget_cpu_s", "budget_games", "command", "full", "grid_games", "held_out_games", "median_cpu_s", "median_final_ratio",
		"median_games", "problem", "reached", "run_seeds", "runs", "short", "start_mean", "target", "worst_drop", "worst_final_ratio"}
	if got := keys(ps[0]); !slices.Equal(got, want) {
		t.Fatalf("problem keys %v, want %v", got, want)
	}
	var runs []map[string]json.RawMessage
	if err := json.Unmarshal(ps[0]["runs"], &runs); err != nil || len(runs) != 2 {
		t.Fatalf("runs: %v, %s", err, ps[0]["runs"])
	}
	if got := keys(runs[0]); !slices.Equal(got, []string{"drop", "final", "max", "points", "reached", "seed", "stop"}) {
		t.Fatalf("run keys %v", got)
	}
	if _, ok := ps[0]["config"]; ok {
		t.Errorf("a problem run with its own settings names a config: %s", ps[0]["config"])
	}
	if !strings.Contains(errs, "standard-3  evotune  seed 1  grid 20  games ") {
		t.Errorf("no progress line on stderr: %q", errs)
	}

	code, out, errs = runCLI(t, "tunebench", "--short", "--seeds", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, s := range []string{"standard-3 (development): ", "nneonneo-cap1 (development): ", "CPU s to target", "median", "reached", "evotune tunebench --seeds 3 --short"} {
		if !strings.Contains(out, s) {
			t.Errorf("text output lacks %q:\n%s", s, out)
		}
	}

	// Tuner settings of one's own on a problem: its start and target stay.
	own := filepath.Join(t.TempDir(), "own.yaml")
	if err := os.WriteFile(own, []byte("name: own\nfeatures: standard\nsigma: 0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCLI(t, "tunebench", "--short", "--seeds", "1", "--problems", "standard-3", "--config", own, "--no-tuner")
	if code != 0 || !strings.Contains(out, "evotune, "+own+" ") || strings.Contains(out, "\nevotune ") {
		t.Errorf("--config: exit %d, stderr %q:\n%s", code, errs, out)
	}
}

func TestTunebenchBadFlags(t *testing.T) {
	dir := t.TempDir()
	withGenerations := filepath.Join(dir, "gens.yaml")
	if err := os.WriteFile(withGenerations, []byte("features: standard\ngenerations: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--config", withGenerations, "--problems", "standard-3,nneonneo-cap1"},
		{"--config", withGenerations, "--problems", "standard-3"},
		{"--config", filepath.Join(dir, "missing.yaml"), "--problems", "standard-3"},
		{"--problems", "nope"},
		{"--problems", "standard-3,standard-3"},
		{"--seeds", "1,x"},
		{"--seeds", "1,1"},
		{"--seeds", ""},
		{"--budget", "-1"},
		{"--budget", "NaN"},
		{"--budget-games", "-1"},
		{"--peer-idle", "0s"},
		{"--no-tuner"},
		{"--json", "--markdown"},
		{"--peer", ""},
		{"--peer", "'unclosed"},
		{"table"},
		{"table", "--short", "x.json"},
		{"table", filepath.Join(dir, "missing.json")},
		{"table", withGenerations},
		{"--workers", "-1"},
		{"--confirm", "--seeds", "101,3"},
		{"--confirm", "--seeds", "8"},
		{"--cells", "3x"},
		{"--cells", "16x", "--problems", "standard-3"},
		{"--cells", "1x,1x"},
		{"--cells", "all,1x"},
		{"--cells", "none,1x"},
		{"--cells", "1x", "--budget", "60"},
		{"--cells", "all", "--budget-games", "5000"},
		{"--json", "--curves"},
		{"--json", "--svg", dir},
		{"table", "--cells", "1x", "x.json"},
		{"table", dir},
		{"extra"},
		{"--nope"},
	} {
		code, out, errs := runCLI(t, append([]string{"tunebench"}, args...)...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and one line", args, code, out, errs)
		}
	}
	code, out, errs := runCLI(t, "tunebench", "--confirm", "--seeds", "101,3", "--short")
	if want := "evotune tunebench: flag --seeds: run seed 3 is one of the development seeds 1-8, on which settings are chosen; a confirmation plays others (default 101-108)\n"; code != 2 || errs != want {
		t.Errorf("a development seed under --confirm: exit %d, stderr %q; want %q", code, errs, want)
	}
	code, _, errs = runCLI(t, "tunebench", "--cells", "16x", "--problems", "standard-3,nneonneo-cap1", "--short")
	if want := "evotune tunebench: flag --cells: tunebench: no cell \"16x\" on standard-3 (its cells: 1x, 4x); all runs each problem's own\n"; code != 2 || errs != want {
		t.Errorf("a cell standard-3 lacks: exit %d, stderr %q; want %q", code, errs, want)
	}
	code, out, _ = runCLI(t, "tunebench", "-h")
	if code != 0 || !strings.Contains(out, `(default "1,2,3")`) || !strings.Contains(out, "CPU seconds") || !strings.Contains(out, "-confirm") || !strings.Contains(out, "-out DIR") ||
		!strings.Contains(out, "-cells LIST") || !strings.Contains(out, "nneonneo-cap1 5,000 games, standard-3 60 CPU s, snake16-2 10 CPU s") || !strings.Contains(out, "-svg DIR") {
		t.Errorf("tunebench -h: exit %d:\n%s", code, out)
	}
}

// TestTunebenchConfirmOut runs a development and a confirmation cell into
// one --out directory: the confirmation takes its own run seeds and block,
// says so in its JSON, and the directory renders both tables apart; run
// again under other conditions, the directory is refused.
func TestTunebenchConfirmOut(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, _, errs := runCLI(t, "tunebench", "--short", "--problems", "standard-3", "--seeds", "1", "--out", out)
	if code != 0 {
		t.Fatalf("development: exit %d: %s", code, errs)
	}
	code, js, errs := runCLI(t, "tunebench", "--short", "--problems", "standard-3", "--confirm", "--json", "--out", out)
	if code != 0 {
		t.Fatalf("confirmation: exit %d: %s", code, errs)
	}
	var top struct {
		Problems []struct {
			Block    string   `json:"block"`
			Cell     string   `json:"cell"`
			RunSeeds []uint64 `json:"run_seeds"`
			Runs     []any    `json:"runs"`
		} `json:"problems"`
	}
	// Without a budget of its own, a confirmation plays every cell of the
	// problem.
	if err := json.Unmarshal([]byte(js), &top); err != nil || len(top.Problems) != 2 {
		t.Fatalf("%v: %s", err, js)
	}
	for i, p := range top.Problems {
		if p.Block != "confirmation" || !slices.Equal(p.RunSeeds, []uint64{101, 102, 103, 104, 105, 106, 107, 108}) || len(p.Runs) != 8 || p.Cell != []string{"1x", "4x"}[i] {
			t.Errorf("block %q, cell %q, run seeds %v, %d runs; want confirmation on 101-108 at 1x then 4x", p.Block, p.Cell, p.RunSeeds, len(p.Runs))
		}
	}
	code, table, errs := runCLI(t, "tunebench", "table", "--markdown", out)
	dev, conf := strings.Index(table, "#### standard-3 (development)"), strings.Index(table, "#### standard-3, 1×: 120 games (confirmation)")
	if code != 0 || dev < 0 || conf < dev || !strings.Contains(table, "held-out games of the confirmation block") || !strings.Contains(table, "run seeds 101–108, no setting chosen on them") {
		t.Errorf("table of the directory: exit %d, stderr %q:\n%s", code, errs, table)
	}
	code, _, errs = runCLI(t, "tunebench", "--short", "--problems", "standard-3", "--seeds", "1", "--out", out, "--budget-games", "40")
	if code != 2 || !strings.Contains(errs, "flag --out: tunebench: a result of another benchmark: ") || !strings.Contains(errs, "its budget_games is 120, this benchmark's 40") {
		t.Errorf("another benchmark into the directory: exit %d, stderr %q", code, errs)
	}
	// A confirmation of one budget into the directory of its cells.
	code, _, errs = runCLI(t, "tunebench", "--short", "--problems", "standard-3", "--confirm", "--budget", "60", "--out", out)
	if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "flag --out: tunebench: a result of another benchmark: ") || !strings.Contains(errs, "holds the rows of cell 1x") {
		t.Errorf("one budget into a directory of cells: exit %d, stderr %q", code, errs)
	}
}

// TestTunebenchEveryCell runs the command the tables come from,
// in short mode: --confirm alone plays every cell of the default
// problems, --problems with snake16-2 its cells too; each cell is a table
// with its curves and chart, each problem answers whether more time
// helped, and the same command resumes from --out without running a row.
func TestTunebenchEveryCell(t *testing.T) {
	dir := t.TempDir()
	out, charts := filepath.Join(dir, "out"), filepath.Join(dir, "charts")
	args := []string{"tunebench", "--short", "--confirm", "--seeds", "101,102", "--markdown", "--out", out, "--svg", charts}
	code, md, errs := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	titles := []string{"#### standard-3 (confirmation): does more time help?", "#### standard-3, 1×: 120 games (confirmation)", "#### standard-3, 4×: 480 games (confirmation)",
		"#### nneonneo-cap1 (confirmation): does more time help?", "#### nneonneo-cap1, 1×: 120 games (confirmation)", "#### nneonneo-cap1, 4×: 480 games (confirmation)",
		"#### nneonneo-cap1, 16×: 1,920 games (confirmation)"}
	at := -1
	for _, title := range titles {
		i := strings.Index(md, title)
		if i <= at {
			t.Errorf("%q missing or out of order:\n%s", title, md)
		}
		at = i
	}
	files, _ := os.ReadDir(charts)
	if len(files) != 5 {
		t.Errorf("%d charts in --svg, want one a cell", len(files))
	}
	for _, f := range files {
		if !strings.Contains(md, "]("+charts+"/"+f.Name()+")") {
			t.Errorf("the tables do not show %s", f.Name())
		}
	}
	if n := strings.Count(md, "| evotune | median |"); n != 5 {
		t.Errorf("%d curves, want one a cell", n)
	}
	code, again, errs := runCLI(t, args...)
	if code != 0 || again != md || strings.Count(errs, "row read back") != 5 || strings.Contains(errs, " grid ") {
		t.Errorf("the same command again: exit %d, %d rows read back, output the same %v; stderr %q", code, strings.Count(errs, "row read back"), again == md, errs)
	}
	code, md, errs = runCLI(t, "tunebench", "--short", "--confirm", "--seeds", "101", "--problems", "standard-3,nneonneo-cap1,snake16-2", "--markdown")
	if code != 0 || !strings.Contains(md, "#### snake16-2, 4×: 480 games (confirmation)") || strings.Count(md, "does more time help?") != 3 {
		t.Errorf("with snake16-2: exit %d, stderr %q:\n%s", code, errs, md)
	}
	// An output saved before cells: its curves when asked.
	code, md, errs = runCLI(t, "tunebench", "table", "--markdown", "--curves", filepath.Join("..", "..", "tuner", "tunebench", "testdata", "results", "conf-g1-nneonneo-cap1-today.json"))
	if code != 0 || !strings.Contains(md, "Held-out ratio at every 1,000 games") || strings.Contains(md, "1×") {
		t.Errorf("table --curves of an older output: exit %d, stderr %q:\n%s", code, errs, md)
	}
}

// shPeer is a peer optimizer in POSIX shell for standard-3: it asks for
// games at its start (the weights it is given as $1) and recommends them
// when asked, and at the stop.
const shPeer = `p='{"monotonicity":47,"smoothness":11,"empty":270,"corner":100,"merge":'$1'}'
read hello
while :; do
  echo '{"params":'"$p"',"games":4,"first":0}'
  read a || exit 0
  case $a in *'"stop"'*) echo '{"recommend":'"$p"',"final":true}'; read a; exit 0;; esac
  case $a in *'"recommend":true'*) echo '{"recommend":'"$p"'}'; read a;; esac
done
`

// TestTunebenchPeersTable runs the tuner and two peers side by side, then
// renders the same table from the saved JSON output.
func TestTunebenchPeersTable(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the peer is a POSIX shell script")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh for the peer script")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "peer.sh")
	if err := os.WriteFile(script, []byte(shPeer), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"tunebench", "--short", "--problems", "standard-3", "--seeds", "1,2",
		"--peer", sh + " " + script + " 70", "--peer", sh + " " + script + " 140"}
	code, out, errs := runCLI(t, append(args, "--markdown")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"| evotune | **×", "| `" + sh + " " + script + " 70` | **×", "| `" + sh + " " + script + " 140` | **×",
		"evotune tunebench --markdown --peer '" + sh + " " + script + " 70' --peer '" + sh + " " + script + " 140' --problems standard-3 --seeds 1,2 --short"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	code, saved, errs := runCLI(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errs)
	}
	file := filepath.Join(dir, "out.json")
	if err := os.WriteFile(file, []byte(saved), 0o644); err != nil {
		t.Fatal(err)
	}
	code, table, errs := runCLI(t, "tunebench", "table", "--markdown", file)
	if code != 0 {
		t.Fatalf("table: exit %d: %s", code, errs)
	}
	// The same table but for the command it records: --json for --markdown.
	if want := strings.Replace(out, "tunebench --markdown --peer", "tunebench --json --peer", 1); table != want {
		t.Errorf("table of the saved output:\n%s\nwant the run's own:\n%s", table, want)
	}
}
