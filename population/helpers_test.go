package population

import (
	"errors"
	"strings"
)

func errorsIs(err, target error) bool { return errors.Is(err, target) }
func contains(s, sub string) bool     { return strings.Contains(s, sub) }
