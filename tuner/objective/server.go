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
	"time"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
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
	// MaxFirst is the largest first a request may give: first+games-1
	// at most MaxFirst+MaxGames-1, in the stream and in the held-out
	// block alike.
	MaxFirst uint64 `json:"max_first"`
	// Seed is the run seed: the stream "first" counts in, and the seed an
	// optimizer should take for its own randomness.
	Seed uint64 `json:"seed"`
	// Budget is the CPU seconds the optimizer may spend, its own process
	// included, when a caller sets one (tunebench); 0 is none.
	Budget float64 `json:"budget_cpu_s,omitempty"`
	// BudgetGames is the games the optimizer may ask for in all, when a
	// caller sets such a budget (tunebench --budget-games); 0 is none.
	BudgetGames int64 `json:"budget_games,omitempty"`
}

// MaxFirst is the largest first a request may give (Hello.MaxFirst): the
// stream's games and the held-out block's are counted from 0 up to
// MaxFirst+MaxGames-1 (below 2^62).
const MaxFirst = 1<<62 - MaxGames

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
	// Budget and BudgetGames go into the first line (Hello.Budget,
	// Hello.BudgetGames).
	Budget      float64
	BudgetGames int64
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

// A badRequest is answered with an error line.
type badRequest struct{ msg string }

func (e *badRequest) Error() string { return e.msg }

func bad(format string, args ...any) error { return &badRequest{fmt.Sprintf(format, args...)} }

// Serve writes the first line, then answers each line of in, one line
// each, until in ends. It returns an error when it cannot write, read or
// play (a pool's failure), never for a bad request.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	p := s.P
	if p == nil || p.coords == nil {
		return errUnbuilt
	}
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
	hello := Hello{
		Objective: p.Name, Version: Version, Params: p.Params, Fixed: p.Fixed, Search: p.Search,
		Metric: p.Metric, Games: p.Games, MaxMoves: p.MaxMoves, MaxGames: MaxGames, MaxFirst: MaxFirst,
		Seed: p.RunSeed, Budget: s.Budget, BudgetGames: s.BudgetGames,
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
		var req request
		if errors.Is(err, errLong) {
			answer = bad("line longer than %d bytes", maxLine)
		} else if len(bytes.TrimSpace(data)) == 0 {
			answer = bad("empty line: want a JSON object")
		} else if answer = parse(data, &req); answer == nil {
			answer, err = s.handle(ctx, &req)
			if err != nil {
				send(errorLine{ID: req.id, Error: fmt.Sprintf("line %d: %v", line, err)})
				return fmt.Errorf("objective: line %d: %w", line, err)
			}
		}
		if b, ok := answer.(*badRequest); ok {
			answer = errorLine{ID: req.id, Error: fmt.Sprintf("line %d: %s", line, b.msg)}
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
	ID json.RawMessage `json:"id,omitempty"`
	OK bool            `json:"ok"`
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

// handle answers a parsed request; a *badRequest for bad ones, a non-nil
// error only for a failure to play.
func (s *Server) handle(ctx context.Context, req *request) (any, error) {
	p := s.P
	if req.recommend != nil {
		v, err := p.vector("recommend", req.recommend)
		if err != nil {
			return bad("%v", err), nil
		}
		if s.Recommend != nil {
			if err := s.Recommend(v, req.final); err != nil {
				return nil, err
			}
		}
		return okLine{ID: req.id, OK: true}, nil
	}
	v, err := p.vector("params", req.params)
	if err != nil {
		return bad("%v", err), nil
	}
	seeds := req.seeds
	if seeds == nil {
		seeds = make([]uint64, req.games)
		for j := range seeds {
			if req.heldOut {
				seeds[j] = p.HeldOutSeed(req.first + uint64(j))
			} else {
				seeds[j] = p.Seed(req.first + uint64(j))
			}
		}
	}
	if s.stop == "" && s.Admit != nil {
		stop, err := s.Admit(seeds)
		if err != nil {
			return bad("%v", err), nil
		}
		s.stop = stop
	}
	if s.stop != "" {
		return stopLine{ID: req.id, Stop: s.stop}, nil
	}
	batch := &tuner.Batch{Players: p.Players, Vectors: [][]float64{v}, Seeds: seeds, MaxMoves: p.MaxMoves}
	results := [][]engine.Result{make([]engine.Result, len(seeds))}
	before, _ := cputime.Process()
	if err := p.Pool.Play(ctx, batch, results, nil); err != nil {
		if errors.Is(err, eval.ErrWeights) {
			// Values within the bounds that a set's evaluator still
			// refuses (none of the built-in sets has any): the line's
			// fault, not the exchange's.
			return bad("params: the games cannot take these values: %v", err), nil
		}
		return nil, err
	}
	after, _ := cputime.Process()
	a := Answer{ID: req.id, Games: len(seeds), CPU: math.Round((after-before).Seconds()*1000) / 1000}
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
