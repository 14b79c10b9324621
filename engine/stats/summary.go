package stats

import (
	"slices"

	"github.com/evotune/evotune/engine"
)

// ReachTiles are the tiles whose reach rates a Summary reports.
var ReachTiles = [...]int{2048, 4096, 8192, 16384, 32768}

// Summary describes the scores of a set of games.
type Summary struct {
	Games  int
	Mean   float64
	CI95   float64 // half-width of the 95% t interval of the mean (0 for one game)
	Median float64
	Min    int
	Max    int
	Moves  int                      // total moves played
	Reach  [len(ReachTiles)]float64 // share of games whose max tile reached ReachTiles[i]
}

// Summarize computes the statistics of results in a fixed order, so equal
// inputs give equal bits.
func Summarize(results []engine.Result) Summary {
	s := Summary{Games: len(results)}
	if len(results) == 0 {
		return s
	}
	scores := make([]float64, len(results))
	s.Min, s.Max = results[0].Score, results[0].Score
	for i, r := range results {
		scores[i] = float64(r.Score)
		s.Min, s.Max = min(s.Min, r.Score), max(s.Max, r.Score)
		s.Moves += r.Moves
		for j, t := range ReachTiles {
			if r.MaxTile >= t {
				s.Reach[j]++
			}
		}
	}
	for j := range s.Reach {
		s.Reach[j] /= float64(len(results))
	}
	s.Mean, s.CI95 = MeanCI95(scores)
	s.Median = Median(scores)
	return s
}

// Scores returns the games' scores as float64s.
func Scores(rs []engine.Result) []float64 {
	s := make([]float64, len(rs))
	for i, r := range rs {
		s[i] = float64(r.Score)
	}
	return s
}

// Median returns the median of xs (the mean of the middle two for an even
// count) without changing xs.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}
