package configs

import (
	"errors"
	"io/fs"
	"slices"
	"strings"
	"testing"
)

// TestWeightsFilesAreNotPresets checks that the reference weights files
// kept next to the presets are neither listed nor loadable as presets.
func TestWeightsFilesAreNotPresets(t *testing.T) {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		t.Fatal(err)
	}
	var weights int
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".yaml")
		if !isWeights(e.Name()) {
			if !slices.Contains(Names(), name) {
				t.Errorf("preset %s is not listed", name)
			}
			continue
		}
		weights++
		if slices.Contains(Names(), name) {
			t.Errorf("weights file %s is listed as a preset", e.Name())
		}
		if _, _, err := Get(name); !errors.Is(err, ErrNoPreset) {
			t.Errorf("Get(%q): err = %v, want ErrNoPreset", name, err)
		}
	}
	if weights == 0 {
		t.Fatal("no reference weights file among the embedded files: the test checks nothing")
	}
}
