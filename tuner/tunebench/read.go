package tunebench

import (
	"bytes"
	"encoding/json"
	"errors"
)

// ReadResults reads the results of an evotune tunebench --json output, or
// one row's result as the files of Options.Out hold it. Outputs of earlier
// versions (before the grid, with one peer named at the top; before the
// block, read as Development) are read too; each result's summary
// (Result.summarize: medians, worst figures, best points passed) is
// computed again from its runs.
func ReadResults(data []byte) ([]Result, error) {
	var top struct {
		Short    bool     `json:"short"`
		Full     bool     `json:"full"`
		Peer     string   `json:"peer"`
		Command  string   `json:"command"`
		Problem  string   `json:"problem"`
		Problems []Result `json:"problems"`
	}
	// A decoder, not Unmarshal: outputs saved with a line after them
	// are read as they always were.
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&top); err != nil {
		return nil, jsonError(data, err)
	}
	if top.Problem != "" && top.Problems == nil {
		r, err := decodeResult(data)
		if err != nil {
			return nil, err
		}
		return []Result{r}, nil
	}
	if len(top.Problems) == 0 {
		return nil, errors.New(`no results: want the output of evotune tunebench --json ({"problems":[...]}) or a row's file of its --out ({"problem":...})`)
	}
	for i := range top.Problems {
		r := &top.Problems[i]
		r.Full = r.Full || top.Full
		r.Short = r.Short || top.Short
		if r.Peer == "" {
			r.Peer = top.Peer
		}
		if r.Command == "" {
			r.Command = top.Command
		}
		if err := r.check(); err != nil {
			return nil, err
		}
	}
	return top.Problems, nil
}
