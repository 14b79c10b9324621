package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/evotune/evotune/configs"
	"github.com/evotune/evotune/tuner"
)

// loadConfig reads the config a --config value names: the file at that path
// if there is one, else the embedded preset of that name ("overnight" or
// "overnight.yaml"); "" is the default preset. A file wins over a preset of
// the same name, so a user's own quick.yaml is never shadowed; a directory
// does not (a run directory named quick/ next to the user is common). The
// config is decoded, not resolved: flags override it first (see
// overrides.apply), then Resolve and Validate make it ready.
func loadConfig(arg string) (*tuner.Config, error) {
	if arg == "" {
		arg = configs.Default
	} else if st, err := os.Stat(arg); !errors.Is(err, fs.ErrNotExist) && (err != nil || !st.IsDir() || !isPreset(arg)) {
		data, err := os.ReadFile(arg)
		if err != nil {
			return nil, badInput(fmt.Errorf("%w: %w", tuner.ErrConfig, err))
		}
		cfg, err := tuner.ParseConfig(data, arg)
		return cfg, badInput(err)
	}
	data, file, err := configs.Get(arg)
	if err != nil {
		return nil, usagef("flag --config: no file or preset %q (presets: %s)", arg, strings.Join(configs.Names(), ", "))
	}
	cfg, err := tuner.ParseConfig(data, "preset "+file)
	return cfg, badInput(err)
}

// isPreset reports whether name names an embedded preset.
func isPreset(name string) bool {
	_, _, err := configs.Get(name)
	return err == nil
}

// fromPreset reports whether loadConfig reads arg from an embedded preset
// rather than a file.
func fromPreset(arg string) bool {
	if arg == "" {
		return true
	}
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		return false
	}
	return isPreset(arg)
}
