package report

import (
	"strings"
	"testing"

	"github.com/evotune/evotune/tuner"
)

// TestIntParamsAsPlayed: an int parameter shows as the integer the player
// receives, in the tables and in the suggested play command; a float one
// as it is.
func TestIntParamsAsPlayed(t *testing.T) {
	r := &Run{Config: &tuner.Config{Player: &tuner.PlayerConfig{
		Command: []string{"./player"},
		Init:    map[string]float64{"mono_power": 2},
		Declared: &tuner.PlayerDeclaration{ID: "p", Version: "1", Params: []tuner.DeclaredParam{
			{Name: "mono_power", Type: "int", Default: 2, Min: 0, Max: 8},
			{Name: "corner", Type: "float", Default: 1, Min: 0, Max: 10},
		}},
	}}}
	if row := r.weightRow("mono_power", 1.029, true); row.Latest != "1" || row.Start != "2" {
		t.Errorf("int row: start %s, latest %s; want 2 and 1", row.Start, row.Latest)
	}
	if row := r.weightRow("corner", 1.029, true); row.Latest != "1.029" {
		t.Errorf("float row: latest %s, want 1.029", row.Latest)
	}
	if cmd := r.playCommand([]string{"mono_power", "corner"}, []float64{2.6, 1.029}); !strings.Contains(cmd, "mono_power=3,corner=1.029") {
		t.Errorf("play command %s: want mono_power=3,corner=1.029", cmd)
	}
}
