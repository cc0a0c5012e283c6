package testutil

import (
	"os"
	"testing"
	"testing/fstest"
)

// MapFS returns an in-memory fs.FS of name/content pairs.
func MapFS(kv ...string) fstest.MapFS {
	m := fstest.MapFS{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = &fstest.MapFile{Data: []byte(kv[i+1])}
	}
	return m
}

// ReadFile returns the content of the file name, and fails tb when it
// cannot be read.
func ReadFile(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
