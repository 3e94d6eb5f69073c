//go:build race

package pdf

// raceEnabled is set when the tests run under the race detector.
const raceEnabled = true
