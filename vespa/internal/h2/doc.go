// Package h2 is an HTTP/2 client transport made for many small concurrent
// requests on a few connections: the feeder's traffic.
//
// [Transport] is an [net/http.RoundTripper] for h2c with prior knowledge
// (http:// URLs) and h2 over TLS negotiated through ALPN (https:// URLs).
// Each connection has exactly two goroutines: a writer that drains every
// frame queued while it was writing and flushes them in one write, and a
// reader that decodes every frame a single read brought in (through a
// buffered reader). No goroutine is started per request.
//
// The frame codec and HPACK are golang.org/x/net/http2's [http2.Framer] and
// golang.org/x/net/http2/hpack; connection management, flow control and
// stream state are this package's. Fields that repeat on every request
// (:method, :scheme, :authority, content-type, user-agent, ...) enter the
// HPACK dynamic table on their first use and cost one or two bytes after
// that, and their encoding is kept until the table changes, so they are
// encoded once per connection; the fields that change on every request
// (:path, content-length) are written as never-indexed literals, so they
// never churn the table.
//
// Request bodies are held in memory: a body that can write itself in one
// call (a *bytes.Reader or *strings.Reader from [http.NewRequest], whose
// GetBody is set) is written from the caller's bytes without a copy; any
// other body is read into memory before the request is sent. So every
// request can be sent again, and is, on a fresh connection when the server
// did not process it (GOAWAY above its stream, REFUSED_STREAM, or a
// connection lost before its headers were written).
//
// # Protocol
//
//   - SETTINGS: the server's MAX_CONCURRENT_STREAMS bounds the streams open
//     on a connection (a request waits for a free stream, or a new connection
//     up to [Transport.MaxConnsPerHost]); INITIAL_WINDOW_SIZE,
//     MAX_FRAME_SIZE and HEADER_TABLE_SIZE are honoured.
//   - Flow control in both directions: request bodies larger than the
//     server's windows are sent as WINDOW_UPDATEs come in; received data is
//     credited back (WINDOW_UPDATE) as the response body is read, or at once
//     when a body is closed unread.
//   - PING is answered; RST_STREAM fails one stream with an
//     [http2.StreamError] (REFUSED_STREAM is retried); GOAWAY lets the
//     streams the server accepted finish and retries the others.
//   - A lost connection fails every stream in flight with a [*ConnError],
//     which matches [io.ErrUnexpectedEOF] (and the network error), so
//     retries.IsConnectionError classifies it as a connection error.
//   - A request's context ends it: RST_STREAM(CANCEL) is sent, and
//     RoundTrip or the body's Read returns the context's error.
//   - Health: a connection that received nothing for
//     [Transport.ReadIdleTimeout], or whose request timed out with nothing
//     received since it was sent, sends a PING; one unanswered within
//     [Transport.PingTimeout] closes the connection ([ErrPingTimeout]). A
//     connection whose requests time out three times in a row with no
//     response between takes no new stream and closes once drained.
//
// Responses are never decompressed: the transport does not ask for gzip.
// Not supported: proxies (it dials the server directly), request trailers
// and priorities.
package h2
