//go:build race

package integration

// suiteRace reports that the race detector is on; the suite then feeds
// raceDocuments instead of suiteDocuments (see suite_test.go).
const suiteRace = true
