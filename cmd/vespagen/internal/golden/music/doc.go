// Package music is the output of vespagen for the music schema of the
// integration suite (integration/testdata/app): a golden file that the
// generator's tests compare with, compiled and used by this package's tests.
// One schema, so its field references are package-level variables:
// music.Year.Lt(1990).
package music

//go:generate go run github.com/govespa/govespa/cmd/vespagen -app ../../../../../integration/testdata/app -package music -out music.go
