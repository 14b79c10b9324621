package tunebench

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/tuner"
)

func TestUnmixInvertsMix(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := []uint64{0, 1, 1 << 63, ^uint64(0), heldOutBase}
	for range 10000 {
		xs = append(xs, rng.Uint64())
	}
	for _, x := range xs {
		if got := unmix64(engine.Mix64(x)); got != x {
			t.Fatalf("unmix64(Mix64(%#x)) = %#x", x, got)
		}
		if got := engine.Mix64(unmix64(x)); got != x {
			t.Fatalf("Mix64(unmix64(%#x)) = %#x", x, got)
		}
	}
	for _, a := range []uint64{0x94D049BB133111EB, 0xBF58476D1CE4E5B9, 1, 3, ^uint64(0)} {
		if a*mulInverse(a) != 1 {
			t.Errorf("mulInverse(%#x) is no inverse", a)
		}
	}
}

// TestTunerSeedsAreCounters checks the premise checkDisjoint's proof rests
// on: the tuner's seeds are Mix64 of consecutive counters from the bases it
// reads back.
func TestTunerSeedsAreCounters(t *testing.T) {
	for _, s := range []uint64{0, 1, 2, 3, 12345} {
		tb, vb := unmix64(tuner.TuningSeedAt(s, 0)), unmix64(tuner.ValidationSeed(s, 0))
		for _, k := range []uint64{1, 2, 47, 1 << 20, 1<<40 + 3} {
			if got, want := tuner.TuningSeedAt(s, k), engine.Mix64(tb+k); got != want {
				t.Errorf("seed %d: tuning counter %d: %#x, want %#x", s, k, got, want)
			}
		}
		for _, j := range []int{1, 2, 199, 1199} {
			if got, want := tuner.ValidationSeed(s, j), engine.Mix64(vb+uint64(j)); got != want {
				t.Errorf("seed %d: validation game %d: %#x, want %#x", s, j, got, want)
			}
		}
		for _, done := range []int{0, 1, 24, 100000} {
			for _, j := range []int{0, 1, 95, 1<<20 - 1} {
				if got, want := tuner.RaceSeed(s, done, j), engine.Mix64(tb+tuner.RaceCounter(done, j)); got != want {
					t.Errorf("seed %d: race after %d, game %d: %#x, want %#x", s, done, j, got, want)
				}
			}
		}
	}
}

// overlapsSlow is overlaps by enumeration, for short intervals.
func overlapsSlow(a, n, b, m uint64) bool {
	for i := range n {
		for j := range m {
			if a+i == b+j {
				return true
			}
		}
	}
	return false
}

func TestOverlapsMatchesEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		a := rng.Uint64()
		if rng.IntN(4) == 0 {
			a = ^uint64(0) - rng.Uint64N(20) // near the wrap
		}
		b := a + rng.Uint64N(60) - 30
		n, m := rng.Uint64N(25), rng.Uint64N(25)
		if got, want := overlaps(a, n, b, m), overlapsSlow(a, n, b, m); got != want {
			t.Fatalf("overlaps(%#x, %d, %#x, %d) = %v, want %v", a, n, b, m, got, want)
		}
	}
}

func TestHeldOutDisjointFromRuns(t *testing.T) {
	for _, s := range append(DefaultSeeds, 0, 4, 5, 100) {
		// 2^40 tuning games is centuries of tuning.
		if err := checkDisjoint(s, 1<<40, 1<<20, 1<<20, 1<<20); err != nil {
			t.Error(err)
		}
	}
	// A run whose tuning counters reached the held-out games' is caught.
	tb := unmix64(tuner.TuningSeedAt(7, 0))
	if err := checkDisjoint(7, heldOutBase-tb+1, 0, 10, 10); err == nil {
		t.Error("overlapping tuning seeds passed")
	}
	// And one whose races did (a run of absurdly many generations).
	rb := unmix64(tuner.RaceSeed(7, 0, 0))
	if err := checkDisjoint(7, 10, int((heldOutBase-rb)>>20), 10, 10); err == nil || !strings.Contains(err.Error(), "final race") {
		t.Errorf("overlapping race seeds passed: %v", err)
	}
	if HeldOutSeed(3) != engine.Mix64(heldOutBase+3) {
		t.Error("HeldOutSeed is not Mix64 of its counter")
	}
}
