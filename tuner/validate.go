package tuner

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/engine/stats"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/population"
)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]*$`)

// Validate checks a resolved config (see Resolve) and returns the first
// problem, naming the field, its line in the file the config came from (if
// it came from one) and what is allowed.
func (c *Config) Validate() error {
	switch {
	case !nameRE.MatchString(c.Name) || len(c.Name) > 100:
		return c.errorf("name", "%q: want 1 to 100 letters, digits, '.', '_' or '-', not starting with '.' or '-'", c.Name)
	case c.Generations < 0:
		return c.errorf("generations", "%d: want 0 (no limit) or more", c.Generations)
	case c.Duration < 0:
		return c.errorf("duration", "%v: want 0 (no limit) or a positive duration", time.Duration(c.Duration))
	case c.Workers < 0:
		return c.errorf("workers", "%d: want 0 (one per core) or more", c.Workers)
	}
	if c.Player != nil {
		if err := c.validatePlayer(); err != nil {
			return err
		}
		return c.validateRest()
	}
	set, err := c.FeatureSet()
	if err != nil {
		return c.errorf("features", "unknown feature set %q (known: %s)", c.SetName, strings.Join(eval.Names(), ", "))
	}
	if c.Set != nil {
		if err := c.Set.Check(); err != nil {
			return c.errorf("features", "%v", err)
		}
		if c.SetName != c.Set.Name {
			return c.errorf("features", "%q, but the config's feature set is %s", c.SetName, c.Set.Name)
		}
	}
	unknown := func(k string) string {
		if len(set.Params) == 0 {
			return fmt.Sprintf("unknown feature %q of %s (features: %s)", k, set.Name, strings.Join(set.FeatureNames(), ", "))
		}
		return fmt.Sprintf("unknown feature or parameter %q of %s (features: %s; parameters: %s)", k, set.Name, strings.Join(set.FeatureNames(), ", "), strings.Join(set.ParamNames(), ", "))
	}
	for _, k := range sortedKeys(c.Init) {
		if set.Index(k) < 0 && set.ParamIndex(k) < 0 {
			return c.errorf("init."+k, "%s", unknown(k))
		}
		if i := set.ParamIndex(k); i >= 0 {
			if q := set.Params[i]; !(c.Init[k] >= q.Min && c.Init[k] <= q.Max) {
				return c.errorf("init."+k, "%v: want a value of the parameter in [%v, %v]", c.Init[k], q.Min, q.Max)
			}
		}
	}
	for _, k := range sortedKeys(c.Bounds) {
		b := c.Bounds[k]
		field := "bounds." + k
		if set.Index(k) < 0 && set.ParamIndex(k) < 0 {
			return c.errorf(field, "%s", unknown(k))
		}
		if len(b) != 2 || !(b[0] < b[1]) {
			return c.errorf(field, "%v: want [lower, upper] with lower < upper", b)
		}
		if i := set.ParamIndex(k); i >= 0 {
			if q := set.Params[i]; b[0] < q.Min || b[1] > q.Max {
				return c.errorf(field, "[%v, %v]: want bounds within the parameter's own [%v, %v]", b[0], b[1], q.Min, q.Max)
			}
		}
		if x, ok := c.Init[k]; ok && (x < b[0] || x > b[1]) {
			return c.errorf(field, "[%v, %v] does not contain the starting weight %v", b[0], b[1], x)
		}
	}
	if err := c.validateRest(); err != nil {
		return err
	}
	for _, st := range c.StageList() { // a held reference weight's sign
		if st.Search != nil {
			if _, err := setCoordinates(c, set, *st.Search); err != nil {
				return err
			}
		}
	}
	return nil
}

// validateRest checks what a run of a feature set and one of a player
// share: everything after what is tuned.
func (c *Config) validateRest() error {
	if !(c.Sigma > 0 && c.Sigma <= 10) {
		return c.errorf("sigma", "%v: want a step size in (0, 10], relative to each weight's scale", c.Sigma)
	}
	o := c.Optimizer
	if _, err := population.ParseMethod(o.Method); err != nil {
		return c.errorf("optimizer.method", "%q: want %s", o.Method, population.MethodList())
	}
	switch {
	case o.Population < 0 || o.Population == 1:
		return c.errorf("optimizer.population", "%d: want 0 (the method's default) or at least 2 candidates", o.Population)
	case !(o.Elite > 0 && o.Elite < 1):
		return c.errorf("optimizer.elite", "%v: want a fraction in (0, 1)", o.Elite)
	case o.Restarts != string(population.NoRestarts) && o.Restarts != string(population.IPOP):
		return c.errorf("optimizer.restarts", "%q: want none or ipop", o.Restarts)
	case o.LRAdapt && o.Method != string(population.MethodCMAES):
		return c.errorf("optimizer.lr_adapt", "true with method %s: learning rate adaptation is CMA-ES's (method: cmaes)", o.Method)
	case o.Settle && o.Method != string(population.MethodCMAES):
		return c.errorf("optimizer.settle", "true with method %s: settling is CMA-ES's (method: cmaes)", o.Method)
	case o.Settle && o.LRAdapt:
		return c.errorf("optimizer.settle", "true with lr_adapt: true: both scale the updates, choose one")
	case o.Mirrored && o.Method != string(population.MethodCMAES):
		return c.errorf("optimizer.mirrored", "true with method %s: mirrored sampling is CMA-ES's (method: cmaes)", o.Method)
	}
	if err := checkSearch(c.Search, "search", c); err != nil {
		return err
	}
	if v := c.Validation.Search; v != nil {
		if err := checkSearch(*v, "validation.search", c); err != nil {
			return err
		}
	}
	f := c.Fitness
	if f.Games < 1 {
		return c.errorf("fitness.games", "%d: want at least 1 game per candidate", f.Games)
	}
	if _, err := ParseMetric(f.Metric); err != nil {
		return c.errorf("fitness.metric", "%v", err)
	}
	if f.MaxMoves < 0 {
		return c.errorf("fitness.max_moves", "%d: want 0 (no limit) or more", f.MaxMoves)
	}
	if c.Validation.Every < 1 {
		return c.errorf("validation.every", "%d: want at least 1 generation", c.Validation.Every)
	}
	if c.Validation.Games < 2 {
		return c.errorf("validation.games", "%d: want at least 2 games (a confidence interval needs two)", c.Validation.Games)
	}
	if err := c.validateLegacy(); err != nil {
		return err
	}
	v := c.Validation
	switch {
	case v.Average < 1 || v.Average > maxAverage:
		return c.errorf("validation.average", "%d: want 1 (the latest mean) to %d of the stage's last means to average", v.Average, maxAverage)
	case v.Select < 0 || v.Select == 1 || v.Select > 1<<20:
		return c.errorf("validation.select", "%d: want 0 (no race) or 2 to %d games an entrant of the final race (absent: %d)", v.Select, 1<<20, DefaultSelectGames)
	case v.Finalists < 0 || v.Finalists > maxFinalists:
		return c.errorf("validation.finalists", "%d: want 0 to %d earlier means racing at a stage's end", v.Finalists, maxFinalists)
	case v.Finalists > 0 && v.Select == 0:
		return c.errorf("validation.finalists", "%d with select: 0: there is no race for them (give select, or leave finalists out)", v.Finalists)
	case v.Finalists == 0 && c.written("validation.every"):
		return c.errorf("validation.every", "%d without finalists: every spaces the earlier means that race (give finalists, or leave every out)", v.Every)
	case v.Spacing != "" && v.Spacing != SpacingEven && v.Spacing != SpacingDoubling:
		return c.errorf("validation.spacing", "%q: want %s (every `every` generations) or %s (generations 1, 2, 4, 8, ... of the stage)", v.Spacing, SpacingEven, SpacingDoubling)
	case v.Spacing != "" && v.Finalists == 0:
		return c.errorf("validation.spacing", "%s without finalists: spacing places the earlier means that race (give finalists, or leave spacing out)", v.Spacing)
	case v.Spacing == SpacingDoubling && c.written("validation.every"):
		return c.errorf("validation.every", "%d with spacing: doubling, which keeps finalists at generations 1, 2, 4, 8, ... (leave every out, or give spacing: even)", v.Every)
	case v.Model && v.Select == 0:
		return c.errorf("validation.model", "true with select: 0: the model's point is an entrant of the final race, and there is none (give select, or leave model out)")
	}
	if c.Checkpoints.Keep < 1 {
		return c.errorf("checkpoints.keep", "%d: want at least 1", c.Checkpoints.Keep)
	}
	if err := c.validateNoise(); err != nil {
		return err
	}
	return c.validateStages()
}

// validateLegacy refuses the keys of the recommendation rules the final
// race replaced, naming what a config says now.
func (c *Config) validateLegacy() error {
	v := c.Validation
	switch {
	case v.Recommend != "":
		return c.errorf("validation.recommend", "%q: no longer a setting: every stage recommends the average of its last means (validation.average), raced against its start (validation.select); delete the line", v.Recommend)
	case v.Patience != 0:
		return c.errorf("validation.patience", "%d: no longer a setting (it stopped runs of recommend: best, which the final race replaced); delete the line", v.Patience)
	case v.Fallback != 0:
		return c.errorf("validation.fallback", "%v: no longer a setting: no mean is measured before the stage's end, so there is nothing to fall back on; the final race keeps the stage's start in the running, and earlier means with validation.finalists; delete the line", v.Fallback)
	}
	return nil
}

// written reports whether the file the config came from gives the key at
// path field; false for a config built in Go, and for a checkpoint's,
// which is resolved and so gives every key.
func (c *Config) written(field string) bool {
	if c.lines == nil || c.checkpointed {
		return false
	}
	_, ok := c.lines.Line(field)
	return ok
}

func (c *Config) validateNoise() error {
	n := &c.Noise
	if !n.Handling {
		// Keys that change nothing without noise handling: a slip, most
		// likely, for a run that meant to have it.
		switch {
		case n.Games != nil:
			return c.errorf("noise.games", "%v with handling: false: bounds of the games a candidate, which only noise handling sets (fitness.games is every candidate's; give handling: true or leave games out)", n.Games)
		case n.Reevaluate != 0:
			return c.errorf("noise.reevaluate", "%v with handling: false: only noise handling replays candidates (give handling: true or leave reevaluate out)", n.Reevaluate)
		case !n.Racing && c.written("noise.block"):
			return c.errorf("noise.block", "%d with handling and racing off: nothing plays games in blocks (give racing: true or leave block out)", n.Block)
		}
	}
	if n.Block < 1 || n.Block > 1024 {
		return c.errorf("noise.block", "%d: want 1 to 1024 games per block", n.Block)
	}
	if n.Games != nil {
		g := n.Games
		switch {
		case len(g) != 2:
			return c.errorf("noise.games", "%v: want [least, most] games per candidate", g)
		case g[0] < n.Block || g[0] > g[1]:
			return c.errorf("noise.games", "%v: want least ≥ block (%d) and least ≤ most", g, n.Block)
		case g[0]%n.Block != 0 || g[1]%n.Block != 0:
			return c.errorf("noise.games", "%v: want multiples of the block (%d games)", g, n.Block)
		case g[1] > 1<<20:
			return c.errorf("noise.games", "%v: want at most %d games per candidate", g, 1<<20)
		}
	}
	if !(n.Reevaluate >= 0 && n.Reevaluate <= maxReevaluated) {
		return c.errorf("noise.reevaluate", "%v: want 0 (2 + λ/20) or a number of candidates up to %d", n.Reevaluate, maxReevaluated)
	}
	return nil
}

// validateStages checks the stages of a resolved config: each value in the
// range of its top-level key, names unique, and a budget for every stage but
// the last (which may run until the run's own limits).
func (c *Config) validateStages() error {
	if c.Stages == nil {
		return nil
	}
	if len(c.Stages) == 0 {
		return c.errorf("stages", "an empty list: want at least one stage, or leave the key out for one stage of the top-level search")
	}
	seen := map[string]int{}
	for i, st := range c.Stages {
		field := func(key string) string { return StageField(i, key) }
		if !nameRE.MatchString(st.Name) || len(st.Name) > 100 {
			return c.errorf(field("name"), "%q: want 1 to 100 letters, digits, '.', '_' or '-', not starting with '.' or '-'", st.Name)
		}
		if j, ok := seen[st.Name]; ok {
			return c.errorf(field("name"), "%q: the name of stage %d too; want a name of its own", st.Name, j+1)
		}
		seen[st.Name] = i
		if st.Search == nil {
			return c.errorf(field("search"), "missing (Resolve gives every stage its search)")
		}
		if err := checkSearch(*st.Search, strings.TrimSuffix(field("search"), "."), c); err != nil {
			return err
		}
		switch {
		case st.Games < 1:
			return c.errorf(field("games"), "%d: want at least 1 game per candidate", st.Games)
		case st.Population < 0 || st.Population == 1:
			return c.errorf(field("population"), "%d: want 0 (the method's default) or at least 2 candidates", st.Population)
		case !(st.Sigma > 0 && st.Sigma <= 10):
			return c.errorf(field("sigma"), "%v: want a step size in (0, 10], relative to each weight's scale", st.Sigma)
		case st.Generations < 0 || st.Generations == 0 && c.writtenZero(field("generations")):
			return c.errorf(field("generations"), "%d: want at least 1 generation (leave the key out for no generation budget)", st.Generations)
		case st.Duration < 0 || st.Duration == 0 && c.writtenZero(field("duration")):
			return c.errorf(field("duration"), "%v: want a positive duration (leave the key out for no time budget)", time.Duration(st.Duration))
		case i < len(c.Stages)-1 && st.Generations == 0 && st.Duration == 0:
			return c.errorf(strings.TrimSuffix(field(""), "."), "stage %q has no budget: every stage but the last needs generations or duration (or both) to end", st.Name)
		}
	}
	return nil
}

// A Metric turns a candidate's games into its fitness (larger is better).
type Metric struct {
	Kind string // mean_score, median_score, mean_log_score or reach
	Tile int    // for reach
}

// ParseMetric reads mean_score, median_score, mean_log_score or reach:TILE.
func ParseMetric(s string) (Metric, error) {
	switch s {
	case "mean_score", "median_score", "mean_log_score":
		return Metric{Kind: s}, nil
	}
	if t, ok := strings.CutPrefix(s, "reach:"); ok {
		tile, err := strconv.Atoi(t)
		if err == nil && tile >= 4 && tile <= 32768 && tile&(tile-1) == 0 {
			return Metric{Kind: "reach", Tile: tile}, nil
		}
	}
	return Metric{}, fmt.Errorf("%q: want mean_score, median_score, mean_log_score or reach:TILE (TILE a power of two from 4 to 32768)", s)
}

func (m Metric) String() string {
	if m.Kind == "reach" {
		return fmt.Sprintf("reach:%d", m.Tile)
	}
	return m.Kind
}

// Value computes the metric over games: the mean of the games' utilities,
// or their median for median_score, summing in index order so that equal
// inputs give equal bits.
func (m Metric) Value(games []engine.Result) float64 {
	if len(games) == 0 {
		return 0
	}
	u := make([]float64, len(games))
	for i, r := range games {
		u[i] = m.utility(r)
	}
	if m.Kind == "median_score" {
		return stats.Median(u)
	}
	sum := 0.0
	for _, x := range u {
		sum += x
	}
	return sum / float64(len(u))
}

// utility is a game's contribution to the metric, larger better: the
// metric of one game, and what racing compares game by game. For
// median_score it is the score.
func (m Metric) utility(r engine.Result) float64 {
	switch m.Kind {
	case "mean_log_score":
		return math.Log1p(float64(r.Score))
	case "reach":
		if r.MaxTile >= m.Tile {
			return 1
		}
		return 0
	}
	return float64(r.Score)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// formatFloat writes the shortest decimal that reads back bit for bit.
func formatFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// checkSearch checks a search description at path field of the config c:
// the rules of engine.SearchConfig.Validate, named by the config key they
// concern.
func checkSearch(s engine.SearchConfig, field string, c *Config) error {
	if err := s.Validate(); err != nil {
		var se *engine.SearchError
		if !errors.As(err, &se) {
			return c.errorf(field, "%v", err)
		}
		return c.errorf(field+"."+se.Key, "%s", se.Msg)
	}
	// A config's width defaults to 8 whatever the algorithm, so a 0 there
	// was written so, and is no width even where no beam reads it.
	if s.Width < 1 {
		return c.errorf(field+".width", "%d: want at least 1 board", s.Width)
	}
	return nil
}
