package objective

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/internal/cputime"
	"github.com/evotune/evotune/tuner"
)

// Version is the protocol's version, in the first line.
const Version = 1

// MaxGames is the most games one request may ask for.
const MaxGames = 100_000

// maxLine is the longest line a server reads; a longer one is an error
// line, not a failure.
const maxLine = 4 << 20

// Hello is the server's first line.
type Hello struct {
	Objective string             `json:"objective"` // the problem's name
	Version   int                `json:"version"`
	Params    []Param            `json:"params"`
	Fixed     map[string]float64 `json:"fixed"`
	Search    string             `json:"search"`
	Metric    string             `json:"metric"`
	// Games is the config's games per candidate: a hint.
	Games    int `json:"games"`
	MaxMoves int `json:"max_moves"`
	// MaxGames is the most games a request may ask for.
	MaxGames int `json:"max_games"`
	// Seed is the run seed: the stream "first" counts in, and the seed an
	// optimizer should take for its own randomness.
	Seed uint64 `json:"seed"`
	// Budget is the CPU seconds the optimizer may spend, its own process
	// included, when a caller sets one (tunebench); 0 is none.
	Budget float64 `json:"budget_cpu_s,omitempty"`
}

// An Answer is a request's answer line.
type Answer struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Scores []int           `json:"scores"`
	Mean   float64         `json:"mean"`
	Games  int             `json:"games"`
	CPU    float64         `json:"cpu_s"`
	// Recommend asks the optimizer for its current recommendation, as its
	// next line (tunebench's checkpoints).
	Recommend bool `json:"recommend,omitempty"`
}

// A Server serves a Problem. The hooks are optional.
type Server struct {
	P *Problem
	// Budget goes into the first line (Hello.Budget).
	Budget float64
	// Admit, if not nil, is asked before a request's games are played:
	// a non-empty stop answers it {"id":..,"stop":stop} instead, and every
	// later request too; an error answers it with an error line (seeds a
	// caller keeps for itself, say).
	Admit func(seeds []uint64) (stop string, err error)
	// Answered, if not nil, is told of each answer before it is sent, with
	// the CPU the games took; true asks the optimizer for its
	// recommendation in that answer.
	Answered func(games int, cpu time.Duration) bool
	// Recommend, if not nil, is given each recommendation: the whole
	// vector and whether the optimizer says it is its last word.
	Recommend func(v []float64, final bool) error

	stop string
}

// request is any line an optimizer sends.
type request struct {
	ID        json.RawMessage            `json:"id"`
	Params    map[string]json.RawMessage `json:"params"`
	Games     json.RawMessage            `json:"games"`
	Seeds     []json.RawMessage          `json:"seeds"`
	First     json.RawMessage            `json:"first"`
	Recommend map[string]json.RawMessage `json:"recommend"`
	Final     bool                       `json:"final"`
}

// A badRequest is answered with an error line.
type badRequest struct{ msg string }

func (e *badRequest) Error() string { return e.msg }

func bad(format string, args ...any) error { return &badRequest{fmt.Sprintf(format, args...)} }

// Serve writes the first line, then answers each line of in, one line
// each, until in ends. It returns an error when it cannot write, read or
// play (a pool's failure), never for a bad request.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	w := bufio.NewWriter(out)
	send := func(v any) error {
		data, err := json.Marshal(v)
		if err != nil {
			return err
		}
		w.Write(data)
		w.WriteByte('\n')
		return w.Flush()
	}
	p := s.P
	hello := Hello{
		Objective: p.Name, Version: Version, Params: p.Params, Fixed: p.Fixed, Search: p.Search,
		Metric: p.Metric, Games: p.Games, MaxMoves: p.MaxMoves, MaxGames: MaxGames, Seed: p.RunSeed, Budget: s.Budget,
	}
	if err := send(hello); err != nil {
		return fmt.Errorf("objective: %w", err)
	}
	r := bufio.NewReaderSize(in, 64<<10)
	for line := 1; ; line++ {
		data, err := readLine(r)
		if errors.Is(err, io.EOF) && data == nil {
			return nil
		}
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, errLong) {
			return fmt.Errorf("objective: line %d: %w", line, err)
		}
		var answer any
		var id json.RawMessage
		if errors.Is(err, errLong) {
			answer = bad("line longer than %d bytes", maxLine)
		} else if len(bytes.TrimSpace(data)) == 0 {
			answer = bad("empty line: want a JSON object")
		} else {
			var req request
			if answer = decode(data, &req); answer == nil {
				id = req.ID
				answer, err = s.handle(ctx, &req)
				if err != nil {
					send(errorLine{ID: id, Error: err.Error()})
					return fmt.Errorf("objective: line %d: %w", line, err)
				}
			}
		}
		if b, ok := answer.(*badRequest); ok {
			answer = errorLine{ID: id, Error: fmt.Sprintf("line %d: %s", line, b.msg)}
		}
		if err := send(answer); err != nil {
			return fmt.Errorf("objective: %w", err)
		}
	}
}

type errorLine struct {
	ID    json.RawMessage `json:"id,omitempty"`
	Error string          `json:"error"`
}

type stopLine struct {
	ID   json.RawMessage `json:"id,omitempty"`
	Stop string          `json:"stop"`
}

type okLine struct {
	OK bool `json:"ok"`
}

var errLong = errors.New("line too long")

// readLine returns the next line without its end; a line longer than
// maxLine is skipped and errLong returned.
func readLine(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > maxLine {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			return []byte{}, errLong
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			if len(buf) == 0 {
				return nil, err
			}
			return buf, err
		}
		return bytes.TrimRight(buf, "\r\n"), nil
	}
}

// decode reads one JSON object from data into req, refusing unknown keys
// and anything after the object; nil or a *badRequest.
func decode(data []byte, req *request) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(req); err != nil {
		return bad("not a request: %s (want one JSON object per line, keys id, params, games, seeds, first, recommend, final)", jsonError(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return bad("more than one JSON value on the line")
	}
	return nil
}

// jsonError makes the decoder's message a user's.
func jsonError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("%s: a JSON %s where the protocol wants %s", te.Field, te.Value, kind(te.Field))
	}
	return err.Error()
}

func kind(field string) string {
	switch field {
	case "params", "recommend":
		return "an object of parameter values"
	case "seeds":
		return "a list of game seeds"
	case "final":
		return "true or false"
	}
	return "another type"
}

// handle answers a decoded request; a *badRequest for bad ones, a
// non-nil error only for a failure to play.
func (s *Server) handle(ctx context.Context, req *request) (any, error) {
	if req.Recommend != nil {
		if req.Params != nil || req.Games != nil || req.Seeds != nil || req.First != nil {
			return bad("recommend: a line either recommends or asks for games, not both"), nil
		}
		v, err := s.vector("recommend", req.Recommend)
		if err != nil {
			return err, nil
		}
		if s.Recommend != nil {
			if err := s.Recommend(v, req.Final); err != nil {
				return nil, err
			}
		}
		return okLine{OK: true}, nil
	}
	if req.Final {
		return bad("final: goes with recommend"), nil
	}
	if req.Params == nil {
		return bad("want params (every free parameter by name: %s) or recommend", s.P.names()), nil
	}
	v, err := s.vector("params", req.Params)
	if err != nil {
		return err, nil
	}
	seeds, err := s.seeds(req)
	if err != nil {
		return err, nil
	}
	if s.stop == "" && s.Admit != nil {
		stop, err := s.Admit(seeds)
		if err != nil {
			return bad("%v", err), nil
		}
		s.stop = stop
	}
	if s.stop != "" {
		return stopLine{ID: req.ID, Stop: s.stop}, nil
	}
	p := s.P
	batch := &tuner.Batch{Players: p.Players, Vectors: [][]float64{v}, Seeds: seeds, MaxMoves: p.MaxMoves}
	results := [][]engine.Result{make([]engine.Result, len(seeds))}
	before, _ := cputime.Process()
	if err := p.Pool.Play(ctx, batch, results, nil); err != nil {
		return nil, err
	}
	after, _ := cputime.Process()
	a := Answer{ID: req.ID, Games: len(seeds), CPU: math.Round((after-before).Seconds()*1000) / 1000}
	sum := 0.0
	for _, r := range results[0] {
		a.Scores = append(a.Scores, r.Score)
		sum += float64(r.Score)
	}
	a.Mean = sum / float64(len(seeds))
	if s.Answered != nil {
		a.Recommend = s.Answered(len(seeds), after-before)
	}
	return a, nil
}

// vector reads a params or recommend object.
func (s *Server) vector(key string, raw map[string]json.RawMessage) ([]float64, error) {
	values := make(map[string]float64, len(raw))
	for name, r := range raw {
		x, err := number(r)
		if err != nil {
			return nil, bad("%s.%s: %s: %v", key, name, r, err)
		}
		values[name] = x
	}
	v, err := s.P.Vector(values)
	if err != nil {
		return nil, bad("%s: %v", key, err)
	}
	return v, nil
}

// number reads a JSON number, finite or not (1e999 is a number JSON
// allows and no float64 holds).
func number(r json.RawMessage) (float64, error) {
	var n json.Number
	if err := json.Unmarshal(r, &n); err != nil || n == "" {
		return 0, errors.New("want a number")
	}
	x, err := strconv.ParseFloat(string(n), 64)
	if err != nil && !math.IsInf(x, 0) {
		return 0, errors.New("want a number")
	}
	if math.IsInf(x, 0) {
		return 0, errors.New("not a finite number")
	}
	return x, nil
}

// seeds returns the request's game seeds: seeds, or games first..
// first+games-1 of the problem's stream.
func (s *Server) seeds(req *request) ([]uint64, error) {
	games := -1
	if req.Games != nil {
		var n json.Number
		g, err := int64(0), error(nil)
		if err = json.Unmarshal(req.Games, &n); err == nil {
			g, err = strconv.ParseInt(string(n), 10, 64)
		}
		if err != nil || g < 1 || g > MaxGames {
			return nil, bad("games: %s: want a whole number from 1 to %d", req.Games, MaxGames)
		}
		games = int(g)
	}
	switch {
	case req.Seeds != nil && req.First != nil:
		return nil, bad("seeds and first: give one (seeds: the game seeds; first: the first game of the stream)")
	case req.Seeds != nil:
		if len(req.Seeds) == 0 || len(req.Seeds) > MaxGames {
			return nil, bad("seeds: %d seeds: want 1 to %d", len(req.Seeds), MaxGames)
		}
		if games >= 0 && games != len(req.Seeds) {
			return nil, bad("games: %d, but %d seeds (leave games out or make them agree)", games, len(req.Seeds))
		}
		seeds := make([]uint64, len(req.Seeds))
		for i, r := range req.Seeds {
			var n json.Number
			var err error
			if err = json.Unmarshal(r, &n); err == nil {
				seeds[i], err = strconv.ParseUint(string(n), 10, 64)
			}
			if err != nil {
				return nil, bad("seeds[%d]: %s: want an unsigned 64-bit integer", i, r)
			}
		}
		return seeds, nil
	case req.First != nil:
		var n json.Number
		var first uint64
		err := json.Unmarshal(req.First, &n)
		if err == nil {
			first, err = strconv.ParseUint(string(n), 10, 64)
		}
		if err != nil || first > math.MaxUint64-MaxGames {
			return nil, bad("first: %s: want a whole number from 0 to %d", req.First, uint64(math.MaxUint64-MaxGames))
		}
		if games < 0 {
			return nil, bad("first: wants games, the number of games from first on")
		}
		seeds := make([]uint64, games)
		for j := range seeds {
			seeds[j] = s.P.Seed(first + uint64(j))
		}
		return seeds, nil
	}
	return nil, bad("want the games to play: seeds (a list of game seeds) or first and games (games first..first+games-1 of the objective's stream)")
}
