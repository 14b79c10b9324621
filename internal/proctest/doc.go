// Package proctest implements what the tests that drive real child
// processes (players, peers, process trees) share: whether a process
// still runs and a wait for a set of them to be gone (Unix, proctest.go),
// and a buffer that takes a child's output from one goroutine while the
// test reads it from another (buffer.go).
package proctest
