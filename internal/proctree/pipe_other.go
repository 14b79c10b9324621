//go:build !linux

package proctree

import (
	"io"
	"os"
)

// newPipeReader and newPipeWriter are f itself: see pipe_linux.go for why
// Linux reads and writes the pipes otherwise.
func newPipeReader(f *os.File) io.Reader { return f }

func newPipeWriter(f *os.File) io.Writer { return f }
