// Package readme holds no code, only a test: every Go snippet of the
// repository's README.md must stand, line for line, in the Example file the
// README names for it, so that the snippets compile and run as part of
// go test ./... and cannot drift from the API.
package readme
