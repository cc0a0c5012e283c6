//go:build race

package integration

// raceDetector reports that the race detector is on. Under it the emulator runs
// many times slower: the feed about 5 times (20,000 documents took 39 s on two
// busy cores), so the soak feeds soakDocumentsRace documents instead of
// soakDocuments (.ci/run also runs the soak without -race, at full size); an
// exact nearestNeighbor over the suite's 10,000 songs about 20 times (0.2 s
// without, 4.6-5.5 s with, on a quiet machine), so the suite gives its queries
// longer (see suite.search).
const raceDetector = true
