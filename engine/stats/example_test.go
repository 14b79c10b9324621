package stats_test

import (
	"fmt"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/engine/stats"
)

func ExampleCompare() {
	// Four seeds: A's and B's scores on each.
	var a, b []engine.Result
	for i, s := range [][2]int{{4000, 2100}, {6200, 3000}, {3100, 2000}, {8000, 3900}} {
		a = append(a, engine.Result{Seed: uint64(i), Score: s[0], MaxTile: 512})
		b = append(b, engine.Result{Seed: uint64(i), Score: s[1], MaxTile: 256})
	}
	c, _ := stats.Compare(a, b)
	// d = 1900 3200 1100 4100: mean 2575, sd 1335, half-width t(3)·sd/2.
	fmt.Printf("A - B %.0f [%.0f, %.0f], A/B %.2f [%.2f, %.2f], W/L/T %d/%d/%d: %v\n",
		c.Diff, c.DiffCI95.Lo, c.DiffCI95.Hi, c.Ratio, c.RatioCI95.Lo, c.RatioCI95.Hi, c.Wins, c.Losses, c.Ties, c.Verdict)
	// Output:
	// A - B 2575 [451, 4699], A/B 1.94 [1.64, 2.29], W/L/T 4/0/0: A better
}

func ExampleSPRT_Test() {
	// B scores 1000 + 10i, A 20% more but for ±50: the test accepts "A is
	// 5% better" over "no better" at its first look.
	var a, b []float64
	for i := range 100 {
		b = append(b, float64(1000+10*i))
		a = append(a, 1.2*float64(1000+10*i)+float64(50-100*(i%2)))
	}
	r := stats.SPRT{H0: 1, H1: 1.05}.Test(a, b)
	fmt.Printf("%v after %d games, LLR %.2f in [%.2f, %.2f]: %v\n", r.Decision, r.Games, r.LLR, r.Bounds.Lo, r.Bounds.Hi, r.Verdict())
	// Output:
	// accept H1 after 16 games, LLR 4.69 in [-2.94, 2.94]: A better
}
