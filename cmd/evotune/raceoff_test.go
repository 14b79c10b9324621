//go:build !race

package main

// raceDetector says the tests run under the race detector (raceon_test.go).
const raceDetector = false
