package cputime

import (
	"errors"
	"runtime"
	"testing"
	"time"
)

// TestProcessCPUCountsBusyWork spins until the reading has grown by 20 ms
// of CPU, then checks the growth against the wall clock: a reading in the
// wrong unit either never gets there (too small) or outruns every core
// (too large). The deadline is generous for a loaded machine.
func TestProcessCPUCountsBusyWork(t *testing.T) {
	start, err := Process()
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skipf("no CPU clock here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	const want = 20 * time.Millisecond
	wall0 := time.Now()
	deadline := wall0.Add(30 * time.Second)
	var used time.Duration
	x := uint64(1)
	for used < want {
		if time.Now().After(deadline) {
			t.Fatalf("CPU time grew by %v in 30 s of spinning, want %v", used, want)
		}
		for range 100_000 {
			x = x*6364136223846793005 + 1442695040888963407
		}
		now, err := Process()
		if err != nil {
			t.Fatal(err)
		}
		if now < start+used {
			t.Fatalf("CPU time went backwards: %v after %v", now, start+used)
		}
		used = now - start
	}
	wall := time.Since(wall0)
	// Each core adds at most its wall time; 50 ms covers the clock's ticks.
	if limit := wall*time.Duration(runtime.NumCPU()) + 50*time.Millisecond; used > limit {
		t.Errorf("CPU time grew by %v in %v of wall time on %d cores, more than %v", used, wall, runtime.NumCPU(), limit)
	}
	_ = x
}

func TestCPUFromFiletime(t *testing.T) {
	for _, tc := range []struct {
		high, low uint32
		want      time.Duration
	}{
		{0, 0, 0},
		{0, 1, 100 * time.Nanosecond},
		{0, 10_000_000, time.Second},
		// 2^32 ticks of 100 ns: the high half counts.
		{1, 0, 429_496_729_600 * time.Nanosecond},
		{0, 0xffffffff, 429_496_729_500 * time.Nanosecond},
	} {
		if got := filetimeDuration(tc.high, tc.low); got != tc.want {
			t.Errorf("filetimeDuration(%d, %d) = %v, want %v", tc.high, tc.low, got, tc.want)
		}
	}
}
