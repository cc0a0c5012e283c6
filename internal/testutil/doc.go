// Package testutil holds the helpers govespa's own tests share: fixture
// locators, fake transports, JSON subset comparison, a log fan-out, a locked
// log buffer, self-signed certificates, a check that errors hide a secret,
// a file read that fails the test, and the credential cases of the example
// programs. Only _test.go files
// import it (.ci/run checks that); it is not API. It imports no SDK
// package, since vespatest's tests use it too.
package testutil
