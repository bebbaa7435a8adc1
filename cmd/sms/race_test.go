//go:build race

package main

// raceEnabled is true when the tests run with -race; the end-to-end test then builds the
// binary with -race too, reusing the packages already compiled for the test.
const raceEnabled = true
