//go:build !race

package integration

// raceDetector reports that the race detector is on; see race_test.go.
const raceDetector = false
