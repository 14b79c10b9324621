package main

var optbenchCommand = &command{
	name:     "optbench",
	synopsis: "--optimizer cmaes|cem --function sphere|ellipsoid|rosenbrock|rastrigin --dim N [flags]",
	summary:  "benchmark the optimizers on standard test functions",
}
