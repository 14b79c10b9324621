package configs

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

//go:embed *.yaml
var files embed.FS

// ErrNoPreset is returned by Get for a name that is no preset.
var ErrNoPreset = errors.New("configs: no preset")

// Default is the preset evotune tune runs without --config.
const Default = "quick"

// Names lists the embedded presets, sorted.
func Names() []string {
	entries, _ := fs.ReadDir(files, ".")
	var names []string
	for _, e := range entries {
		if isWeights(e.Name()) {
			continue
		}
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	slices.Sort(names)
	return names
}

// Get returns the YAML of the named preset and its file name. The name may
// end in ".yaml", so that both "overnight" and "overnight.yaml" name the
// overnight preset.
func Get(name string) (data []byte, file string, err error) {
	file = strings.TrimSuffix(name, ".yaml") + ".yaml"
	data, err = files.ReadFile(file)
	if err != nil || isWeights(file) {
		return nil, "", fmt.Errorf("%w %q (presets: %s)", ErrNoPreset, name, strings.Join(Names(), ", "))
	}
	return data, file, nil
}

// isWeights reports whether an embedded file is a reference weights file
// (NAME.weights.yaml), kept next to the presets but not one of them.
func isWeights(file string) bool { return strings.HasSuffix(file, ".weights.yaml") }
