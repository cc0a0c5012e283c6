//go:build !unix

package feed

import "os"

// lockJournal does nothing where flock(2) is not: see [OpenJournal].
func lockJournal(*os.File) error { return nil }
