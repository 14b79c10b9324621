// Package golden implements golden-file tests: a test renders some output
// (CLI text, an exported file, an encoded checkpoint) and compares it byte
// for byte with a file checked in under testdata, usually named *.golden.
// A change to the bytes then shows in review as a change to that file,
// and an accidental one fails the test with a diff.
//
// A test calls Check with the file's path and what it produced. When the
// change is intended, the -update flag rewrites the files instead of
// comparing them:
//
//	go test ./tuner -run CheckpointGolden -update   # one test
//	go test ./cmd/evotune -update                   # one package
//
// go test ./... -update fails in packages whose tests do not import this
// package, since their test binaries do not know the flag; this lists the
// ones that do:
//
//	go test $(go list -f '{{.ImportPath}} {{.TestImports}} {{.XTestImports}}' ./... | grep /internal/golden | cut -d' ' -f1) -update
//
// Review the rewritten files with git diff before committing them:
// -update makes any output pass.
//
// The package registers -update once, on the test binary's command line,
// for every package whose tests import it, so the flag means the same
// everywhere. It is for tests only: a program that imported it would grow
// an -update flag of its own.
package golden
