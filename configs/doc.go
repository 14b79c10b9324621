// Package configs holds the YAML tuning presets that ship inside the binary.
// quick.yaml is the default of "evotune tune" (a few minutes on two cores);
// each file's header comment says what the preset is for and what it costs,
// and Names lists them, so this comment does not repeat the list. The schema
// is tuner.Config's. Files named NAME.weights.yaml are reference weights
// files kept next to the presets (the result a preset produced), not
// presets.
//
// "evotune tune --config NAME" reads the file NAME if there is one, and
// otherwise the preset NAME (or NAME.yaml), so the presets work outside a
// checkout of the source.
package configs
