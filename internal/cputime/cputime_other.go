//go:build !unix && !windows

package cputime

import (
	"errors"
	"fmt"
	"runtime"
	"time"
)

func process() (time.Duration, error) {
	return 0, fmt.Errorf("cputime: no CPU clock on %s: %w", runtime.GOOS, errors.ErrUnsupported)
}
