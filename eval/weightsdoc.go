package eval

import (
	"errors"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/evotune/evotune/engine"
)

// weightsDoc is a weights file as written, the form internal/yamlx decodes
// it into (its keys are the struct tags) before ParseWeights checks the
// format's rules. The feature maps stay nodes until the file's feature set,
// which names their keys, is known; so do the checks, which are verified one
// by one against the weights.
type weightsDoc struct {
	Format     string         `yaml:"format,required"`
	Features   string         `yaml:"features,required"`
	Weights    *yaml.Node     `yaml:"weights,required"`
	Params     *yaml.Node     `yaml:"params"`
	Search     *searchDoc     `yaml:"search"`
	Provenance *provenanceDoc `yaml:"provenance"`
	Checks     []*yaml.Node   `yaml:"checks"`
}

// searchDoc is a search as a weights file writes it: move_scores, the
// positive form, for other engines.
type searchDoc struct {
	Algorithm  string   `yaml:"algorithm,required"`
	Depth      int      `yaml:"depth,required"`
	Width      *int     `yaml:"width"`
	MoveScores *bool    `yaml:"move_scores"`
	Cutoff     *float64 `yaml:"cutoff"`
	Adaptive   bool     `yaml:"adaptive"`
}

type provenanceDoc struct {
	Run         string      `yaml:"run"`
	Generation  int         `yaml:"generation"`
	Optimizer   string      `yaml:"optimizer"`
	Seed        uint64      `yaml:"seed"`
	Evaluations int         `yaml:"evaluations"`
	Init        string      `yaml:"init"`
	Fitness     *fitnessDoc `yaml:"fitness"`
	Baseline    *fitnessDoc `yaml:"baseline"`
	Stage       *stageDoc   `yaml:"stage"`
}

type fitnessDoc struct {
	Metric string     `yaml:"metric,required"`
	Mean   float64    `yaml:"mean,required"`
	CI95   float64    `yaml:"ci95"`
	Games  int        `yaml:"games"`
	Seeds  *seedsDoc  `yaml:"seeds"`
	Search *searchDoc `yaml:"search"`
}

// seedsDoc and stageDoc convert to SeedRange and Stage.
type seedsDoc struct {
	First uint64 `yaml:"first,required"`
	Count int    `yaml:"count,required"`
}

type stageDoc struct {
	Index int    `yaml:"index,required"`
	Of    int    `yaml:"of,required"`
	Name  string `yaml:"name,required"`
}

type checkDoc struct {
	Board    boardText  `yaml:"board,required"`
	Features *yaml.Node `yaml:"features,required"`
	Value    float64    `yaml:"value,required"`
}

// boardText reads a board in either text form, quoted or not (0x654321
// is an integer to YAML).
type boardText engine.Board

func (b *boardText) UnmarshalText(text []byte) error {
	x, err := engine.ParseBoard(string(text))
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), engine.ErrBoard.Error()+": "))
	}
	*b = boardText(x)
	return nil
}

// v2Keys are the keys version 2 added, in the order they are reported.
var v2Keys = []string{"params", "search.cutoff", "search.adaptive", "provenance.stage", "provenance.fitness.search", "provenance.baseline.search"}
