//go:build !race

package integration

// soakRace reports that the race detector is on; see soak_race_test.go.
const soakRace = false
