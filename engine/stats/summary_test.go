package stats

import (
	"testing"

	"github.com/evotune/evotune/engine"
)

func TestMedian(t *testing.T) {
	for _, tt := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		in := append([]float64(nil), tt.in...)
		if got := Median(in); got != tt.want {
			t.Errorf("Median(%v) = %v, want %v", tt.in, got, tt.want)
		}
		for i := range in {
			if in[i] != tt.in[i] {
				t.Errorf("Median changed its input")
			}
		}
	}
}

func TestSummarize(t *testing.T) {
	rs := []engine.Result{{Score: 100, MaxTile: 2048, Moves: 10}, {Score: 300, MaxTile: 4096, Moves: 20}, {Score: 200, MaxTile: 512, Moves: 30}, {Score: 50, MaxTile: 32768, Moves: 1}}
	s := Summarize(rs)
	if s.Games != 4 || s.Mean != 162.5 || s.Median != 150 || s.Min != 50 || s.Max != 300 || s.Moves != 61 {
		t.Errorf("Summarize = %+v", s)
	}
	if s.Reach != [5]float64{0.75, 0.5, 0.25, 0.25, 0.25} {
		t.Errorf("Reach = %v", s.Reach)
	}
}
