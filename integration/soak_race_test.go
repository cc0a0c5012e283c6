//go:build race

package integration

// soakRace reports that the race detector is on. Under it the feed runs about
// 5 times slower (20,000 documents took 39 s on two busy cores), so the soak
// feeds soakDocumentsRace documents instead of soakDocuments, to stay well
// under a minute; .ci/run also runs the soak without -race, at full size.
const soakRace = true
