//go:build !unix

package feed_test

import "time"

// processCPU returns 0: the platform's CPU time is not read here.
func processCPU() time.Duration { return 0 }
