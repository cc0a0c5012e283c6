// Package gen holds the Go code that vespagen (cmd/vespagen) generates from
// the suite's application packages, for the typed round trip
// (suite_typed_test.go): music from testdata/app, rich from testdata/richapp.
// TestGenerated_UpToDate fails when the generator's output has changed and
// these files were not regenerated with go generate ./gen.
package gen

//go:generate go run github.com/govespa/govespa/cmd/vespagen -app ../testdata/app -package music -out music/music.go
//go:generate go run github.com/govespa/govespa/cmd/vespagen -app ../testdata/richapp -package rich -out rich/rich.go
