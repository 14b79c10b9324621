package eval

import (
	"errors"
	"fmt"
	"strings"

	"github.com/evotune/evotune/engine"
)

var (
	// ErrUnknown is wrapped by errors about an evaluator or feature set name
	// that does not exist.
	ErrUnknown = errors.New("eval: unknown evaluator")
	// ErrWeights is wrapped by errors about a weight vector that does not fit
	// its feature set: wrong length, or a weight that is not finite.
	ErrWeights = errors.New("eval: bad weights")
	// ErrParams is wrapped by errors about a parameter vector that does not
	// fit its feature set: wrong length, or a value outside its bounds.
	ErrParams = errors.New("eval: bad parameters")
)

// registry lists every feature set, in the order Names reports them. Adding
// a set means adding its file and one line here; nothing outside the package
// changes.
var registry = []*FeatureSet{
	classicSet,
	standardSet,
	nneonneoSet,
}

// Names lists the evaluators Lookup knows (the feature sets), in a fixed
// order.
func Names() []string {
	names := make([]string, len(registry))
	for i, s := range registry {
		names[i] = s.Name
	}
	return names
}

// Set returns the feature set with the given name.
func Set(name string) (*FeatureSet, error) {
	for _, s := range registry {
		if s.Name == name {
			return s, nil
		}
	}
	return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknown, name, strings.Join(Names(), ", "))
}

// Lookup returns the evaluator of the named feature set with its default
// weights. The evaluator is shared and safe for concurrent use.
func Lookup(name string) (engine.Evaluator, error) {
	s, err := Set(name)
	if err != nil {
		return nil, err
	}
	return s.Default(), nil
}

// Default returns s compiled with its default weights, compiled on first use
// and shared afterwards.
func (s *FeatureSet) Default() *Compiled {
	s.defaultOnce.Do(func() {
		c, err := s.Compile(s.Defaults)
		if err != nil {
			panic(fmt.Sprintf("eval: default weights of %s do not compile: %v", s.Name, err))
		}
		s.defaultCompiled = c
	})
	return s.defaultCompiled
}
