package tuner

import "testing"

// TestSeedsFixed pins game seeds: they decide every game of every run, so a
// change here changes every result and breaks resuming older runs.
func TestSeedsFixed(t *testing.T) {
	for _, tt := range []struct {
		run                    uint64
		tune0, tune3, validate uint64
	}{
		{0, 0x48218226ff3cd4bf, 0xd071792323d2e084, 0x919f26f6b3fbc2ca},
		{1, 0xdce423fc82c0d5b8, 0xf58962e0f120f8fe, 0x84205ecbee4e8746},
		{7, 0x74b5abcc66b8bdc1, 0xb05833297d10c3ba, 0xed3260657dc81e96},
		{1 << 63, 0x9e6265a28e5c1035, 0x4fea084d8c2e495c, 0x2503d705999fd8e7},
	} {
		if got := TuningSeed(tt.run, 16, 0, 0); got != tt.tune0 {
			t.Errorf("TuningSeed(%d, 16, 0, 0) = %#x, want %#x", tt.run, got, tt.tune0)
		}
		if got := TuningSeed(tt.run, 24, 3, 5); got != tt.tune3 {
			t.Errorf("TuningSeed(%d, 24, 3, 5) = %#x, want %#x", tt.run, got, tt.tune3)
		}
		if got := ValidationSeed(tt.run, 99); got != tt.validate {
			t.Errorf("ValidationSeed(%d, 99) = %#x, want %#x", tt.run, got, tt.validate)
		}
	}
}

// TestSeedsDisjoint checks the promise of seeds.go's counters: no tuning
// seed repeats, no validation seed is a tuning seed, and two runs' seeds
// differ.
func TestSeedsDisjoint(t *testing.T) {
	seen := map[uint64]string{}
	for g := range 50 {
		for j := range 40 {
			s := TuningSeed(7, 40, g, j)
			if prev, ok := seen[s]; ok {
				t.Fatalf("tuning seed (%d, %d) repeats %s", g, j, prev)
			}
			seen[s] = "tuning"
		}
	}
	for j := range 2000 {
		if prev, ok := seen[ValidationSeed(7, j)]; ok {
			t.Fatalf("validation seed %d repeats a %s seed", j, prev)
		}
	}
	if TuningSeed(7, 40, 0, 0) == TuningSeed(8, 40, 0, 0) {
		t.Error("run seeds 7 and 8 share a game seed")
	}
}
