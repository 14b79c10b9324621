package tuner

import "github.com/evotune/evotune/engine"

// Game seeds. Every seed is mix(base + k) for a counter k, where base derives
// from the run seed and mix is engine.Mix64, the splitmix64 finaliser, a
// bijection of uint64: distinct counters give distinct seeds. Tuning games
// use counters below 2^63 (generation g, game j: k = g*games + j) and
// validation games counters from 2^63 up, so no validation seed is ever a
// tuning seed.

const validationOffset = 1 << 63

func mix(x uint64) uint64 { return engine.Mix64(x) }

func seedBase(runSeed uint64) uint64 { return mix(runSeed + 0x9E3779B97F4A7C15) }

// TuningSeed is the seed of game j of generation g (0-based); every
// candidate of the generation plays the same seeds (common random numbers).
func TuningSeed(runSeed uint64, games, g, j int) uint64 {
	return mix(seedBase(runSeed) + uint64(g)*uint64(games) + uint64(j))
}

// ValidationSeed is the seed of validation game j; the same set serves every
// validation of a run, so validated figures are comparable.
func ValidationSeed(runSeed uint64, j int) uint64 {
	return mix(seedBase(runSeed) + validationOffset + uint64(j))
}
