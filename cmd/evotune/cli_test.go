package main

import (
	"bytes"
	"context"
	"testing"
)

// runCLI runs the command line in-process, as main does with the process's
// arguments and streams, and returns its exit status and output.
func runCLI(t testing.TB, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runCLIContext(t.Context(), args...)
}

// runCLIContext is runCLI under ctx, for the tests that interrupt a command.
func runCLIContext(ctx context.Context, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(ctx, args, &out, &errb)
	return code, out.String(), errb.String()
}
