package tuner

import (
	"reflect"
	"testing"

	"github.com/evotune/evotune/engine/stats"
)

// TestTunedVsStart: the comparison the run summary and the report print
// is stats.Compare of the two validations' games, tuned as A, and there is
// none without recorded games or for the starting weights themselves.
func TestTunedVsStart(t *testing.T) {
	start := &Validation{Games: 3, Scores: []int{100, 200, 300}, MaxTiles: []int{8, 16, 32}}
	tuned := &Validation{Generation: 4, Games: 3, Scores: []int{150, 180, 420}, MaxTiles: []int{16, 16, 64}}
	c, ok := TunedVsStart(9, start, tuned)
	want, err := stats.Compare(tuned.Results(9), start.Results(9))
	if err != nil {
		t.Fatal(err)
	}
	if !ok || !reflect.DeepEqual(c, want) {
		t.Errorf("TunedVsStart = %+v, %v; want %+v, true", c, ok, want)
	}
	if _, ok := TunedVsStart(9, start, &Validation{Games: 3, Scores: tuned.Scores, MaxTiles: tuned.MaxTiles}); ok {
		t.Error("the starting weights compared with themselves")
	}
	if _, ok := TunedVsStart(9, &Validation{Games: 3}, tuned); ok {
		t.Error("a start without recorded games compared")
	}
	if _, ok := TunedVsStart(9, start, nil); ok {
		t.Error("no tuned validation compared")
	}
}
