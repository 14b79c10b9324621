package configs

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

//go:embed *.yaml
var files embed.FS

// Default is the preset evotune tune runs without --config.
const Default = "quick"

// Names lists the embedded presets, sorted.
func Names() []string {
	entries, _ := fs.ReadDir(files, ".")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	slices.Sort(names)
	return names
}

// Get returns the YAML of the named preset and its file name.
func Get(name string) (data []byte, file string, err error) {
	file = name + ".yaml"
	data, err = files.ReadFile(file)
	if err != nil {
		return nil, "", fmt.Errorf("configs: no preset %q (presets: %s)", name, strings.Join(Names(), ", "))
	}
	return data, file, nil
}
