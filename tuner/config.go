package tuner

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
	"github.com/evotune/evotune/internal/yamlx"
)

// ErrConfig is wrapped by every error about a config file or its values.
var ErrConfig = errors.New("tuner: bad config")

// Config is a tuning run, as written in a YAML preset. Every key is
// optional: a key left out takes the default its field's comment gives, and
// Resolve fills the defaults in. Where 0 (or "", or false) is a meaningful
// value the comment says what it means (generations: 0 is no limit);
// elsewhere an explicit 0 in a file is an error naming the line and the
// allowed range, not a silent default: "depth: 0" is more likely a slip
// than a wish for 3 plies. ReadConfig reads, resolves and validates a file
// in one call.
//
// A Config built in Go has no keys left out, so Resolve takes every zero
// field for a key left out and gives it the default its comment gives, as
// for a file: a zero Config resolves to a file that is empty (noise handling
// and racing on). Where the zero is a value of its own and the default is
// not (search.loss, cutoff and table 0; noise.handling or noise.racing
// false; a stage's population 0; a stage's or validation.search's
// heuristic_only or adaptive false under a top-level search that has them),
// set the field after Resolve: Resolve only fills in, Validate judges the
// value, and New takes the config as it is.
type Config struct {
	// Name names the run; its files go to runs/<name> unless --out says
	// otherwise. Absent: "run". Letters, digits, '.', '_' and '-' only.
	Name string `yaml:"name"`
	// Seed is the run seed every game seed derives from. Default 0, a seed
	// like any other.
	Seed uint64 `yaml:"seed"`
	// Generations stops the run after this many generations; 0 (the
	// default) means no limit (the run stops when it converges, runs out of
	// time or is stopped). With neither Generations nor Duration a run goes
	// on until interrupted, and says so on its first line.
	Generations int `yaml:"generations"`
	// Duration is a wall-clock budget in Go syntax ("8h", "90m"); 0 (the
	// default) means none. The generation in progress when it runs out is
	// finished.
	Duration Duration `yaml:"duration"`
	// Workers is the number of games played at once; 0 (the default) means
	// one per core. It does not change any result.
	Workers int `yaml:"workers"`
	// SetName names the feature set whose weights are tuned, under the key
	// features. Absent: Set's name if Set is given, else "standard".
	SetName string `yaml:"features,omitempty"`
	// Set is the feature set itself, for a config built in Go that tunes a
	// set of its own: it need not be registered, and SetName, if given,
	// must be its name. Nil means the registered set SetName names (see
	// FeatureSet). A run directory's config names the set, so resuming or
	// exporting a run of a set of one's own needs it registered
	// (eval.Register).
	Set *eval.FeatureSet `yaml:"-"`
	// Player tunes an external player instead of a feature set (see
	// PlayerConfig); then features, init and bounds are left out, and the
	// search keys do not apply. Absent: the run tunes a feature set.
	Player *PlayerConfig `yaml:"player,omitempty"`
	// Init is the starting mean, by feature name; features left out start
	// at the set's default weight.
	Init map[string]float64 `yaml:"init"`
	// InitFrom is the weights file a config's init named instead of
	// listing weights (init: runs/quick/weights.yaml, relative to the
	// working directory): its weights, and parameters, become Init, and the
	// path is kept here and in the tuned weights' provenance, so any run can
	// continue from any earlier result. Written by evotune in the resolved
	// config; a config names the file in init.
	InitFrom string `yaml:"init_from,omitempty"`
	// Sigma is the initial step size relative to each weight's scale: the
	// optimizer works in coordinates where each weight is divided by the
	// magnitude of its starting value (1 where that is 0), a shape
	// parameter by no more than a fifth of its range, and a player's
	// parameter by its range (see Coordinates). In (0, 10]; absent: 0.3.
	Sigma float64 `yaml:"sigma"`
	// Bounds limits weights, by feature name: [lower, upper].
	Bounds map[string][]float64 `yaml:"bounds"`
	// Optimizer chooses and configures the optimizer.
	Optimizer OptimizerConfig `yaml:"optimizer"`
	// Search is the player every candidate plays with, under the key search:
	//   algorithm      "expectimax", "beam" or "nneonneo"; absent: "expectimax"
	//   depth          plies, engine.MinDepth to engine.MaxDepth (the
	//                  nneonneo search: odd, at least 3); absent: 3
	//   width          the beam width, at least 1; absent: 8; the other
	//                  searches ignore it
	//   heuristic_only values boards by the evaluation alone, without move
	//                  scores; then the weights are scale-invariant and one
	//                  of them is held fixed (see eval.FeatureSet.Reference);
	//                  default false
	//   loss           the value of a lost board; absent:
	//                  engine.DefaultLossValue; 0 is meaningful (the exact
	//                  mode's value: losing is worth nothing)
	//   cutoff         a spawn layer is a leaf once the probability of
	//                  reaching it falls below this, in [0, 1); absent: what
	//                  players use at the algorithm and depth
	//                  (engine.SearchConfig.WithPlayDefaults); 0 is
	//                  meaningful: the exact search (for nneonneo: the
	//                  program's 1e-4); beam search has none
	//   table          the expectimax search's transposition table, log2
	//                  entries, 0 to 30; absent: as cutoff; 0 is meaningful:
	//                  no table (the other searches have none); it changes
	//                  speed and memory, not values
	//   adaptive       expectimax only: boards with few distinct tiles are
	//                  searched less deep; default false
	Search engine.SearchConfig `yaml:"search"`
	// Fitness says how candidates are scored.
	Fitness FitnessConfig `yaml:"fitness"`
	// Validation says how the distribution mean is re-evaluated.
	Validation ValidationConfig `yaml:"validation"`
	// Stages makes the run a ladder of searches (see StageConfig); absent,
	// the run is one stage with the top-level search, games, population
	// and sigma. An empty list is an error.
	Stages []StageConfig `yaml:"stages,omitempty"`
	// Checkpoints configures the run's checkpoints.
	Checkpoints CheckpointConfig `yaml:"checkpoints"`
	// Noise configures noise handling: games per candidate set by the
	// measured noise of the ranking, and racing (see NoiseConfig).
	Noise NoiseConfig `yaml:"noise"`

	// lines holds where each key of the file the config came from was,
	// and which keys the file wrote as zero; nil for a config built in Go.
	// Resolve leaves the keys written alone (so that Validate rejects a zero
	// that is out of range, or keeps one that means something), and
	// Validate names their lines.
	lines *yamlx.Lines
	// checkpointed marks a checkpoint's config (see asCheckpointed): it is
	// resolved, so it writes every key, and Validate does not take a key
	// it gives for one the user wrote.
	checkpointed bool
}

// StageConfig is one rung of a ladder of searches. A stage starts from the
// previous stage's validated mean (the first from init) with a fresh
// optimizer, and ends when its budget is spent or its optimizer converges;
// every stage but the last needs a budget (generations, duration or both).
// Keys left out take the top-level values; Resolve fills them in.
type StageConfig struct {
	// Name names the stage in output and provenance; absent: its 1-based
	// index ("1", "2", ...). Letters, digits, '.', '_' and '-' only.
	Name string `yaml:"name"`
	// Search is the stage's search; keys it leaves out take the top-level
	// search's, except the table and cutoff, which take the play defaults
	// of the stage's own algorithm and depth when those differ from the
	// top-level search (as validation.search does).
	Search *engine.SearchConfig `yaml:"search"`
	// Games per candidate; absent: fitness.games.
	Games int `yaml:"games"`
	// Population is the candidates per generation, 0 meaning the method's
	// default; absent: optimizer.population.
	Population int `yaml:"population"`
	// Sigma is the step size at the stage's start, in the run's relative
	// coordinates (as the top-level sigma); absent: sigma.
	Sigma float64 `yaml:"sigma"`
	// Generations is the stage's budget in generations; 0 (absent) means
	// none.
	Generations int `yaml:"generations,omitempty"`
	// Duration is the stage's budget in wall-clock time (the generation in
	// progress is finished); 0 (absent) means none.
	Duration Duration `yaml:"duration,omitempty"`
}

// writtenSearch is a search as a resolved config writes it: every key,
// adaptive too, which engine.SearchConfig leaves out when false, and which a
// stage or validation.search left out would take from the top-level search.
type writtenSearch struct {
	Algorithm     engine.Algorithm `yaml:"algorithm"`
	Depth         int              `yaml:"depth"`
	Width         int              `yaml:"width"`
	HeuristicOnly bool             `yaml:"heuristic_only"`
	LossValue     float64          `yaml:"loss"`
	ProbCutoff    float64          `yaml:"cutoff"`
	TableBits     int              `yaml:"table"`
	Adaptive      bool             `yaml:"adaptive"`
}

func asWritten(q *engine.SearchConfig) *writtenSearch {
	if q == nil {
		return nil
	}
	return &writtenSearch{q.Algorithm, q.Depth, q.Width, q.HeuristicOnly, q.LossValue, q.ProbCutoff, q.TableBits, q.Adaptive}
}

// MarshalYAML writes a stage with its search in full (writtenSearch).
func (s StageConfig) MarshalYAML() (any, error) {
	type stage struct {
		Name        string         `yaml:"name"`
		Search      *writtenSearch `yaml:"search"`
		Games       int            `yaml:"games"`
		Population  int            `yaml:"population"`
		Sigma       float64        `yaml:"sigma"`
		Generations int            `yaml:"generations,omitempty"`
		Duration    Duration       `yaml:"duration,omitempty"`
	}
	return stage{Name: s.Name, Search: asWritten(s.Search), Games: s.Games, Population: s.Population, Sigma: s.Sigma, Generations: s.Generations, Duration: s.Duration}, nil
}

// MarshalYAML writes validation.search in full (writtenSearch), so that an
// explicit adaptive: false under a top-level adaptive: true reads back, and
// leaves every out where no finalist is kept or they are kept at doubling
// generations, where it would change nothing and a config that gave it
// would be refused.
func (v ValidationConfig) MarshalYAML() (any, error) {
	type validation struct {
		Every     int            `yaml:"every,omitempty"`
		Games     int            `yaml:"games"`
		Search    *writtenSearch `yaml:"search,omitempty"`
		Average   int            `yaml:"average"`
		Select    int            `yaml:"select"`
		Finalists int            `yaml:"finalists,omitempty"`
		Spacing   string         `yaml:"spacing,omitempty"`
		Model     bool           `yaml:"model,omitempty"`
	}
	w := validation{Every: v.Every, Games: v.Games, Search: asWritten(v.Search), Average: v.Average, Select: v.Select, Finalists: v.Finalists, Spacing: v.Spacing, Model: v.Model}
	if v.Finalists == 0 || v.Spacing == SpacingDoubling {
		w.Every = 0
	}
	return w, nil
}

// StageList returns the run's stages, resolved: the config's, or one stage
// made of the top-level search, games, population and sigma, without a
// budget, for a config without stages.
func (c *Config) StageList() []StageConfig {
	if len(c.Stages) > 0 {
		return c.Stages
	}
	search := c.Search
	return []StageConfig{{Name: "1", Search: &search, Games: c.Fitness.Games, Population: c.Optimizer.Population, Sigma: c.Sigma}}
}

// StageValidationSearch returns the search validation plays with in stage
// i (0-based): validation.search if the config gives one, else the stage's
// own search.
func (c *Config) StageValidationSearch(i int) engine.SearchConfig {
	if c.Validation.Search != nil {
		return *c.Validation.Search
	}
	return *c.StageList()[i].Search
}

// StageField returns the dotted path of key in stage i (0-based) as errors
// name it: stages are numbered from 1, as in the output ("stages.2.games").
func StageField(i int, key string) string { return "stages." + strconv.Itoa(i+1) + "." + key }

// OptimizerConfig chooses the optimizer.
type OptimizerConfig struct {
	// Method is "cmaes" or "cem"; absent: "cmaes".
	Method string `yaml:"method"`
	// Population is the number of candidates per generation, at least 2;
	// 0 (the default) means the method's default (CMA-ES: 4 + floor(3 ln n)).
	Population int `yaml:"population"`
	// Elite is the fraction of candidates CEM refits to, in (0, 1); absent:
	// 0.25. CMA-ES ignores it.
	Elite float64 `yaml:"elite"`
	// Restarts is "none" or "ipop" (restart with a doubled population when
	// the optimizer converges); absent: "none".
	Restarts string `yaml:"restarts"`
	// LRAdapt turns on CMA-ES's learning rate adaptation (LRA-CMA-ES:
	// population.CMAESConfig.LRA), which scales the updates down when
	// they are mostly noise; absent: off. CEM has none.
	LRAdapt bool `yaml:"lr_adapt,omitempty"`
	// Mirrored turns on CMA-ES's mirrored sampling with pairwise selection
	// (population.CMAESConfig.Mirrored): candidates in pairs m ± σy on the
	// same games, of which only the better can be selected; absent: off.
	// CEM has none.
	Mirrored bool `yaml:"mirrored,omitempty"`
	// Settle turns on CMA-ES's settling (population.CMAESConfig.Settle):
	// while the mean's steps are mostly noise every update is scaled down
	// and σ stays where it is, so that on a plateau the mean stops
	// wandering; absent: off. CEM has none; not with lr_adapt.
	Settle bool `yaml:"settle,omitempty"`
}

// FitnessConfig says how a candidate's games become one number.
type FitnessConfig struct {
	// Games is the number of games every candidate plays per generation,
	// the same seeds for every candidate, at least 1; absent: 16.
	Games int `yaml:"games"`
	// Metric is mean_score, median_score, mean_log_score (the mean of
	// ln(1 + score)) or reach:TILE (the share of games reaching TILE, a
	// power of two from 4 to 32768); absent: mean_score.
	Metric string `yaml:"metric"`
	// MaxMoves stops each game after this many moves; 0 (the default)
	// means no limit.
	MaxMoves int `yaml:"max_moves"`
}

// ValidationConfig says how a run chooses the weights it recommends and
// measures them (see race.go): at the end of each stage (and of the run)
// the average of the stage's last Average distribution means races its
// latest mean and the stage's start (and Finalists earlier means, if
// asked) on fresh games,
// and the winner is measured on Games validation games, disjoint from
// every tuning seed, which choose nothing, so that its figure is unbiased.
// No game is spent on a mean while a stage searches.
type ValidationConfig struct {
	// Every is the generations between two finalists (see Finalists), at
	// least 1; absent: 5. Only with finalists, and not with spacing:
	// doubling.
	Every int `yaml:"every"`
	// Games is the number of validation games of the start and of the
	// winner, at least 2; absent: 100.
	Games int `yaml:"games"`
	// Search is the search validation and the race play with, so that
	// weights tuned with a cheap shallow search are chosen and measured at
	// the depth they are recommended for; absent: the tuning search. Keys
	// it leaves out take the tuning search's values (validation: {search:
	// {depth: 5}}).
	Search *engine.SearchConfig `yaml:"search,omitempty"`
	// Average is the most of the stage's last distribution means whose
	// average is recommended: under noise the mean wanders about the
	// optimum from one generation to the next, and the average of its
	// positions on the plateau sits nearer it. A stage averages no more
	// than the means of its last half of generations, so that a stage
	// averages its plateau rather than its climb; one still climbing at
	// its end races its latest mean against the average. 1 recommends the
	// latest mean. 1 to 1024; absent: 256.
	Average int `yaml:"average"`
	// Select is the most games each entrant of the race plays (the
	// average, the latest mean, the stage's start and the finalists, on
	// the same fresh seeds; an entrant shown worse than the leader stops
	// earlier), at most 2^20. 0 means no race: the average is recommended
	// as it is. Absent: 96.
	Select int `yaml:"select"`
	// Finalists is the number of earlier means that race too: the stage's
	// means every Every generations before its last, the latest Finalists
	// of them, a guard against a search that drifted somewhere worse
	// after passing them. 0 to 16; absent: 0.
	Finalists int `yaml:"finalists,omitempty"`
	// Spacing is where the finalists are kept: "even" (absent), every
	// Every generations of the stage; or "doubling", at the stage's
	// generations 1, 2, 4, 8, 16 and on, so that the latest Finalists of
	// them span the whole stage (at generation 100 of a stage, 4 finalists
	// are its means at 64, 32, 16 and 8) however long a budget makes it.
	// Only with finalists.
	Spacing string `yaml:"spacing,omitempty"`
	// Model races, beside the other entrants, the point of a quadratic
	// fitted to the candidates of the stage's last half of generations on
	// their common games (see model.go). Only with a race; absent: false.
	Model bool `yaml:"model,omitempty"`

	// Recommend, Patience and Fallback are the keys of the recommendation
	// rules of an older evotune (recommend: last, best or race; patience;
	// fallback), which the final race replaced: a run directory that
	// names them resumes under the final race, and a new config that
	// names them is refused with the reason (see Validate). Never written.
	Recommend string  `yaml:"recommend,omitempty"`
	Patience  int     `yaml:"patience,omitempty"`
	Fallback  float64 `yaml:"fallback,omitempty"`
}

// keeps reports whether the mean after k generations of a stage is kept as
// a finalist (where finalists are kept at all): every Every generations,
// or at 1, 2, 4, 8, ... under spacing: doubling.
func (v ValidationConfig) keeps(k int) bool {
	if v.Spacing == SpacingDoubling {
		return k > 0 && k&(k-1) == 0
	}
	return k > 0 && k%v.Every == 0
}

// FinalistsBefore returns how many finalists race at the end of a stage of
// g generations: those kept before its last generation, Finalists at most.
func (v ValidationConfig) FinalistsBefore(g int) int {
	n := 0
	for k := 1; k < g && n < v.Finalists; k++ {
		if v.keeps(k) {
			n++
		}
	}
	return n
}

// FinalistSpacing says where the finalists are kept, for a reader: "every
// 5 generations", or "at generations 1, 2, 4, 8, ..." under spacing:
// doubling.
func (v ValidationConfig) FinalistSpacing() string {
	if v.Spacing == SpacingDoubling {
		return "at generations 1, 2, 4, 8, ..."
	}
	return fmt.Sprintf("every %d generations", v.Every)
}

// CheckpointConfig configures checkpoints.
type CheckpointConfig struct {
	// Keep is the number of newest checkpoints kept, at least 1; absent: 3.
	Keep int `yaml:"keep"`
}

// Duration is a time.Duration written in Go syntax ("8h0m0s") in YAML.
type Duration time.Duration

// MarshalYAML writes the duration in Go syntax.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// UnmarshalText reads a duration in Go syntax.
func (d *Duration) UnmarshalText(text []byte) error {
	x, err := time.ParseDuration(string(text))
	if err != nil {
		return fmt.Errorf("%q: want a duration such as 90m or 8h", text)
	}
	*d = Duration(x)
	return nil
}
