package population

import (
	"errors"
	"strings"
)

func errorsIs(err, target error) bool { return errors.Is(err, target) }
func contains(s, sub string) bool     { return strings.Contains(s, sub) }

// fullOptimizer is Optimizer with the methods the concrete types add, for
// the tests that tell values one at a time or count generations.
type fullOptimizer interface {
	Optimizer
	TellAt(i int, f float64) error
	Generation() int
}

var (
	_ fullOptimizer = (*CMAES)(nil)
	_ fullOptimizer = (*CEM)(nil)
)
