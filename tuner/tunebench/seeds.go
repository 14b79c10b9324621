package tunebench

import (
	"fmt"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/tuner"
)

// heldOutBase is the counter the held-out games start from: held-out game j
// plays the seed engine.Mix64(heldOutBase + j), whatever the problem and the
// run seed, so every run of a problem is judged on the same games. The value
// is "tunebnch" in ASCII: any fixed number would do; checkDisjoint proves,
// run by run, that no tuning or validation game shares one of these seeds.
const heldOutBase = 0x74756e65626e6368

// HeldOutSeed is the seed of held-out game j.
func HeldOutSeed(j int) uint64 { return engine.Mix64(heldOutBase + uint64(j)) }

// heldOutSeeds returns the seeds of held-out games 0..n-1.
func heldOutSeeds(n int) []uint64 {
	seeds := make([]uint64, n)
	for j := range seeds {
		seeds[j] = HeldOutSeed(j)
	}
	return seeds
}

// checkDisjoint proves that no held-out seed (games 0..heldOut-1) is a seed
// the run with run seed runSeed tuned on (tuning counters 0..counters-1) or
// validated on (validation games 0..validation-1).
//
// The tuner's seeds are Mix64 of a counter: tuning counter k of run seed s
// plays Mix64(b + k) and validation game j Mix64(b + 2^63 + j), for a base b
// that derives from s (see package tuner's seeds.go). Mix64 is a bijection,
// so two seeds are equal exactly when their counters are, and the question
// becomes one of intervals of counters on the 64-bit ring: [heldOutBase,
// +heldOut) against [b, +counters) and [b + 2^63, +validation). The bases
// are read back from the tuner's own seeds through the inverse of Mix64, so
// the proof holds for the seeds the tuner really plays, not for a copy of
// its formula.
func checkDisjoint(runSeed, counters uint64, validation, heldOut int) error {
	tuning := unmix64(tuner.TuningSeedAt(runSeed, 0))
	valid := unmix64(tuner.ValidationSeed(runSeed, 0))
	if overlaps(heldOutBase, uint64(heldOut), tuning, counters) {
		return fmt.Errorf("tunebench: run seed %d: a held-out game shares its seed with one of the %d tuning games", runSeed, counters)
	}
	if overlaps(heldOutBase, uint64(heldOut), valid, uint64(validation)) {
		return fmt.Errorf("tunebench: run seed %d: a held-out game shares its seed with one of the %d validation games", runSeed, validation)
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
