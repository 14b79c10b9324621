//go:build windows

package cputime

import (
	"fmt"
	"time"

	"golang.org/x/sys/windows"
)

func process() (time.Duration, error) {
	var creation, exit, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &creation, &exit, &kernel, &user); err != nil {
		return 0, fmt.Errorf("cputime: GetProcessTimes: %w", err)
	}
	return filetimeDuration(kernel.HighDateTime, kernel.LowDateTime) +
		filetimeDuration(user.HighDateTime, user.LowDateTime), nil
}
