// Package feedrig is the rig that the feed command's benchmarks share
// (examples/feed/feedbench, examples/feed/faultbench, internal/cmd/feedcmp):
// the documents of their feed files and the writing of those files, a
// loopback server speaking HTTP/1.1 and h2c with a /document/v1 sink to
// put behind it, and the build of the feed command. It makes no SDK call:
// what each benchmark measures stays in its own files.
package feedrig
