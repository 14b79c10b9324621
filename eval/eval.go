package eval

import (
	"errors"
	"fmt"
	"strings"

	"github.com/evotune/evotune/engine"
)

// ErrUnknown is wrapped by errors about an evaluator or feature set name that
// does not exist.
var ErrUnknown = errors.New("eval: unknown evaluator")

// Names lists the evaluators Lookup knows, in a fixed order.
func Names() []string { return []string{"classic"} }

// Lookup returns the evaluator with the given name and its default weights.
func Lookup(name string) (engine.Evaluator, error) {
	switch name {
	case "classic":
		return Classic{}, nil
	}
	return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknown, name, strings.Join(Names(), ", "))
}
