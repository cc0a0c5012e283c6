package testutil

import "runtime"

// AllocatedBy returns the bytes allocated on the heap (the growth of
// runtime.MemStats.TotalAlloc) while f ran, by f or any other goroutine.
func AllocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
