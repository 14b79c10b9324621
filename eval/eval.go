package eval

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"

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
	// ErrFeatureSet is wrapped by errors about a feature set that is not
	// well formed (Check) or cannot be registered (Register).
	ErrFeatureSet = errors.New("eval: bad feature set")
)

// registry lists every registered feature set, in the order Names reports
// them: the built-in sets first, in a fixed order, then the others in the
// order they were registered.
var (
	registryMu sync.RWMutex
	registry   []*FeatureSet
)

func init() {
	// The built-in sets skip Check's compile of their defaults (the tests
	// compile them): building their tables at start-up would cost every
	// command that never evaluates a few milliseconds.
	for _, s := range []*FeatureSet{classicSet, standardSet, nneonneoSet} {
		err := s.checkDescription()
		if err == nil {
			err = register(s)
		}
		if err != nil {
			panic(err) // a built-in set is broken: no input can cause it
		}
	}
}

// Register checks s (see Check) and adds it to the registry, so that Set,
// Lookup and Names know it, and configs, weights files and workers on other
// machines can name it. A name can be registered once. A program that tunes
// its own set registers it before it resumes a run or reads a weights file
// of that set (both name it); tuning alone does not need it
// (tuner.Config.Set).
func Register(s *FeatureSet) error {
	if err := s.Check(); err != nil {
		return err
	}
	return register(s)
}

func register(s *FeatureSet) error {
	registryMu.Lock()
	defer registryMu.Unlock()
	for _, r := range registry {
		if r.Name == s.Name {
			return fmt.Errorf("%w: %s: a feature set of that name is registered already", ErrFeatureSet, s.Name)
		}
	}
	registry = append(registry, s)
	return nil
}

// nameRE is what names of sets, features and parameters may be: they are
// keys and values in YAML files and tokens in listings.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]*$`)

// Check reports whether s is a well-formed feature set: a valid name, a
// Model, at least one feature, distinct valid names for the features and
// parameters, one finite default weight per feature, every parameter's
// default within its finite bounds, a Reference that names a feature with a
// positive default weight (required of a ScaleInvariant set), and defaults
// that compile. Errors wrap ErrFeatureSet.
func (s *FeatureSet) Check() error {
	if err := s.checkDescription(); err != nil {
		return err
	}
	s.def.once.Do(s.compileDefaults)
	if s.def.err != nil {
		return fmt.Errorf("%w: %s: the default weights do not compile: %w", ErrFeatureSet, s.Name, s.def.err)
	}
	return nil
}

// checkDescription is Check without compiling the defaults.
func (s *FeatureSet) checkDescription() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrFeatureSet, s.Name, fmt.Sprintf(format, args...))
	}
	switch {
	case !nameRE.MatchString(s.Name):
		return fmt.Errorf("%w: name %q: want letters, digits, '.', '_' or '-', not starting with '.' or '-'", ErrFeatureSet, s.Name)
	case s.Model == nil:
		return bad("no Model: nothing computes the features")
	case len(s.Features) == 0:
		return bad("no features")
	case len(s.Defaults) != len(s.Features):
		return bad("%d default weights for %d features", len(s.Defaults), len(s.Features))
	}
	seen := map[string]bool{}
	name := func(what, n string) error {
		if !nameRE.MatchString(n) {
			return bad("%s name %q: want letters, digits, '.', '_' or '-', not starting with '.' or '-'", what, n)
		}
		if seen[n] {
			return bad("%s %q: the name is used twice among the features and parameters", what, n)
		}
		seen[n] = true
		return nil
	}
	for i, f := range s.Features {
		if err := name("feature", f.Name); err != nil {
			return err
		}
		if x := s.Defaults[i]; math.IsNaN(x) || math.IsInf(x, 0) {
			return bad("default weight of %s is %g, want a finite number", f.Name, x)
		}
	}
	for _, q := range s.Params {
		if err := name("parameter", q.Name); err != nil {
			return err
		}
		if math.IsInf(q.Min, 0) || math.IsInf(q.Max, 0) || !(q.Min <= q.Default && q.Default <= q.Max) {
			return bad("parameter %s: default %g, bounds [%g, %g]: want finite bounds with min <= default <= max", q.Name, q.Default, q.Min, q.Max)
		}
	}
	switch r := s.ReferenceIndex(); {
	case s.Reference == "" && s.ScaleInvariant:
		return bad("scale-invariant but no Reference: name the feature whose weight a tuner holds fixed")
	case s.Reference != "" && r < 0:
		return bad("reference %q is not a feature (features: %s)", s.Reference, strings.Join(s.FeatureNames(), ", "))
	case r >= 0 && !(s.Defaults[r] > 0):
		return bad("reference %s has default weight %g, want > 0", s.Reference, s.Defaults[r])
	}
	return nil
}

// Names lists the evaluators Lookup knows (the registered feature sets), the
// built-in sets first.
func Names() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := make([]string, len(registry))
	for i, s := range registry {
		names[i] = s.Name
	}
	return names
}

// Set returns the registered feature set with the given name.
func Set(name string) (*FeatureSet, error) {
	registryMu.RLock()
	for _, s := range registry {
		if s.Name == name {
			registryMu.RUnlock()
			return s, nil
		}
	}
	registryMu.RUnlock()
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
