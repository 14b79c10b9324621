// Package tuner implements the generation loop that tunes evaluation weights
// by playing seeded games.
package tuner
