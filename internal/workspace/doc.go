// Package workspace holds the test that makes the README's `go test ./...`
// cover every module of the repository: the SDK's module (this one) and the
// modules beside it that go.work lists (examples, integration,
// vespacontainer), which keep testcontainers, Docker's client and the
// example programs' dependencies out of an SDK user's module graph. go's
// ./... pattern stops at a nested module, so TestModules runs `go test
// ./...` in each of them with the flags of its own run.
package workspace
