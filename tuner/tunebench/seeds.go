package tunebench

import (
	"fmt"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/tuner"
)

// heldOutBase is the counter the development block of held-out games starts
// from: held-out game j plays the seed engine.Mix64(heldOutBase + j),
// whatever the problem and the run seed, so every run of a problem is judged
// on the same games. The value is "tunebnch" in ASCII: any fixed number would
// do; checkDisjoint proves, run by run, that no tuning or validation game
// shares one of these seeds.
const heldOutBase = 0x74756e65626e6368

// confirmBase is the confirmation block's first counter ("confirms" in
// ASCII). It lies 2^60.09 counters below heldOutBase on the ring of uint64,
// so the two blocks are disjoint while each holds fewer than 2^60 games
// (TestBlocksAreDisjoint); a problem holds about a thousand.
const confirmBase = 0x636f6e6669726d73

// The blocks, as Result.Block names them. Development is where settings are
// chosen: run seeds 1 to 8 and the first block of held-out games.
// Confirmation is where the rows reported are played, once: run seeds no
// setting saw (101 to 108 unless given) and a second block of held-out
// games.
const (
	Development  = "development"
	Confirmation = "confirmation"
)

// DefaultSeeds are the run seeds a benchmark uses when Options gives none;
// ConfirmSeeds under Options.Confirm: eight, as the reported tables have,
// since a confirmation row is played once and its worst run is one of its
// figures.
var (
	DefaultSeeds = []uint64{1, 2, 3}
	ConfirmSeeds = []uint64{101, 102, 103, 104, 105, 106, 107, 108}
)

// lastDevelopmentSeed is the last run seed of development: settings are
// chosen on run seeds 1 to lastDevelopmentSeed.
const lastDevelopmentSeed = 8

// CheckConfirmSeeds refuses, under Options.Confirm, run seeds settings may
// have been chosen on (1 to 8): a confirmation that played one would
// report figures its settings were picked for.
func CheckConfirmSeeds(seeds []uint64) error {
	for _, s := range seeds {
		if s >= 1 && s <= lastDevelopmentSeed {
			return fmt.Errorf("run seed %d is one of the development seeds 1-%d, on which settings are chosen; a confirmation plays others (default %d-%d)",
				s, lastDevelopmentSeed, ConfirmSeeds[0], ConfirmSeeds[len(ConfirmSeeds)-1])
		}
	}
	return nil
}

// HeldOutSeed is the seed of held-out game j of the development block.
func HeldOutSeed(j int) uint64 { return engine.Mix64(heldOutBase + uint64(j)) }

// ConfirmSeed is the seed of held-out game j of the confirmation block.
func ConfirmSeed(j int) uint64 { return engine.Mix64(confirmBase + uint64(j)) }

// blockBase is the first counter of a block's held-out games.
func blockBase(block string) uint64 {
	if block == Confirmation {
		return confirmBase
	}
	return heldOutBase
}

// heldOutSeeds returns the seeds of a block's held-out games 0..n-1.
func heldOutSeeds(block string, n int) []uint64 {
	base := blockBase(block)
	seeds := make([]uint64, n)
	for j := range seeds {
		seeds[j] = engine.Mix64(base + uint64(j))
	}
	return seeds
}

// checkDisjoint proves that no held-out seed of either block (games
// 0..heldOut-1 of each) is a seed the run with run seed runSeed tuned on
// (tuning counters 0..counters-1), raced on (the final races after
// generations 0..generations) or validated on (validation games
// 0..validation-1). Both blocks, not only the one the run is judged on: a
// development run's games stay off the confirmation block too.
//
// The tuner's seeds are Mix64 of a counter: tuning counter k of run seed s
// plays Mix64(b + k) and validation game j Mix64(b + 2^63 + j), for a base b
// that derives from s (see package tuner's seeds.go). Mix64 is a bijection,
// so two seeds are equal exactly when their counters are, and the question
// becomes one of intervals of counters on the 64-bit ring: [base,
// +heldOut) against [b, +counters), the races' counters from
// tuner.RaceCounter(0, 0) to tuner.RaceCounter(generations+1, 0) (one
// interval holding every race's), and [b + 2^63, +validation). The bases
// are read back from the tuner's own seeds through the inverse of Mix64, so
// the proof holds for the seeds the tuner really plays, not for a copy of
// its formula.
func checkDisjoint(runSeed, counters uint64, generations, validation, heldOut int) error {
	tuning := unmix64(tuner.TuningSeedAt(runSeed, 0))
	valid := unmix64(tuner.ValidationSeed(runSeed, 0))
	race := unmix64(tuner.RaceSeed(runSeed, 0, 0))
	races := tuner.RaceCounter(generations+1, 0) - tuner.RaceCounter(0, 0)
	for _, block := range []string{Development, Confirmation} {
		base := blockBase(block)
		if overlaps(base, uint64(heldOut), tuning, counters) {
			return fmt.Errorf("tunebench: run seed %d: a held-out game of the %s block shares its seed with one of the %d tuning games", runSeed, block, counters)
		}
		if overlaps(base, uint64(heldOut), race, races) {
			return fmt.Errorf("tunebench: run seed %d: a held-out game of the %s block shares its seed with a game of a final race", runSeed, block)
		}
		if overlaps(base, uint64(heldOut), valid, uint64(validation)) {
			return fmt.Errorf("tunebench: run seed %d: a held-out game of the %s block shares its seed with one of the %d validation games", runSeed, block, validation)
		}
	}
	return nil
}

// overlaps reports whether the counter intervals [a, a+n) and [b, b+m),
// taken on the ring of uint64 (arithmetic mod 2^64), share a counter: one
// interval's start lies in the other (an empty interval overlaps nothing).
func overlaps(a, n, b, m uint64) bool {
	if n == 0 || m == 0 {
		return false
	}
	return b-a < n || a-b < m
}

// unmix64 inverts engine.Mix64: each xor-shift is undone by xoring the
// shifts again (x ^ x>>s ^ x>>2s ...), each multiplication by the odd
// multiplier's inverse mod 2^64.
func unmix64(x uint64) uint64 {
	x = unxorshift(x, 31)
	x *= mulInverse(0x94D049BB133111EB)
	x = unxorshift(x, 27)
	x *= mulInverse(0xBF58476D1CE4E5B9)
	return unxorshift(x, 30)
}

// unxorshift inverts y = x ^ x>>s.
func unxorshift(y uint64, s uint) uint64 {
	x := y
	for shift := s; shift < 64; shift += s {
		x ^= y >> shift
	}
	return x
}

// mulInverse returns the inverse of the odd a mod 2^64 by Newton's
// iteration, each step doubling the correct low bits (a is its own inverse
// mod 8, so five steps reach 3·2^5 = 96 ≥ 64 bits).
func mulInverse(a uint64) uint64 {
	x := a
	for range 5 {
		x *= 2 - a*x
	}
	return x
}
