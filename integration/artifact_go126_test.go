//go:build go1.26

package integration

import "testing"

// artifactDir is where a test keeps what it wants looked at after a failure:
// Go 1.26's t.ArtifactDir (kept with go test -artifacts).
func artifactDir(t *testing.T) string { return t.ArtifactDir() }
