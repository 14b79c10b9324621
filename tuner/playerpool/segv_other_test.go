//go:build !unix

package playerpool

import "os"

// segfault ends the process as a crash would, where there is no SIGSEGV
// to send.
func segfault() { os.Exit(139) }
