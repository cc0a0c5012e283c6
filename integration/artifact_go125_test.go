//go:build !go1.26

package integration

import "testing"

// artifactDir is a temporary directory on Go 1.25, which has no t.ArtifactDir.
func artifactDir(t *testing.T) string { return t.TempDir() }
