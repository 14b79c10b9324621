package natspool

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/tuner"
	"github.com/evotune/evotune/tuner/playerpool"
)

// Streams, the workers' consumer and the subject prefixes. They are shared
// by every run on a server; runs are told apart by the subjects' tokens.
const (
	JobsStream      = "EVOTUNE_JOBS"
	ResultsStream   = "EVOTUNE_RESULTS"
	WorkersConsumer = "workers"
	jobsPrefix      = "evotune.jobs"
	resultsPrefix   = "evotune.results"
)

// JobFormat is the version of the job message. A worker refuses a job of
// a format it does not read.
const JobFormat = 1

// A job is the message a worker plays: candidate Candidate's games Games
// (indices into the batch's seeds) with seeds Seeds. It carries everything
// the games depend on, so that any worker replays them exactly.
type job struct {
	Format          int                 `json:"format"`
	Run             string              `json:"run"`
	Batch           string              `json:"batch"`
	Generation      int                 `json:"generation"`
	Rules           int                 `json:"rules"`
	Features        string              `json:"features"`
	FeaturesVersion string              `json:"features_version"`
	Candidate       int                 `json:"candidate"`
	Weights         []float64           `json:"weights"`
	Search          engine.SearchConfig `json:"search"`
	MaxMoves        int                 `json:"max_moves"`
	Games           []int               `json:"games"`
	Seeds           []uint64            `json:"seeds"`
	// Player, for a job of an external player, is its declaration; its
	// Features, FeaturesVersion and Search are then empty and Weights are
	// the candidate's parameter values in the player's units. A worker
	// plays the job only if its own player declares the same, since the
	// command that runs it differs from machine to machine. Omitted from a
	// feature set's job, which therefore encodes as it always did.
	Player *tuner.PlayerDeclaration `json:"player,omitempty"`
	// Join, in an external player's job cut for a fleet of known size,
	// tells a worker's slot whether it may take the job published after
	// this one and play both in the same move requests (see Worker). A
	// feature set's job has none, and neither has a job cut for a fleet
	// the server could not count, so both encode as before; a worker
	// that does not know the field refuses the job, as one with a field
	// it does not know.
	Join *joinHint `json:"join,omitempty"`
}

// A joinHint is what the coordinator knows, and a worker's slot cannot
// see, about the jobs published after one: whether the next can share its
// move requests, and how many games the fleet has left to share out.
type joinHint struct {
	// Slots is the number of slots the batch was cut for: the fleet's,
	// as the server counted it when the batch began.
	Slots int `json:"slots"`
	// Next is the number of games of the batch's job published after
	// this one, 0 if this is its last.
	Next int `json:"next"`
	// Same reports whether that job is of this one's candidate, so that
	// a player holding one parameter set plays both after one set.
	Same bool `json:"same"`
	// Left is the number of games of the batch's jobs published after
	// this one, Next's included.
	Left int `json:"left"`
}

// A result is a worker's answer to a job: a result per game, in the job's
// order, or the reason it refuses the job.
type result struct {
	Run       string          `json:"run"`
	Batch     string          `json:"batch"`
	Candidate int             `json:"candidate"`
	Games     []int           `json:"games"`
	Results   []engine.Result `json:"results,omitempty"`
	Worker    string          `json:"worker"`
	Refused   string          `json:"refused,omitempty"`
}

// decodeJob reads a job strictly: a field this worker does not know (a
// search option added by a newer version, say) could change the games, so
// it is an error rather than silently ignored.
func decodeJob(data []byte) (*job, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	var j job
	if err := d.Decode(&j); err != nil {
		return nil, err
	}
	if len(j.Games) != len(j.Seeds) {
		return nil, fmt.Errorf("%d games but %d seeds", len(j.Games), len(j.Seeds))
	}
	return &j, nil
}

func jobSubject(run, batch string) string    { return jobsPrefix + "." + run + "." + batch }
func resultSubject(run, batch string) string { return resultsPrefix + "." + run + "." + batch }

// resultSubjectFor returns the subject for the answer to a job published on
// subject, read from the subject alone so that even a job that cannot be
// decoded can be refused to its coordinator.
func resultSubjectFor(subject string) (string, bool) {
	rest, ok := strings.CutPrefix(subject, jobsPrefix+".")
	if !ok || strings.Count(rest, ".") != 1 {
		return "", false
	}
	return resultsPrefix + "." + rest, true
}

// RunID returns the identifier of a run on a server: a digest of the
// coordinator's host name and the run directory's absolute path, so that a
// resumed run gets the same identifier (and finds its earlier jobs to
// discard) while runs elsewhere get others.
func RunID(host, absDir string) string {
	h := sha256.Sum256([]byte(host + "\x00" + absDir))
	return hex.EncodeToString(h[:8])
}

// validToken reports whether s can be a subject token: NATS reserves '.',
// '*', '>' and white space.
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// batchKey is a digest of everything a batch's games depend on. A batch
// made again after a restart has the same key, so results of it from
// before the restart are recognised (and are the same games); results of
// any other batch are not.
func batchKey(b *tuner.Batch) (string, error) {
	pl, err := players(b)
	if err != nil {
		return "", err
	}
	var v any
	if pl.family != nil {
		// A player's games depend on its declaration where a feature
		// set's depend on the set and the search.
		v = struct {
			Generation int
			Player     *tuner.PlayerDeclaration
			Weights    [][]float64
			Seeds      []uint64
			MaxMoves   int
		}{b.Generation, pl.family.Declaration(), b.Vectors, b.Seeds, b.MaxMoves}
	} else {
		// The field names and order are those of the first version: the
		// key of a batch made again must not change across versions, or
		// a resumed run would not recognise its results.
		v = struct {
			Generation int
			Features   string
			Weights    [][]float64
			Seeds      []uint64
			Search     engine.SearchConfig
			MaxMoves   int
		}{b.Generation, pl.features.Set.Name, b.Vectors, b.Seeds, pl.features.Search, b.MaxMoves}
	}
	data, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("tuner/natspool: batch of generation %d: %w", b.Generation, err)
	}
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:8]), nil
}

// batchPlayers are a batch's players as the kinds this pool plays: a
// feature set's searchers, which a job names by the set's name and
// version, or an external player (family not nil), which a job names by
// its declaration.
type batchPlayers struct {
	features tuner.FeaturePlayers
	family   *playerpool.Family
}

// players returns b's players, or tuner.ErrPlayers for a kind no job can
// describe.
func players(b *tuner.Batch) (batchPlayers, error) {
	switch pl := b.Players.(type) {
	case tuner.FeaturePlayers:
		if pl.Set != nil {
			return batchPlayers{features: pl}, nil
		}
	case playerpool.Family:
		return batchPlayers{family: &pl}, nil
	}
	return batchPlayers{}, fmt.Errorf("%w: the NATS pool plays a feature set's searchers or an external player, not %T", tuner.ErrPlayers, b.Players)
}
