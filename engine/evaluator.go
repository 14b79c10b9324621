package engine

// An Evaluator scores a board for the searchers: larger is better. The
// searchers call it at every leaf, so implementations should be table-driven
// and must be safe for concurrent use if shared between goroutines.
type Evaluator interface {
	Evaluate(b Board) float64
}
