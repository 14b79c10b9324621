package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/evotune/evotune/checkpoints"
	"github.com/evotune/evotune/tuner"
)

// DefaultFile is the report's name in a run directory: Write's default.
const DefaultFile = "report.html"

// Write reads the run in dir and replaces the file at path (DIR/report.html
// when path is "") with its report, atomically: a reader sees the old page
// or the new one. It is safe to call while the run goes on, from the
// process running it or another. The validated figures come from the
// newest checkpoint, so the process running the tuner calls it once a
// generation's checkpoint is saved (tuner.Events.Generation), not from
// tuner.Events.Validation, which fires before the save.
func Write(dir, path string) error {
	r, err := Load(dir)
	if err != nil {
		return err
	}
	if path == "" {
		path = filepath.Join(dir, DefaultFile)
	}
	return r.WriteFile(path)
}

// WriteFile replaces the file at path with the run's report, atomically.
func (r *Run) WriteFile(path string) error {
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		return err
	}
	if err := checkpoints.WriteFile(path, buf.Bytes()); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// WriteHTML writes the run's report page to w.
func (r *Run) WriteHTML(w io.Writer) error {
	p, err := r.page()
	if err != nil {
		return err
	}
	return pageTemplate.Execute(w, p)
}

// page is what the template shows.
type page struct {
	Name, Dir   string
	Status      string
	Finished    bool
	Facts       [][2]string
	Notices     []string
	Comparison  *comparison
	Charts      []drawnChart
	WeightRows  []weightRow
	Recommended recommended
	Commands    [][2]string
	Config      string
	// Word is what a coordinate of the tuned vector is called, weight or
	// parameter; ChangeHead heads the column of changes in the tuner's unit.
	Word, ChangeHead string
}

type drawnChart struct {
	ID, Title, Caption string
	SVG                template.HTML
	Side               []weightRow // a table beside the picture
	Below              *table      // a table under the caption
}

type comparison struct {
	Metric     string
	Start, End validationRow
	Diff       string
	Reach      string
}

type validationRow struct {
	Label, Generation, Fitness, Mean, Median, Games string
}

type weightRow struct {
	Name, Start, Latest, Change string
}

type recommended struct {
	What string
	// Story is what the exported file says of the weights, line by line
	// (key, text): tuner.Story's lines. After points to the race that
	// chose them.
	Story [][2]string
	After string
	Rows  []weightRow
}

func (r *Run) page() (*page, error) {
	cfg := r.Config
	p := &page{Name: cfg.Name, Dir: r.Dir, Notices: r.Notices, Word: r.vectorWord(), ChangeHead: r.changeHead()}
	s := r.State
	var last *Generation
	if n := len(r.History); n > 0 {
		last = &r.History[n-1]
	}
	p.Status, p.Finished = r.Status(), s.Finished != ""

	p.Facts = [][2]string{
		{"run directory", r.Dir},
		{"status", p.Status},
		{"generations completed", generations(s.Generation, cfg.Generations)},
	}
	p.Facts = append(p.Facts, r.gamesFacts()...)
	if elapsed, cpu := r.clock(); elapsed > 0 {
		p.Facts = append(p.Facts, [2]string{"wall time", roundSeconds(elapsed)})
		if cpu > 0 {
			p.Facts = append(p.Facts, [2]string{"CPU time", cpuFact(cpu, elapsed)})
		}
	}
	if last != nil {
		p.Facts = append(p.Facts,
			[2]string{"candidates per generation (λ)", strconv.Itoa(last.Lambda)},
			[2]string{"evaluations", strconv.Itoa(last.Evaluations)})
		if last.Restarts > 0 {
			p.Facts = append(p.Facts, [2]string{"IPOP restarts", strconv.Itoa(last.Restarts)})
		}
	}
	p.Facts = append(p.Facts,
		[2]string{"optimizer", fmt.Sprintf("%s, σ₀ %s, restarts %s", cfg.Optimizer.Method, num(cfg.Sigma), cfg.Optimizer.Restarts)},
		[2]string{"search", r.searchFact()})
	if r.player() != nil {
		// The player searches as it does: the config's search is not its.
		p.Facts = append(p.Facts[:len(p.Facts)-1], r.playerFacts()...)
	}
	p.Facts = append(p.Facts,
		[2]string{"fitness", fmt.Sprintf("%s over the generation's common games, the same seeds for every candidate", r.Metric)},
		[2]string{"recommendation", r.recommendationFact()},
		[2]string{"checkpoint read", r.checkpointFact()})

	p.Comparison = r.comparison()

	for _, c := range r.charts() {
		svg, err := c.svg()
		if err != nil {
			return nil, err
		}
		dc := drawnChart{ID: c.ID, Title: c.Title, Caption: c.Caption, SVG: template.HTML(svg)}
		switch c.ID {
		case "weights":
			dc.Side = r.weightRows()
		case "fitness":
			dc.Below = r.storyTable()
		}
		p.Charts = append(p.Charts, dc)
	}

	var values []float64
	var err error
	p.Recommended, values = r.recommended()
	p.Commands = r.commands(values)
	if p.Config, err = r.configText(); err != nil {
		return nil, err
	}
	return p, nil
}

// checkpointFact names the files the state was read from: the checkpoint,
// and the start's validation where it came from the run's record of it.
func (r *Run) checkpointFact() string {
	if r.StartKept != "" {
		return r.Checkpoint + "; the start's validation: " + r.StartKept
	}
	return r.Checkpoint
}

// recommendationFact says in one line how the run chooses what it
// recommends.
func (r *Run) recommendationFact() string {
	v := r.Config.Validation
	if legacy(r.decisions()) {
		s := fmt.Sprintf("validation every %d generations on %d held-out games (an evotune before the final race)", v.Every, v.Games)
		if v.Recommend != "" {
			s += "; recommend: " + v.Recommend
		}
		if v.Fallback > 0 {
			s += fmt.Sprintf("; fallback at %v", v.Fallback)
		}
		return s
	}
	short, _ := tuner.RecommendationRule(r.Config)
	return fmt.Sprintf("at each stage's end, %s, validated on %d held-out games", short, v.Games)
}

// searchFact names the search the candidates play with: in a ladder, each
// stage's, the current one marked; and the validation's where the config
// fixes it.
func (r *Run) searchFact() string {
	cfg := r.Config
	s := cfg.Search.String()
	if len(cfg.Stages) > 0 {
		parts := make([]string, len(cfg.Stages))
		for i, st := range cfg.Stages {
			parts[i] = fmt.Sprintf("stage %d: %s", i+1, st.Search)
			if i == r.State.Stage && r.State.Finished == "" && len(cfg.Stages) > 1 {
				parts[i] += " (now)"
			}
		}
		s = strings.Join(parts, "; ")
	}
	if v := cfg.Validation.Search; v != nil {
		s += "; validation: " + v.String()
	}
	return s
}

// Status says in one line whether the run finished and why. Whether an
// unfinished run is still going on cannot be told without taking its lock,
// which a report must not do.
func (r *Run) Status() string {
	switch {
	case r.State.Finished != "":
		return "finished: " + r.State.Finished
	case r.State.Generation == 0 && len(r.History) == 0:
		return "started: no generation completed yet"
	}
	return "not finished: running now, or interrupted (evotune resume continues it)"
}

func generations(done, limit int) string {
	if limit > 0 {
		return fmt.Sprintf("%d of %d", done, limit)
	}
	return fmt.Sprintf("%d (no generation limit)", done)
}

// weightRows is the table beside the weights chart: start and latest mean.
func (r *Run) weightRows() []weightRow {
	last := r.History[len(r.History)-1]
	var rows []weightRow
	for _, name := range r.weightNames() {
		w, ok := last.Weights[name]
		rows = append(rows, r.weightRow(name, w, ok))
	}
	return rows
}

// weightRow is one row of a weights table: name's start value, its value w
// (when ok) and the change between them in the optimizer's unit; "—" for
// what is not known.
func (r *Run) weightRow(name string, w float64, ok bool) weightRow {
	row := weightRow{Name: name, Start: "—", Latest: "—", Change: "—"}
	w0, ok0 := r.startWeight(name)
	if ok0 {
		row.Start = num(r.asPlayed(name, w0))
	}
	if ok {
		row.Latest = num(r.asPlayed(name, w))
		if ok0 {
			row.Change = signed((w - w0) / r.scale(name, w0))
		}
	}
	return row
}

// recommended returns the table of recommended values and the values, in
// Features' order: what evotune export writes now, told as its file tells
// it (the run's Story); for a report made up without a tuner, the
// validated recommendation.
func (r *Run) recommended() (recommended, []float64) {
	var rec recommended
	var weights []float64
	switch v, st := r.State.Validated, r.Story; {
	case st != nil:
		rec.What = "What evotune export writes now, and what the file it writes says of it:"
		for _, l := range st.Lines() {
			k, text, _ := strings.Cut(l, ": ")
			rec.Story = append(rec.Story, [2]string{k, text})
		}
		if st.V != nil {
			weights = st.V.Weights
			rec.After = r.raceNote(st.V)
		} else {
			weights = st.Starts
		}
	case v != nil:
		rec.What = r.recommendedText(v)
		weights = v.Weights
	case r.State.Start != nil:
		rec.What = "No generation has been validated yet: these are the starting weights."
		weights = r.State.Start.Weights
	default:
		rec.What = "Nothing validated yet, not even the starting weights: these are the starting weights from the config."
		for _, name := range r.Features {
			w, _ := r.startWeight(name)
			weights = append(weights, w)
		}
	}
	if r.player() != nil {
		rec.What = strings.ReplaceAll(rec.What, "weights", "parameters")
	}
	for i, name := range r.Features {
		if i >= len(weights) {
			break
		}
		rec.Rows = append(rec.Rows, r.weightRow(name, weights[i], true))
	}
	return rec, weights
}

// raceNote points to the final race that chose the validated weights v,
// "" where none did.
func (r *Run) raceNote(v *tuner.Validation) string {
	d := r.lastFinal(v)
	if v.Games == 0 || d == nil || d.V.Race == nil {
		return ""
	}
	return fmt.Sprintf("The table under the fitness chart tells the final race that chose them, after generation %d: %d entrants on up to %d games of their own.", d.Generation, len(d.V.Race.Entrants), d.V.Race.Games)
}

// pending says an export now writes weights not yet validated, as it does
// in a stage under way.
func (r *Run) pending() bool { return r.Story != nil && r.Story.V != nil && !r.Story.Validated() }

func (r *Run) commands(values []float64) [][2]string {
	dir := quote(r.Dir)
	s := r.State
	var cmds [][2]string
	if s.Finished == "" {
		cmds = append(cmds, [2]string{"continue the run if it was interrupted (exactly where it stopped)", "evotune resume " + dir})
	} else {
		more := max(2*s.Generation, s.Generation+10)
		cmd := [2]string{"continue a finished run with a higher limit", fmt.Sprintf("evotune resume %s --generations %d", dir, more)}
		if elapsed, _ := r.clock(); s.EndedByDuration() && elapsed > 0 {
			spent := seconds(elapsed)
			cmd = [2]string{"continue a run its duration ended with an hour more (the budget counts the time spent)", fmt.Sprintf("evotune resume %s --duration %v", dir, tuner.HourMore(spent))}
		}
		cmds = append(cmds, cmd)
	}
	cmds = append(cmds,
		[2]string{"write the recommended " + r.vectorWord() + "s to " + tuner.WeightsFile + " in the run directory (at any time)", "evotune export " + dir})
	// An ended stage's winner, for an engine that plays with its search.
	stages := r.Config.StageList()
	done := 0 // stages whose command is given: a stopped stage that went on has two lines
	for _, g := range r.History {
		if g.Validation != nil && g.Stage > done && g.Stage < len(stages) {
			done = g.Stage
			st := stages[g.Stage-1]
			cmds = append(cmds, [2]string{fmt.Sprintf("write stage %s's winner (tuned for %s) to weights-%s.yaml", st.Name, st.Search, st.Name), "evotune export " + dir + " --stage " + st.Name})
		}
	}
	cmds = append(cmds,
		r.playCmd(values),
		[2]string{"reproduce the run from scratch (same seed, same results)", "evotune tune --config " + quote(filepath.Join(r.Dir, tuner.ConfigFile)) + " --out " + quote(filepath.Clean(r.Dir)+"-again")},
		[2]string{"rewrite this report", "evotune report " + dir},
	)
	return cmds
}

// playCmd is the command that plays the recommended values on fresh games.
func (r *Run) playCmd(values []float64) [2]string {
	if r.player() != nil {
		return [2]string{"play the recommended parameters on fresh games", r.playCommand(r.Features, values)}
	}
	return [2]string{"play them on fresh games", "evotune play --weights " + quote(filepath.Join(r.Dir, tuner.WeightsFile)) + " --games 100"}
}

// num formats a figure with at most 4 significant digits after the point
// and none for large numbers, so tables stay readable.
func num(x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return strconv.FormatFloat(x, 'g', -1, 64)
	case math.Abs(x) >= 1000:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case x == 0:
		return "0"
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

func signed(x float64) string {
	s := num(x)
	if x > 0 {
		s = "+" + s
	}
	return strings.Replace(s, "-", "−", 1)
}

var pageTemplate = template.Must(template.New("page").Parse(pageHTML))

// cpuFact writes a run's CPU time with the cores it kept busy on average:
// the evotune processes' CPU, which is what a result costs on a shared
// machine.
func cpuFact(cpu, elapsed float64) string {
	d := roundSeconds(cpu)
	if elapsed <= 0 {
		return d
	}
	return fmt.Sprintf("%s (%.2f cores on average)", d, cpu/elapsed)
}

// roundSeconds writes a history's seconds as a duration to the second.
func roundSeconds(s float64) string { return seconds(s).Round(time.Second).String() }

// seconds converts a history's seconds (elapsed_s, cpu_s) to a duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
