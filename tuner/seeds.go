package tuner

import "github.com/evotune/evotune/engine"

// Game seeds. Every seed is mix(base + k) for a counter k, where base derives
// from the run seed and mix is engine.Mix64, the splitmix64 finaliser, a
// bijection of uint64: distinct counters give distinct seeds. Tuning games
// use counters below 2^63 (generation g, game j: k = g*games + j) and
// validation games counters from 2^63 up, so no validation seed is ever a
// tuning seed.
//
// Tuning counters are handed out in order from one counter, the state's
// SeedCounter (Tuner.takeSeeds): each generation takes one per game its
// candidates play in common, and with noise handling, whose games per
// generation vary, also those of its re-evaluations. A stage goes on from
// the counter where the previous one ended, so with fixed games per
// candidate its generation i (0-based, counted in the stage) game j gets
// k = first + i*games + j. A run without stages, and the first stage of
// any run without noise handling, gets TuningSeed's k = g*games + j, and
// no stage replays another's seeds, whatever their games per candidate.

const validationOffset = 1 << 63

// Race counters. The final race after generation done (race.go) plays game
// j on counter raceOffset + done<<raceShift + j: below 2^63, and from
// 2^62 up, where the tuning counter never reaches (it would take 2^62
// games), so no race shares a seed with a tuning game, a validation game,
// or another race. They depend on where the race is, not on the tuning
// counter, so a run that stopped at its limit (and raced there) and goes
// on under a higher one plays the tuning seeds a run without the stop
// plays.
const (
	raceOffset = 1 << 62
	raceShift  = 20 // validation.select is at most 2^20
)

// RaceSeed is the seed of game j of the final race after generation done
// (completed generations of the run).
func RaceSeed(runSeed uint64, done, j int) uint64 {
	return mix(seedBase(runSeed) + RaceCounter(done, j))
}

// RaceCounter is the counter of game j of the race after generation done,
// relative to the run's tuning counter 0 (see RaceSeed); a benchmark uses
// it to prove its own games disjoint from a run's.
func RaceCounter(done, j int) uint64 {
	return raceOffset + uint64(done)<<raceShift + uint64(j)
}

func mix(x uint64) uint64 { return engine.Mix64(x) }

func seedBase(runSeed uint64) uint64 { return mix(runSeed + 0x9E3779B97F4A7C15) }

// TuningSeed is the seed of game j of generation g (0-based) of a run that
// plays games games per candidate from its start; every candidate of the
// generation plays the same seeds (common random numbers).
func TuningSeed(runSeed uint64, games, g, j int) uint64 {
	return TuningSeedAt(runSeed, uint64(g)*uint64(games)+uint64(j))
}

// TuningSeedAt is the seed of tuning counter k (below 2^63).
func TuningSeedAt(runSeed uint64, k uint64) uint64 { return mix(seedBase(runSeed) + k) }

// optimizerSeed is the seed of the optimizer's own stream in stage (0-based):
// the first stage's is the one every run had before stages existed.
func optimizerSeed(runSeed uint64, stage int) uint64 {
	s := mix(seedBase(runSeed) ^ 0x6f7074696d697a65)
	if stage == 0 {
		return s
	}
	return mix(s + uint64(stage))
}

// ValidationSeed is the seed of validation game j; the same set serves every
// validation of a run, so validated figures are comparable.
func ValidationSeed(runSeed uint64, j int) uint64 {
	return mix(seedBase(runSeed) + validationOffset + uint64(j))
}
