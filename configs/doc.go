// Package configs holds the YAML tuning presets that ship inside the binary.
package configs
