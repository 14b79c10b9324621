// Package eval implements evaluation functions for 2048 boards: feature sets,
// weight vectors compiled into row tables, and the classic reference
// evaluator.
package eval
