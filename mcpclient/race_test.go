//go:build race

package mcpclient

// raceEnabled reports whether the tests run under the race detector.
const raceEnabled = true
