// Package vespa is the core of govespa: a [Client] for one Vespa endpoint, the
// synchronous document operations of Vespa's /document/v1 API, and visiting.
//
// The simplest use is a client and one call:
//
//	c, err := vespa.NewClient("http://localhost:8080")
//	if err != nil { ... }
//	defer c.Close()
//	id := vespa.MustParseDocumentID("id:mynamespace:music::a-head-full-of-dreams")
//	_, err = c.Put(ctx, id, map[string]any{"title": "A Head Full of Dreams"}, vespa.OperationOptions{})
//
// [Client.Get] (or [GetInto], which decodes the fields into a struct),
// [Client.Update] (with an [Update] from [NewUpdate]) and [Client.Remove]
// work the same way. [ParseDocumentID] reads an ID and says what is wrong
// with a bad one.
//
// # Options
//
// For credentials, TLS and transport tuning, pass options to [NewClient]:
// [WithToken] for Vespa Cloud data-plane tokens, [WithCertificateFiles] or
// [WithCertificate] for mutual TLS, [WithCAFile] for a private CA,
// [WithTimeout] for Vespa's default operation timeout, [WithLogger] for
// debug logs, [WithConnections] and [WithHTTPVersion] for the connection
// pool. [WithSchema] checks every put and update against the application's
// schemas (from [schema.ParseDir]) before it is sent.
//
// Per-operation parameters (test-and-set condition, create, route, timeout,
// trace level, field set, cluster, dry run) are the plain struct
// [OperationOptions], whose zero value means Vespa's defaults.
//
// # Visiting
//
// [Client.Visit] reads every document a [VisitRequest] selects (a document
// type, a selection expression, a field set) as a range-over-func sequence,
// fetching several slices in parallel:
//
//	for doc, err := range c.Visit(ctx, vespa.VisitRequest{Namespace: "mynamespace", DocType: "music"}) {
//		if err != nil { ... }
//		fmt.Println(doc.ID, string(doc.Fields))
//	}
//
// By default a visit asks for pages of 1000 documents and splits the corpus
// into 8 slices fetched at once (see [VisitRequest] for how to choose both);
// a visit without a type covers both bucket spaces, so documents of global
// types are included. FromTimestamp, ToTimestamp and IncludeRemoves make an
// incremental export of what changed, removals included; [VisitInto]
// decodes each document into a struct.
//
// To stop and resume a long visit, use a [Visitor] ([Client.Visitor]) and
// save its [Visitor.ResumeToken]; a later VisitRequest.ResumeToken carries on
// where it stopped, without repeating or losing a document.
// [Client.RemoveWhere] and [Client.UpdateWhere] remove or update every
// document a [SelectionRequest] selects, on the server side. A chain of
// pages whose continuation stops advancing ends with [ErrVisitStalled].
//
// # Errors
//
// A response with a status other than 2xx is returned as an [*Error], which
// carries the HTTP status, Vespa's message, the operation, the document ID and
// the request path. errors.Is matches it against sentinels such as
// [ErrNotFound] (404), [ErrConditionNotMet] (412) and [ErrTooManyRequests]
// (429); errors.As (or errors.AsType[*vespa.Error] on Go 1.26) reads its
// fields. The same type and sentinels serve every package of the SDK (a
// query's error wraps one). Transport failures are *Error values with Status
// 0 that unwrap to their cause, so errors.Is(err, context.DeadlineExceeded)
// keeps working.
//
// The client never follows a redirect (a 3xx is an error matching
// [ErrRedirect] that names the Location; nothing is written), never takes a
// 2xx that is not Vespa's JSON for a success ([ErrMalformedResponse]), reads
// at most [WithDocumentLimit] or [WithVisitPageLimit] bytes of an answer
// ([ErrResponseTooLarge]), and sends its credentials only to the endpoint's
// origin.
//
// # Retries
//
// Every synchronous request runs under the client's retry policy
// ([retries.SyncRequest] unless replaced with [WithRetryPolicy]). The HTTP
// layer itself never retries. A Retry-After is honoured up to the policy's
// cap and never beyond 60 s. Non-idempotent operations (updates with
// arithmetic or add, conditional writes; see [OperationOptions.Resend]) are
// not re-sent after a connection error that may have reached the server.
// When ctx ends while the policy waits, the error matches both ctx's error
// and the last outcome.
//
// # Instrumentation
//
// [WithTransportWrapper] wraps every transport the client makes (the shared
// one and each feeder connection), so that one wrapper sees every request;
// [OperationOptions.Header] adds headers to one operation.
//
// # Lower level
//
// [Client.SendOnce] sends exactly one request, with no retries, and returns
// any HTTP answer as a [Result]; it is the building block of the
// asynchronous feeder (package feed). [Client.HTTPClient] and
// [Client.NewHTTPClient] give the client's transport (TLS, credentials,
// headers) to other packages, such as query and feed, which take a Client.
//
// # Concurrency
//
// A Client is safe for concurrent use by many goroutines and should be
// created once and reused; Close releases its idle connections.
package vespa
