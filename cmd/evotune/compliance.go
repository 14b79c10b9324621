package main

import (
	"context"
	"io"
)

func complianceCommand(ctx context.Context, command string, w io.Writer) error { return usagef("not yet") }
