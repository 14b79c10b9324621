package population

import (
	"encoding"
	"errors"
)

// Optimizer is the ask/tell interface shared by CMAES and CEM: what the
// tuner and the benchmark runner use. The concrete types add what only
// finer-grained callers need (TellAt, Generation).
//
// Fitness is MINIMISED: lower is better. A caller that maximises a score
// (the tuner's mean game score) tells the negated score.
//
// One generation is: Ask, evaluate every candidate (in any order, on any
// number of goroutines; the candidates are read-only), then Tell all values
// at once. The optimizer itself is not safe for concurrent use: collect the
// values in slots by index and tell them from one goroutine.
type Optimizer interface {
	// Ask returns the λ candidates of the current generation in the
	// caller's coordinates (un-normalised and inside the bounds). Calling
	// it again before the generation is complete returns the same slices.
	// The slices are fresh each generation, so a caller may keep them.
	Ask() [][]float64
	// Tell completes the generation: fitness[i] is the (minimised) fitness
	// of candidate i. On error nothing changes.
	Tell(fitness []float64) error
	// Mean is the distribution mean in the caller's coordinates: the
	// recommended point (under noise, better than the best sample).
	Mean() []float64
	// Best is the best candidate told so far (over all restarts) and its
	// fitness; nil and +Inf before the first generation.
	Best() ([]float64, float64)
	// Stop reports whether a terminal stop condition held at the end of the
	// last generation, and which. Under IPOP a local condition restarts
	// the search instead (see Restarts). Ask and Tell keep working after a
	// stop; it is the caller's decision to end the loop.
	Stop() (Reason, bool)
	// Evaluations counts the evaluations of the completed generations, over
	// all restarts.
	Evaluations() int
	// Restarts counts the IPOP restarts done so far.
	Restarts() int
	// Lambda is the current population size: the number of candidates the
	// next Ask returns (it doubles at each IPOP restart).
	Lambda() int
	// Method names the algorithm.
	Method() Method
	// Sigma is the overall step size in normalised coordinates (for CEM,
	// the root mean square of the per-coordinate standard deviations).
	Sigma() float64
	// AxisRatio is the ratio of the longest to the shortest principal axis
	// of the sampling distribution, √(λ_max/λ_min) over the eigenvalues of
	// its covariance (CMA-ES: of C, without σ; CEM: of its diagonal or full
	// covariance); 1 for an isotropic distribution, +Inf when the
	// covariance is not positive definite.
	AxisRatio() float64
	// Recenter moves the distribution's mean to x (caller coordinates,
	// inside the bounds) and multiplies its steps by factor, keeping the
	// shape of its covariance; the generation in progress is dropped.
	Recenter(x []float64, factor float64) error
	// MarshalBinary saves the exact state, including a generation in
	// progress; UnmarshalBinary restores it so that the run continues bit
	// for bit. UnmarshalBinary works on a zero value and rejects corrupt
	// or foreign bytes with an error wrapping ErrState.
	encoding.BinaryMarshaler
	encoding.BinaryUnmarshaler
}

var (
	_ Optimizer = (*CMAES)(nil)
	_ Optimizer = (*CEM)(nil)
)

// Errors. Every error of the package starts with "population: ".
var (
	ErrConfig        = errors.New("population: invalid config")
	ErrState         = errors.New("population: invalid state")
	ErrNotAsked      = errors.New("population: fitness told before Ask")
	ErrFitnessLength = errors.New("population: wrong number of fitness values")
	ErrIndex         = errors.New("population: candidate index out of range")
	ErrToldTwice     = errors.New("population: fitness told twice for one candidate")
	ErrNaN           = errors.New("population: fitness is NaN")
)
