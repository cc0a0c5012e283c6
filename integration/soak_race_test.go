//go:build race

package integration

// soakRace reports that the race detector is on. Under it everything runs
// 5-10 times slower, so the soak feeds soakDocumentsRace documents instead of
// soakDocuments to stay well under a minute on CI's two cores.
const soakRace = true
