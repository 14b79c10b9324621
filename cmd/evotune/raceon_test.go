//go:build race

package main

// raceDetector says the tests run under the race detector, which plays
// games several times slower: tests that size work by time play less.
const raceDetector = true
