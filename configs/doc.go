// Package configs holds the YAML tuning presets that ship inside the binary:
// quick.yaml (the default of "evotune tune", a few minutes on two cores),
// overnight.yaml (about eight hours), beam.yaml (a beam-search player) and
// cem.yaml (the cross-entropy method). The schema is tuner.Config's.
package configs
