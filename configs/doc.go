// Package configs holds the YAML tuning presets that ship inside the binary:
// quick.yaml (the default of "evotune tune", a few minutes on two cores),
// overnight.yaml (about eight hours, a 3 → 5 → 7-ply ladder), ladder.yaml
// (a short ladder), beam.yaml (a beam-search player), cem.yaml (the
// cross-entropy method), nneonneo.yaml (the constants of nneonneo/2048-ai
// with its own search at cap 2) and nneonneo-refine.yaml (the second pass
// that made nneonneo-cap2.weights.yaml from the first pass's result). The
// schema is tuner.Config's. Files named NAME.weights.yaml are reference
// weights files, kept here but not presets.
//
// "evotune tune --config NAME" reads the file NAME if there is one, and
// otherwise the preset NAME (or NAME.yaml), so the presets work outside a
// checkout of the source.
package configs
