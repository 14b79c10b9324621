package engine

import (
	"testing"
	"time"
)

// Table scopes for the benchmarks that chose the search scope.
const (
	ScopeSearch   = scopeSearch
	ScopeRootMove = scopeRootMove
	ScopeGame     = scopeGame
)

type TableScope = tableScope

// SetTableScope changes how long table entries stay valid; see tableScope.
func (s *Expectimax) SetTableScope(sc TableScope) { s.scope = sc }

// DepthLimit returns the moves below the root move that a search from b
// makes; see depthLimit.
func (s *Nneonneo) DepthLimit(b Board) int { return s.depthLimit(b) }

// CPUTime is cpuTime, for the benchmarks outside the package.
func CPUTime(b *testing.B) time.Duration { return cpuTime(b) }
