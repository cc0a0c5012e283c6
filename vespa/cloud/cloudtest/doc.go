// Package cloudtest emulates Vespa Cloud's control-plane API for tests of
// deployment scripts, as net/http/httptest serves HTTP handlers: [NewServer]
// starts a [Server] on a loopback port, [NewTestServer] closes it when the
// test ends, and package cloud's Client is pointed at it with
// cloud.WithEndpoint(srv.URL()).
//
// It is a rough approximation, not the controller: it verifies API-key
// signatures and access tokens, runs dev and perf deployments whose logs
// arrive over time and end in a chosen status, lists endpoints, takes
// production submissions and creates data-plane tokens, with faults on
// demand ([Server.FailNext], [Server.DropReplies]). It imports no other
// govespa package, so it catches the client's mistakes instead of sharing
// them.
package cloudtest
