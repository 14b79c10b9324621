// Package configs holds the YAML tuning presets that ship inside the binary:
// quick.yaml (the default of "evotune tune", a few minutes on two cores),
// overnight.yaml (about eight hours), beam.yaml (a beam-search player) and
// cem.yaml (the cross-entropy method). The schema is tuner.Config's.
//
// "evotune tune --config NAME" reads the file NAME if there is one, and
// otherwise the preset NAME (or NAME.yaml), so the presets work outside a
// checkout of the source.
package configs
