// Package vespa is the core of govespa: a [Client] for one Vespa endpoint and
// the synchronous document operations of Vespa's /document/v1 API.
//
// The simplest use is a client and one call:
//
//	c, err := vespa.NewClient("http://localhost:8080")
//	if err != nil { ... }
//	defer c.Close()
//	id, _ := vespa.ParseDocumentID("id:mynamespace:music::a-head-full-of-dreams")
//	_, err = c.Put(ctx, id, map[string]any{"title": "A Head Full of Dreams"}, vespa.OperationOptions{})
//
// For credentials, TLS and transport tuning, pass options to [NewClient]:
// [WithToken] for Vespa Cloud data-plane tokens, [WithCertificateFiles] or
// [WithCertificate] for mutual TLS, [WithCAFile] for a private CA,
// [WithConnections] and [WithHTTPVersion] for the connection pool.
//
// Per-operation parameters (test-and-set condition, create, route, timeout,
// trace level, field set, cluster, dry run) are the plain struct
// [OperationOptions], whose zero value means Vespa's defaults.
//
// # Errors
//
// A response with a status other than 2xx is returned as an [*Error], which
// carries the HTTP status, Vespa's message, the operation, the document ID and
// the request path. errors.Is matches it against sentinels such as
// [ErrNotFound] (404), [ErrConditionNotMet] (412) and [ErrTooManyRequests]
// (429). Transport failures are *Error values with Status 0 that unwrap to
// their cause, so errors.Is(err, context.DeadlineExceeded) keeps working.
//
// # Retries
//
// Every synchronous request runs under the client's retry policy
// ([retries.SyncRequest] unless replaced with [WithRetryPolicy]). The HTTP
// layer itself never retries. [Client.SendOnce] sends exactly one request and
// is the building block of the asynchronous feeder (package feed).
//
// # Concurrency
//
// A Client is safe for concurrent use by many goroutines and should be
// created once and reused; Close releases its idle connections.
package vespa
