//go:build !race

package integration

// suiteRace reports that the race detector is on; see suite_race_test.go.
const suiteRace = false
