package testutil

import "testing/fstest"

// MapFS returns an in-memory fs.FS of name/content pairs.
func MapFS(kv ...string) fstest.MapFS {
	m := fstest.MapFS{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = &fstest.MapFile{Data: []byte(kv[i+1])}
	}
	return m
}
