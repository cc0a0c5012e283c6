// Package rich is the output of vespagen for cmd/vespagen/testdata/rich,
// whose schemas hold every field type the generator maps: a golden file
// that the generator's tests compare with, compiled and used by this
// package's tests. Three schemas have field references, so they are grouped
// per schema: rich.SongFields.Year.Lt(1990).
package rich

//go:generate go run github.com/govespa/govespa/cmd/vespagen -app ../../../testdata/rich -package rich -out rich.go
