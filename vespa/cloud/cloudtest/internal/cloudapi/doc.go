// Package cloudapi emulates the parts of Vespa Cloud's control-plane API
// (application/v4) that deployment scripts use: API-key signature
// verification, dev and perf deployments whose runs log over time and end in
// a chosen status, endpoints, deactivation, production submissions and their
// build status, and data-plane tokens. Replies are shaped as the controller's.
//
// It is written independently of govespa's client: it imports no govespa
// package, so it can catch the client's mistakes. Package cloudtest exposes it
// as Server.
package cloudapi
