// Package testutil holds the helpers govespa's own tests share: fixture
// locators, fake transports, JSON subset comparison and a log fan-out. Only
// _test.go files import it (.ci/run checks that); it is not API.
package testutil
