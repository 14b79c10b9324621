package population_test

import (
	"fmt"

	"github.com/evotune/evotune/population"
)

// The tuner's loop: ask for candidates, evaluate them (here a quadratic
// with its minimum at (3, −2); a real caller may evaluate in parallel and
// write the values into slots by index), tell the values back, and stop
// on a reason. Fitness is minimised: a caller maximising a score tells
// its negation.
func Example() {
	target := 1e-10
	opt, err := population.NewCMAES(population.CMAESConfig{Config: population.Config{
		X0:      []float64{1, 1},
		Scale:   []float64{1, 1},
		Sigma0:  0.5,
		Seed:    1,
		TargetF: &target,
	}})
	if err != nil {
		panic(err)
	}
	f := func(x []float64) float64 { return (x[0]-3)*(x[0]-3) + (x[1]+2)*(x[1]+2) }
	for {
		xs := opt.Ask()
		fit := make([]float64, len(xs))
		for i, x := range xs {
			fit[i] = f(x)
		}
		if err := opt.Tell(fit); err != nil {
			panic(err)
		}
		if reason, stop := opt.Stop(); stop {
			fmt.Println("stopped:", reason)
			break
		}
	}
	m := opt.Mean()
	fmt.Printf("mean %.4f %.4f\n", m[0], m[1])
	// Output:
	// stopped: target
	// mean 3.0000 -2.0000
}

// Saving between generations and restoring continues the run bit for bit.
func ExampleUnmarshal() {
	opt, _ := population.NewCEM(population.CEMConfig{Config: population.Config{X0: []float64{5, 5}, Seed: 7}})
	for range 3 {
		xs := opt.Ask()
		fit := make([]float64, len(xs))
		for i, x := range xs {
			fit[i] = x[0]*x[0] + x[1]*x[1]
		}
		opt.Tell(fit)
	}
	state, _ := opt.MarshalBinary()
	resumed, err := population.Unmarshal(state)
	if err != nil {
		panic(err)
	}
	fmt.Println(resumed.Lambda(), resumed.Evaluations()) // 3 generations of 20
	fmt.Println(resumed.Ask()[0][0] == opt.Ask()[0][0])
	// Output:
	// 20 60
	// true
}
